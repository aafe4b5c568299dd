"""What the twin of a cluster made, recorded in its state file (/run/gpufabric-twin/<cluster>/state.json, so that
``down`` needs no plan), and the machine's neighbour-table thresholds the first twin raised (twin/kernel.py)."""
import json
import os

from . import daemons, kernel
from .vrf import is_vrf_namespace_of

STATE_ROOT = "/run/gpufabric-twin"
# The machine's neighbour-table thresholds before the first twin raised them (twin/kernel.py): one file
# for all twins, since the tables are shared; restored when the last twin is removed.
NEIGH_SAVED = os.path.join(STATE_ROOT, "neigh-thresholds.json")
LLDPD_CHROOT = "/run/lldpd"


def state_dir(cluster):
    return os.path.join(STATE_ROOT, cluster)


def twin_lldp_socket(cluster, host):
    """The twin's lldpd control socket for ``host`` (twin/daemons.py decides where it lives)."""
    return daemons.lldpd_paths(state_dir(cluster), host)["socket"]


def state_path(cluster):
    return os.path.join(state_dir(cluster), "state.json")


def read_state(cluster):
    try:
        with open(state_path(cluster)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_state(twin, previous, kept=()):
    data = {"cluster": twin.cluster, "namespaces": sorted(set(twin.namespaces) | set(kept)),
            "devices": sorted(twin.device_planes),
            "frr": sorted({ns.name for ns in twin.namespaces.values() if ns.frr_daemons} | set(kept)),
            # {switch: [[server, NIC], ...]} cabled to it, for a switch that changes alone (reconcile_switch)
            "server_nics": _server_nics(twin),
            "lldpd_chroot_created": (previous or {}).get("lldpd_chroot_created",
                                                         not os.path.exists(LLDPD_CHROOT))}
    if data == previous:
        return
    os.makedirs(state_dir(twin.cluster), exist_ok=True)
    with open(state_path(twin.cluster) + ".tmp", "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.rename(state_path(twin.cluster) + ".tmp", state_path(twin.cluster))


def _server_nics(twin):
    out = {}
    for ns_a, _if_a, ns_b, if_b in twin.veths:
        peer = twin.namespaces.get(ns_b)
        if peer is not None and peer.role == "gpu_server":
            out.setdefault(ns_a, []).append([ns_b, if_b])
    return {switch: sorted(nics) for switch, nics in sorted(out.items())}


def update_switch_state(cluster, host, part):
    """Record the switch's namespaces in the twin's state file (other switches may do so at once)."""
    import fcntl
    os.makedirs(state_dir(cluster), exist_ok=True)
    with open(os.path.join(state_dir(cluster), "state.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = read_state(cluster) or {"cluster": cluster, "namespaces": [], "frr": []}
        stale = [n for n in state["namespaces"] if is_vrf_namespace_of(n, host) and n not in part.namespaces]
        state["namespaces"] = sorted((set(state["namespaces"]) - set(stale)) | set(part.namespaces))
        state["frr"] = sorted((set(state.get("frr", ())) - set(stale))
                              | {ns.name for ns in part.namespaces.values() if ns.frr_daemons})
        with open(state_path(cluster) + ".tmp", "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
        os.rename(state_path(cluster) + ".tmp", state_path(cluster))
    return stale


def raise_neigh_limits(twin):
    try:
        with open(NEIGH_SAVED) as f:
            saved = json.load(f)
    except (OSError, ValueError):
        saved = None
    saved, changes = kernel.raise_neigh_limits(2 * len(twin.veths), saved)
    if changes and not os.path.exists(NEIGH_SAVED):
        with open(NEIGH_SAVED + ".tmp", "w") as f:
            json.dump(saved, f, indent=1, sort_keys=True)
        os.rename(NEIGH_SAVED + ".tmp", NEIGH_SAVED)
    return changes


def restore_neigh_limits():
    """Restore the thresholds when no twin is left on the machine."""
    others = [n for n in os.listdir(STATE_ROOT) if n != os.path.basename(NEIGH_SAVED)] \
        if os.path.isdir(STATE_ROOT) else []
    if others or not os.path.exists(NEIGH_SAVED):
        return []
    with open(NEIGH_SAVED) as f:
        changes = kernel.restore_neigh_limits(json.load(f))
    os.remove(NEIGH_SAVED)
    return changes
