"""Documentation settings: data/docs_defaults.yml with the spec's `docs` overrides merged on top."""
import copy
import os

try:  # PyYAML comes with ansible-core; the guard only keeps module import checks quiet without it
    import yaml
except ImportError:  # pragma: no cover
    yaml = None

_DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "docs_defaults.yml")
_defaults = None


def defaults():
    global _defaults
    if _defaults is None:
        with open(_DATA, encoding="utf-8") as f:
            _defaults = yaml.safe_load(f)
    return copy.deepcopy(_defaults)


def merge(base, overrides):
    """Mappings merge key by key, anything else replaces; None means "not set" (a validated spec
    fills unset optional keys with None) and keeps the default."""
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = value
    return base


def settings_for(plan, overrides=None):
    """Defaults, then the spec's `docs` section, then explicit ``overrides`` (tests, callers)."""
    out = merge(defaults(), plan.spec.get("docs"))
    return merge(out, overrides)
