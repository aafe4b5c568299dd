"""Moved to the ``plan`` package; this name stays while other branches still import it."""
from .plan import build_plan

__all__ = ["build_plan"]
