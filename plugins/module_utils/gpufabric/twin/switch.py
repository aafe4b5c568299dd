"""One switch of a running twin changed by its NOS's stand-in (which calls these from the machine's namespaces after
the switch's configuration changed): its namespace and its tenant VRFs' made to match, as ``up`` makes a whole
twin (twin/lifecycle.py)."""
import os
import time

from .emulators import plane as emulator_plane
from . import daemons, network
from .desired import switch_namespaces
from .model import FRR_DAEMONS, SWITCH_SYSCTLS, Iface, Twin, TwinError, frr_daemons
from .lifecycle import apply_port_acls, preflight, remove_namespaces, wait_converged
from .run import run_many
from .state import read_state, update_switch_state
from .vrf import add_vrfs, is_vrf_namespace_of


class _Switch:
    """The device facts switch_namespaces needs, for a switch known by its management plane rather than a plan."""

    def __init__(self, name, role, nos, model):
        self.name, self.role, self.nos = name, role, nos
        self.model = type("Model", (), {"name": model})()


def reconcile_switch(cluster, host, role, nos, model, config_text, reload_frr=False):
    """What a twin switch does after its configuration changed, for the part of the twin it decides (its NOS's
    stand-in calls this, from the machine's namespaces, after `config replace` changed CONFIG_DB or frr-reload was
    run): its namespace and its tenant VRFs' namespaces (twin/vrf.py) are made to match the configuration it now
    holds: ``config_text`` (in its NOS's rendered format, e.g. CONFIG_DB as config_db.json) and the frr.conf in its
    FRR pathspace. Its cabled ports are those its namespace has. With ``reload_frr`` its FRR is reloaded even when
    the translation did not change (frr-reload was asked for). Returns up_switch's report; no wait for BGP (the
    deploy's gate waits)."""
    plane = emulator_plane(nos)
    try:
        with open(os.path.join(daemons.frr_dir(host), "frr.conf")) as f:
            frr_text = f.read()
        lay = plane.layout(config_text)
    except (OSError, ValueError) as exc:
        raise TwinError("%s: %s" % (host, exc))
    have = network.observe({host}).get(host, {})
    cabled = sorted(port for port in lay["ports"] if have.get(port, {}).get("kind") == "veth")
    files = {"devices/%s/%s" % (host, plane.CONFIG_FILE): config_text, "devices/%s/frr.conf" % host: frr_text}
    part = Twin(cluster)
    switch_namespaces(part, _Switch(host, role, nos, model), files, cabled)
    part.server_nics = [tuple(pair) for pair in (read_state(cluster) or {}).get("server_nics", {}).get(host, ())]
    return up_switch(part, host, timeout=None, reload=[host] if reload_frr else ())


def self_applied_vrfs(cluster, host, frr_text, vrf_ports):
    """A switch whose NOS applies its own configuration into its namespace (ns.nos_plane; its stand-in calls this
    after it changed the switch's ports, in place of loading FRR itself): its tenant VRFs made to match, as
    reconcile_switch does for a switch the twin lays out (twin/vrf.py). ``vrf_ports``: {VRF: {port: (MTU, [IPv4
    addresses], up)}} of the cabled ports bound to each; ``frr_text``: the switch's frr.conf as its NOS rendered it.
    The VRF-bound ports are bridged into a namespace per VRF, which takes their addresses; VRF namespaces the switch
    no longer has are removed; FRR of the switch runs the translation of ``frr_text`` (the file stays ``frr_text``),
    reloaded in place when it changed, and each VRF's FRR its own. Returns up_switch's report; no wait for BGP."""
    part = Twin(cluster)
    ns = part.ns(host, "switch")
    ns.sysctls = dict(SWITCH_SYSCTLS)
    ns.frr_daemons = FRR_DAEMONS
    ns.frr_file = ns.frr_conf = frr_text
    for ports in vrf_ports.values():
        for port, (mtu, addrs, port_up) in sorted(ports.items()):
            ns.add(Iface(port, "veth", mtu, addrs, None, port_up))
    try:
        vrfs = add_vrfs(part, ns, {name: sorted(ports) for name, ports in vrf_ports.items()}, Iface)
    except ValueError as exc:
        raise TwinError("%s: %s" % (host, exc))
    for each in vrfs:
        each.frr_daemons = frr_daemons(each.frr_conf) if each.frr_conf else ()
    part.server_nics = [tuple(pair) for pair in (read_state(cluster) or {}).get("server_nics", {}).get(host, ())]
    return up_switch(part, host, timeout=None)


def has_vrf_namespaces(host):
    """Whether the twin runs tenant VRF namespaces of switch ``host`` (twin/vrf.py), or FRR of ``host`` a translation."""
    return os.path.exists(daemons.running_conf(host)) or any(
        is_vrf_namespace_of(name, host) for name in network.existing_namespaces())


def up_switch(part, host, timeout=90.0, reload=()):
    """Make the machine hold one switch's part of the twin (reconcile_switch): VRF namespaces it no longer has are
    removed, the rest is applied as ``up`` applies a whole twin, FRR of the namespaces in ``reload`` reloaded even
    when their configuration did not change; with a ``timeout``, waits until the switch's BGP sessions (to the fabric
    and to its VRFs) are Established."""
    started = time.monotonic()
    problem = preflight()
    if problem:
        raise TwinError(problem)
    stale = update_switch_state(part.cluster, host, part)
    changes = remove_namespaces(stale)
    changes += network.apply_links(part)
    namespaces = [part.namespaces[n] for n in sorted(part.namespaces)]
    to_start, to_reload, frr_changes = daemons.frr_stage(namespaces)
    daemons.frr_start(to_start)
    daemons.frr_reload(sorted(set(to_reload) | (set(reload) - set(to_start))))
    changes += frr_changes
    changes += network.bring_up(part, network.links_down(part))
    changes += apply_port_acls(part)
    if changes:
        # A switch routes every port with its one system MAC, whatever its VRF, so a server never sees its
        # gateway's MAC change; here the gateway's /31 moves between veths with their own MACs, so the
        # servers' neighbour entries towards this leaf are dropped and resolved again.
        run_many([(["ip", "-n", server, "neigh", "flush", "dev", nic], None)
                  for server, nic in getattr(part, "server_nics", ())], check=False)
    report = {"changed": bool(changes), "changes": changes}
    if timeout is not None:
        report["converged"] = wait_converged(part, timeout)
    report["seconds"] = round(time.monotonic() - started, 2)
    return report
