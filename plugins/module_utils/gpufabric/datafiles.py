"""The collection's own data files (data/*.yml): read once, handed out as copies, and merged
with a spec's overrides the one way every section merges."""
import copy
import os

from .errors import SpecError

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
_loaded = {}


def load(name):
    """data/<name>.yml as plain data (a copy: callers may change it)."""
    if name not in _loaded:
        try:  # here, not at the top: Ansible's import sanity test loads module_utils without PyYAML
            import yaml
        except ImportError:  # pragma: no cover
            raise SpecError("", "PyYAML is required to read data/%s.yml: pip install pyyaml" % name)
        with open(os.path.join(DATA_DIR, name + ".yml"), encoding="utf-8") as f:
            _loaded[name] = yaml.safe_load(f)
    return copy.deepcopy(_loaded[name])


def merge(base, overrides):
    """``overrides`` merged into ``base`` (changed in place and returned): mappings key by key,
    anything else replaces. None means "not set" (a validated spec fills unset optional keys with
    None) and keeps the base value."""
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = value
    return base
