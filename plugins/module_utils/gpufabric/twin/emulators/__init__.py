"""The twin's NOS emulators: for each NOS, what stands in for a switch's own management plane on the twin
(docs/twin.md, "NOS stand-ins"). The emulator of NOS ``x`` is the package ``twin/emulators/x/``, found here by
the NOS's name and loaded only when the twin runs (``plane(x)``: its ``plane.py``).

An emulator is an oracle: it behaves as the switch does, written from the vendor's behaviour, and the product
(renderers, deploy, schema gates, API clients: ``nos/<name>/`` and the rest of gpufabric/) is judged by it. So an
emulator imports nothing of the product, and the product imports nothing of an emulator
(scripts/check_imports.py fails either way; docs/architecture.md, "Layers"). What an emulator may use besides
its own package is the twin's machinery (``twin/`` outside ``emulators/``) and ``netns_process``.

``TwinPlane`` is what the twin asks of an emulator's plane; ``problems(name)`` checks one against it.
"""
import importlib
from typing import Any, Protocol, Tuple


class TwinPlane(Protocol):
    """The emulator's plane (``plane.py`` of ``twin/emulators/<nos>/``): ``layout`` when the twin builds the
    switch's namespace from its rendered CONFIG_FILE, ``boot_facts``/``empty_frr_conf`` when the emulator applies
    its configuration itself (SELF_APPLYING)."""
    SELF_APPLYING: bool
    CONFIG_FILE: str
    PORT_PATTERN: str
    REQUIRES: Tuple[Tuple[str, str], ...]
    PlaneError: type

    def apply(self, *args: Any, **kwargs: Any) -> Any: ...

    def forget(self, *args: Any, **kwargs: Any) -> Any: ...

    def remove(self, *args: Any, **kwargs: Any) -> Any: ...

    def leftovers(self, *args: Any, **kwargs: Any) -> Any: ...


def plane(nos):
    """The plane of NOS ``nos``'s emulator (``twin/emulators/<nos>/plane.py``), loaded by name."""
    if not nos or not str(nos).isidentifier():
        raise ValueError("no emulator for NOS %r" % (nos,))
    try:
        return importlib.import_module("%s.%s.plane" % (__name__, nos))
    except ModuleNotFoundError as exc:
        if exc.name in ("%s.%s" % (__name__, nos), "%s.%s.plane" % (__name__, nos)):
            raise ValueError("no emulator for NOS %r (twin/emulators/%s/)" % (nos, nos)) from exc
        raise


def _members(protocol):
    names = list(protocol.__dict__.get("__annotations__", {}))
    return names + [n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_") and n not in names]


def problems(name, emulator_plane=None):
    """[problem] of NOS ``name``'s emulator plane (``emulator_plane``: the module, or what stands in for it in a
    test) against TwinPlane, each naming the piece; [] when it keeps it."""
    found = plane(name) if emulator_plane is None else emulator_plane
    missing = []
    for piece in _members(TwinPlane):
        if not hasattr(found, piece):
            missing.append(piece)
        elif piece not in TwinPlane.__dict__.get("__annotations__", {}) and not callable(getattr(found, piece)):
            missing.append(piece)
    wanted = ("boot_facts", "empty_frr_conf") if getattr(found, "SELF_APPLYING", False) else ("layout",)
    missing += [piece for piece in wanted if not callable(getattr(found, piece, None))]
    return ["emulator %s: plane.%s missing (needed by the twin)" % (name, piece) for piece in missing]
