"""Network operating systems: which ones the collection speaks and their platform facts.

A switch runs the NOS its spec role names (`nos:`, default ``sonic``), which its catalog model must
list. Platform facts (interface naming, management port, loopback/LAG/VLAN names, features) live in
``nos/platforms.yml``, keyed by NOS with per-model overrides; this module is the only reader.
"""
import functools
import os

from ..datafiles import load_path, merge

DEFAULT_NOS = "sonic"
_PLATFORMS = os.path.join(os.path.dirname(__file__), "platforms.yml")


def _platforms():
    return load_path(_PLATFORMS)


def names():
    """The NOSes the collection renders, in the order platforms.yml lists them."""
    return tuple(_platforms())


@functools.lru_cache(maxsize=None)
def platform(nos, model=None):
    """The platform facts of ``nos`` on switch model ``model`` (its default where the model has none).
    Shared between callers: read it, do not change it."""
    data = _platforms()[nos]
    return merge(data["default"], (data.get("models") or {}).get(model) or {})


def ansible_network_os(nos):
    """The ``ansible_network_os`` value of a switch running ``nos``."""
    return _platforms()[nos]["ansible_network_os"]


def interface_name(facts, lane, index):
    """A front-panel port's name under the platform ``facts``."""
    return facts["interface_name"].format(lane=lane, index=index, number=index + 1)
