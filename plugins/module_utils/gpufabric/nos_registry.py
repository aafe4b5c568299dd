"""Network operating systems: which ones the collection speaks, their platform facts, and where their homes are.

A switch runs the NOS its spec role names (`nos:`, default ``sonic``), which its catalog model must
list. Platform facts (interface naming, management port, loopback/LAG/VLAN names) live in
``data/platforms.yml``, keyed by NOS with per-model overrides; this module is the only reader.

It is also the one place that maps a NOS name to its home (``nos/<name>/``, at the top of the package while this
module is at its bottom): everything specific to
one NOS, i.e. its renderer and templates, its schema gate, its deploy semantics, the collectors that
turn its command output into the neutral facts validation checks, and its ZTP artefacts
(docs/architecture.md, "Adding a NOS"). Neutral code never imports a home; it asks ``home(nos_of(cfg))``.
A home imports only neutral code (scripts/check_imports.py keeps both true).
"""
import functools
import importlib
import json
import os

from .datafiles import load, merge
from .schema_types import Str

DEFAULT_NOS = "sonic"
# NOS name -> its home's module under nos/.
HOMES = {"sonic": "sonic", "cumulus": "cumulus", "eos": "eos"}
# Where the homes are: nos/<name>/ beside this module.
_HOMES_DIR = os.path.join(os.path.dirname(__file__), "nos")
_HOMES_PACKAGE = __name__.rsplit(".", 1)[0] + ".nos"


def _platforms():
    return load("platforms")


def names():
    """The NOSes the collection renders: those with a home. Read without loading platforms.yml, so
    that importing the spec schema needs no YAML parser (Ansible's import sanity test has none)."""
    return tuple(HOMES)


@functools.lru_cache(maxsize=None)
def platform(nos, model=None):
    """The platform facts of ``nos`` on switch model ``model`` (its default where the model has none).
    Shared between callers: read it, do not change it."""
    data = _platforms()[nos]
    return merge(data["default"], (data.get("models") or {}).get(model) or {})


def ansible_network_os(nos):
    """The ``ansible_network_os`` value of a switch running ``nos``."""
    return _platforms()[nos]["ansible_network_os"]


def deploy_facts(nos):
    """How plays change a switch running ``nos`` (platforms.yml ``deploy``): {"role": its deploy role,
    "plays": the day-2 playbooks that may use that role, "tenancy_command": the command tenants.yml reads, or absent}."""
    return _platforms()[nos]["deploy"]


def interface_name(facts, lane, index):
    """A front-panel port's name under the platform ``facts``."""
    return facts["interface_name"].format(lane=lane, index=index, number=index + 1)


@functools.lru_cache(maxsize=None)
def _home_spec_keys(module):
    path = os.path.join(_HOMES_DIR, module, "spec_keys.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle).get("switch_config", {})


def switch_config_keys():
    """{key: schema type} the homes add to the spec's ``switch_config``: the ``switch_config`` entries of a home's
    ``spec_keys.json`` (read as data, so the spec schema loads no home), in ``HOMES`` order. Each key names its
    NOS (``cumulus_release``); only string keys so far."""
    out = {}
    for module in HOMES.values():
        for key, field in _home_spec_keys(module).items():
            field = dict(field)
            kind = field.pop("type")
            if kind != "string":
                raise ValueError("nos/%s/spec_keys.json: %s has type %r; only string keys are read" % (module, key, kind))
            out[key] = Str(field.pop("doc"), **field)
    return out


class UnknownNos(ValueError):
    """A NOS name with no home here."""


def home(name=None):
    """The home module of NOS ``name`` (``DEFAULT_NOS`` when None)."""
    name = name or DEFAULT_NOS
    if name not in HOMES:
        raise UnknownNos("nos: %r has no home in this collection (known: %s)" % (name, ", ".join(sorted(HOMES))))
    return importlib.import_module("%s.%s" % (_HOMES_PACKAGE, HOMES[name]))


def nos_of(cfg):
    """The NOS of one switch's structured config (its ``nos`` key; ``DEFAULT_NOS`` when absent)."""
    return (cfg or {}).get("nos") or DEFAULT_NOS
