"""The virtual twin: the planned cluster on this machine, one network namespace per device, real FRR and lldpd.

    twin = build_twin(plan, files)   # desired state (twin/desired.py)
    report = up(twin)                # idempotent: report["changed"] is False when nothing was done
    down(twin.cluster)               # removes every namespace, cable, process and file it made

Everything the twin creates is listed in its state file, /run/gpufabric-twin/<cluster>/state.json, so
``down`` needs no plan. See docs/twin.md. This package's ``__init__`` only names its public API: the orchestration is
lifecycle.py (a whole twin), switch.py (one switch, for a NOS's stand-in) and state.py (what the twin made).

The names are loaded when first asked for (PEP 562): each command a NOS emulator answers on a twin switch (its
``config`` or ``show``) imports a few modules of this package, and every call would otherwise import the whole twin,
validation and planner included, before doing anything.
"""
import importlib

# public name -> the module of this package that defines it
_PUBLIC = {
    "build_twin": "desired", "cabled_ports": "desired", "switch_namespaces": "desired",
    "Twin": "model", "TwinError": "model",
    "apply_port_acls": "lifecycle", "bgp_state": "lifecycle", "down": "lifecycle", "leftovers": "lifecycle",
    "preflight": "lifecycle", "remove_namespaces": "lifecycle", "up": "lifecycle", "verify": "lifecycle",
    "wait_converged": "lifecycle",
    "STATE_ROOT": "state", "read_state": "state", "state_dir": "state", "twin_lldp_socket": "state",
    "has_vrf_namespaces": "switch", "reconcile_switch": "switch", "self_applied_vrfs": "switch", "up_switch": "switch",
    "NetnsTransport": "transport",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = getattr(importlib.import_module("." + module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))
