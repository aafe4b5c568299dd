"""Documentation settings: data/docs_defaults.yml with the spec's `docs` overrides merged on top."""
from ..datafiles import load, merge


def defaults():
    return load("docs_defaults")


def settings_for(plan, overrides=None):
    """Defaults, then the spec's `docs` section, then explicit ``overrides`` (tests, callers).
    Cable lengths are not among what overrides can change: they are the plan's (plan/cables.py)."""
    out = merge(defaults(), plan.spec.get("docs"))
    return merge(out, overrides)
