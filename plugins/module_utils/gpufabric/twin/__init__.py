"""The virtual twin: the planned cluster on this machine, one network namespace per device, real FRR and lldpd.

    twin = build_twin(plan, files)   # desired state (twin/desired.py)
    report = up(twin)                # idempotent: report["changed"] is False when nothing was done
    down(twin.cluster)               # removes every namespace, cable, process and file it made

Everything the twin creates is listed in its state file, /run/gpufabric-twin/<cluster>/state.json, so
``down`` needs no plan. See docs/twin.md. This package's ``__init__`` only names its public API: the orchestration is
lifecycle.py (a whole twin), switch.py (one switch, for a NOS's stand-in) and state.py (what the twin made).
"""
from .desired import build_twin, cabled_ports, switch_namespaces  # noqa: F401  (public API)
from .model import Twin, TwinError  # noqa: F401  (public API)
from .lifecycle import (apply_port_acls, bgp_state, down, leftovers, preflight, remove_namespaces,  # noqa: F401
                        up, verify, wait_converged)
from .state import STATE_ROOT, read_state, state_dir, twin_lldp_socket  # noqa: F401  (public API)
from .switch import has_vrf_namespaces, reconcile_switch, self_applied_vrfs, up_switch  # noqa: F401  (public API)
from .transport import NetnsTransport  # noqa: F401  (public API)
