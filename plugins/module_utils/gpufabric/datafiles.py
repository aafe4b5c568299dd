"""The collection's own data files (data/*.yml): read once, handed out as copies, and merged
with a spec's overrides the one way every section merges."""
import copy
import os

from .errors import SpecError

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
_loaded = {}


def load(name):
    """data/<name>.yml as plain data (a copy: callers may change it)."""
    return load_path(os.path.join(DATA_DIR, name + ".yml"))


def load_path(path):
    """The YAML file ``path`` of the collection as plain data, read once (a copy: callers may change it)."""
    if path not in _loaded:
        try:  # here, not at the top: Ansible's import sanity test loads module_utils without PyYAML
            import yaml
        except ImportError:  # pragma: no cover
            raise SpecError("", "PyYAML is required to read %s: pip install pyyaml" % os.path.basename(path))
        with open(path, encoding="utf-8") as f:
            _loaded[path] = yaml.safe_load(f)
    return copy.deepcopy(_loaded[path])


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
