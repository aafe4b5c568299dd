"""Renderers: structured config -> device text, one module per NOS (templates in ../templates/<nos>/)."""
