"""The virtual twin: the planned cluster on this machine, one network namespace per device, real FRR and lldpd.

    twin = build_twin(plan, files)   # desired state (twin/desired.py)
    report = up(twin)                # idempotent: report["changed"] is False when nothing was done
    down(twin.cluster)               # removes every namespace, cable, process and file it made

Everything the twin creates is listed in its state file, /run/gpufabric-twin/<cluster>/state.json, so
``down`` needs no plan. See docs/twin.md.
"""
import json
import os
import shutil
import time

from . import daemons, kernel, network, nftables
from .vrf import add_vrfs, is_vrf_namespace_of
from .desired import Twin, TwinError, build_twin, cabled_ports, switch_namespaces   # noqa: F401  (public API)
from .desired import FRR_DAEMONS, SWITCH_SYSCTLS, Iface, frr_daemons
from ..nos_registry import home
from .run import run_many
from .transport import NetnsTransport
from ..validate.runner import command_collector, validate

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


def _state_path(cluster):
    return os.path.join(state_dir(cluster), "state.json")


def read_state(cluster):
    try:
        with open(_state_path(cluster)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _self_applied_vrf_namespaces(twin, names):
    """Those of ``names`` that are tenant VRF namespaces of a switch applying its own configuration (ns.nos_plane)."""
    hosts = [ns.name for ns in twin.namespaces.values() if ns.nos_plane]
    return sorted(n for n in names if n not in twin.namespaces and any(is_vrf_namespace_of(n, h) for h in hosts))


def _write_state(twin, previous, kept=()):
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
    with open(_state_path(twin.cluster) + ".tmp", "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.rename(_state_path(twin.cluster) + ".tmp", _state_path(twin.cluster))


def _server_nics(twin):
    out = {}
    for ns_a, _if_a, ns_b, if_b in twin.veths:
        peer = twin.namespaces.get(ns_b)
        if peer is not None and peer.role == "gpu_server":
            out.setdefault(ns_a, []).append([ns_b, if_b])
    return {switch: sorted(nics) for switch, nics in sorted(out.items())}


def preflight():
    """Why the twin cannot run here, or None."""
    if os.geteuid() != 0:
        return "the twin needs root (network namespaces, veth pairs, FRR)"
    needed = [(daemons.FRR_SBIN + "/zebra", "FRR (apt-get install frr)"), ("/usr/bin/vtysh", "FRR's vtysh"),
              ("/usr/sbin/lldpd", "lldpd (apt-get install lldpd)"), ("/usr/sbin/lldpcli", "lldpcli")]
    for plane in _planes():
        needed += list(getattr(plane, "REQUIRES", ()))   # what each NOS's stand-in needs besides
    for path, what in needed:
        if not os.path.exists(path):
            return "%s is missing: %s" % (path, what)
    return None


def up(twin, wait=True, timeout=90.0, frr_config="rendered"):
    """Make the machine hold ``twin``; returns {"changed", "changes", "namespaces", "cables", "seconds",
    "converged" (seconds until every BGP session was Established)}. ``frr_config="blank"`` starts FRR
    without routing config, for a deployment (playbooks/deploy.yml) to install the rendered one."""
    started = time.monotonic()
    problem = preflight()
    if problem:
        raise TwinError(problem)
    previous = read_state(twin.cluster)
    # A switch that applies its own configuration made the namespaces of its tenant VRFs itself (self_applied_vrfs):
    # they are its to keep or remove.
    kept = _self_applied_vrf_namespaces(twin, (previous or {}).get("namespaces", ()))
    # Namespaces the twin no longer has (a tenant VRF gone from a leaf) go first, with their FRR.
    gone = sorted(set((previous or {}).get("namespaces", ())) - set(twin.namespaces) - set(kept))
    gone_devices = sorted(set((previous or {}).get("devices", ())) - set(twin.device_planes))
    changes = []
    for plane in _planes():
        changes += plane.forget(state_dir(twin.cluster), gone + gone_devices)
    changes += remove_namespaces(gone)
    _write_state(twin, previous, kept)
    changes += _raise_neigh_limits(twin)
    changes += network.apply_links(twin)
    namespaces = [twin.namespaces[n] for n in sorted(twin.namespaces)]
    to_start, to_reload, frr_changes = daemons.frr_stage(namespaces, blank=frr_config == "blank")
    daemons.frr_start(to_start)
    daemons.frr_reload(to_reload)
    changes += frr_changes
    changes += network.bring_up(twin, network.links_down(twin))
    changes += network.apply_routing(twin)
    changes += apply_port_acls(twin)
    changes += daemons.lldpd_apply(state_dir(twin.cluster), namespaces)
    changes += _mgmt_planes(twin)
    changes += _self_applying(twin, boot=frr_config != "blank")
    report = {"changed": bool(changes), "changes": changes, "namespaces": len(twin.namespaces),
              "cables": len(twin.veths)}
    if wait and frr_config != "blank":
        report["converged"] = wait_converged(twin, timeout)
    report["seconds"] = round(time.monotonic() - started, 2)
    return report


def _mgmt_planes(twin):
    """The management plane of each switch whose NOS's stand-in runs one beside the namespace the twin built
    (ns.mgmt_plane; its home's twin plane, docs/twin.md), each NOS's plane started for its switches."""
    by_nos = {}
    for name in sorted(twin.namespaces):
        ns = twin.namespaces[name]
        if ns.mgmt_plane:
            nos_name, model_name, native = ns.mgmt_plane
            by_nos.setdefault((nos_name, True), []).append((name, model_name, native, ns.role))
    # Devices without a namespace of their own: their plane runs with no dataplane to program.
    for name in sorted(twin.device_planes):
        nos_name, model_name, native = twin.device_planes[name]
        by_nos.setdefault((nos_name, False), []).append((name, model_name, native, None))
    changes = []
    for (nos_name, namespaced), switches in sorted(by_nos.items()):
        plane = home(nos_name).twin_plane()
        try:
            changes += plane.apply(state_dir(twin.cluster), switches, namespaced=namespaced)
        except plane.PlaneError as exc:
            raise TwinError(str(exc))
    return changes


def _self_applying(twin, boot):
    """Switches whose NOS applies its own configuration (ns.nos_plane: e.g. a stand-in of its configuration API,
    docs/twin.md), each NOS's plane started for its switches; with ``boot`` a switch boots its rendered
    configuration the first time, else empty (playbooks/deploy.yml configures it through the NOS's API)."""
    by_nos = {}
    for name in sorted(twin.namespaces):
        ns = twin.namespaces[name]
        if ns.nos_plane:
            nos_name, release, text = ns.nos_plane
            by_nos.setdefault(nos_name, []).append((name, release, text if boot else None))
    changes = []
    for nos_name, switches in sorted(by_nos.items()):
        plane = home(nos_name).twin_plane()
        try:
            changes += plane.apply(state_dir(twin.cluster), switches)
        except plane.PlaneError as exc:
            raise TwinError(str(exc))
    return changes


def _planes():
    """The twin planes of every NOS (each knows what of it runs)."""
    from ..nos_registry import names
    return [home(n).twin_plane() for n in names()]


def remove_namespaces(names):
    """Stop everything in the namespaces, delete them and their FRR pathspaces."""
    changes = network.delete_namespaces(names)
    for ns in sorted(names):
        for path in (daemons.frr_dir(ns), daemons.frr_run_dir(ns)):
            if os.path.exists(path):
                shutil.rmtree(path, ignore_errors=True)
    return changes


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
    plane = home(nos).twin_plane()
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


def _update_state(cluster, host, part):
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
        with open(_state_path(cluster) + ".tmp", "w") as f:
            json.dump(state, f, indent=1, sort_keys=True)
        os.rename(_state_path(cluster) + ".tmp", _state_path(cluster))
    return stale


def up_switch(part, host, timeout=90.0, reload=()):
    """Make the machine hold one switch's part of the twin (reconcile_switch): VRF namespaces it no longer has are
    removed, the rest is applied as ``up`` applies a whole twin, FRR of the namespaces in ``reload`` reloaded even
    when their configuration did not change; with a ``timeout``, waits until the switch's BGP sessions (to the fabric
    and to its VRFs) are Established."""
    started = time.monotonic()
    problem = preflight()
    if problem:
        raise TwinError(problem)
    stale = _update_state(part.cluster, host, part)
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


def apply_port_acls(twin):
    """Each switch's port ACLs as nftables (twin/nftables.py). Without nft installed, a twin that
    needs no ACL still comes up; one that does fails, naming the package."""
    wanted = {ns.name: ns.acl_nft for ns in twin.namespaces.values() if ns.acl_nft is not None}
    if not shutil.which("nft"):
        needy = sorted(ns for ns, text in wanted.items() if nftables.digest_of(text))
        if needy:
            raise TwinError("%s: port ACLs need nft (apt-get install nftables)" % needy[0])
        return []
    return nftables.apply(wanted)


def verify(plan, networks=("backend", "frontend"), include=None):
    """The running twin against the plan: the validation runner (validate/) over the netns transport,
    the same checks a real fabric gets (``include``: only those). Sources a twin lacks (a NOS's own
    configuration database, optics) SKIP."""
    cluster = plan.summary["cluster"]
    transport = NetnsTransport(lldp_socket=lambda host: twin_lldp_socket(cluster, host))
    return validate(plan, command_collector(lambda host: transport), networks=networks, include=include)


def _raise_neigh_limits(twin):
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


def _restore_neigh_limits():
    """Restore the thresholds when no twin is left on the machine."""
    others = [n for n in os.listdir(STATE_ROOT) if n != os.path.basename(NEIGH_SAVED)] \
        if os.path.isdir(STATE_ROOT) else []
    if others or not os.path.exists(NEIGH_SAVED):
        return []
    with open(NEIGH_SAVED) as f:
        changes = kernel.restore_neigh_limits(json.load(f))
    os.remove(NEIGH_SAVED)
    return changes


def bgp_summaries(names):
    """{ns: `show bgp vrf default summary json` of that namespace's bgpd}."""
    names = sorted(names)
    results = run_many([(["vtysh", "-N", ns, "-c", "show bgp vrf default ipv4 unicast summary json"], None)
                        for ns in names], check=False)
    out = {}
    for ns, proc in zip(names, results):
        try:
            out[ns] = json.loads(proc.stdout) if proc.returncode == 0 else {}
        except ValueError:
            out[ns] = {}
    return out


def bgp_state(twin):
    """([(ns, peer, state)] of configured BGP peers not Established, total prefixes received)."""
    bgp = [ns.name for ns in twin.namespaces.values() if "bgpd" in ns.frr_daemons]
    missing, received = [], 0
    for ns, summary in bgp_summaries(bgp).items():
        peers = summary.get("peers")
        if not peers:
            missing.append((ns, "*", "no BGP summary"))
            continue
        missing += [(ns, peer, p.get("state")) for peer, p in sorted(peers.items()) if p.get("state") != "Established"]
        received += sum(p.get("pfxRcd", 0) for p in peers.values())
    return missing, received


def wait_converged(twin, timeout):
    """Seconds until every BGP session of the twin is Established and the prefixes received stopped
    changing between two polls (raises TwinError after ``timeout``)."""
    started = time.monotonic()
    last = None
    while True:
        missing, received = bgp_state(twin)
        if not missing and received == last:
            return round(time.monotonic() - started, 2)
        last = None if missing else received
        if time.monotonic() - started > timeout:
            raise TwinError("not converged after %.0f s: %d BGP sessions down, e.g. %s"
                            % (timeout, len(missing), ", ".join("%s->%s %s" % m for m in missing[:5])))
        time.sleep(1.0)


def down(cluster, extra_namespaces=()):
    """Remove the twin of ``cluster``: processes, namespaces (and with them every cable), FRR
    pathspaces and the state directory. Returns {"changed", "changes", "seconds"}."""
    started = time.monotonic()
    state = read_state(cluster) or {}
    names = set(state.get("namespaces", ())) | set(extra_namespaces)
    changes = []
    for plane in _planes():
        changes += plane.remove(state_dir(cluster), sorted(names | set(state.get("devices", ()))))
    changes += network.delete_namespaces(names)
    for ns in sorted(names):
        for path in (daemons.frr_dir(ns), daemons.frr_run_dir(ns)):
            if os.path.exists(path):
                shutil.rmtree(path, ignore_errors=True)
                changes.append("removed %s" % path)
    if os.path.exists(state_dir(cluster)):
        shutil.rmtree(state_dir(cluster), ignore_errors=True)
        changes.append("removed %s" % state_dir(cluster))
    changes += _restore_neigh_limits()
    if state.get("lldpd_chroot_created") and os.path.isdir(LLDPD_CHROOT) and not _lldpd_running():
        shutil.rmtree(LLDPD_CHROOT, ignore_errors=True)
    if os.path.isdir(STATE_ROOT) and not os.listdir(STATE_ROOT):
        os.rmdir(STATE_ROOT)
    return {"changed": bool(changes), "changes": changes, "seconds": round(time.monotonic() - started, 2)}


def _lldpd_running():
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/comm" % pid) as f:
                    if f.read().strip() == "lldpd":
                        return True
            except OSError:
                pass
    return False


def leftovers(cluster, names):
    """What of a removed twin is still on the machine (empty when teardown was complete)."""
    found = sorted("namespace " + n for n in set(names) & network.existing_namespaces())
    for ns in names:
        for path in (daemons.frr_dir(ns), daemons.frr_run_dir(ns)):
            if os.path.exists(path):
                found.append(path)
    if os.path.exists(state_dir(cluster)):
        found.append(state_dir(cluster))
    for plane in _planes():
        found += plane.leftovers(names)
    if os.path.exists(NEIGH_SAVED) and not [n for n in os.listdir(STATE_ROOT) if n != os.path.basename(NEIGH_SAVED)]:
        found.append("raised neighbour-table thresholds (%s)" % NEIGH_SAVED)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(("-N %s " % ns) in cmd + " " or state_dir(cluster) in cmd for ns in names):
            found.append("process %s: %s" % (pid, cmd.strip()))
    return found
