"""The twin of a whole cluster brought up, checked and taken down: ``up``, ``verify``, ``down``, ``leftovers`` (and
what they share with one switch's change, twin/switch.py: the preflight, namespaces removed, port ACLs, BGP waits)."""
import json
import os
import shutil
import time

from ..nos_registry import names as nos_names
from .emulators import plane as emulator_plane
from ..validate.runner import command_collector, validate
from . import daemons, network, nftables
from .model import TwinError
from .run import run_many
from .state import (LLDPD_CHROOT, NEIGH_SAVED, STATE_ROOT, raise_neigh_limits, read_state, restore_neigh_limits,
                    state_dir, twin_lldp_socket, write_state)
from .transport import NetnsTransport
from .vrf import is_vrf_namespace_of


def _self_applied_vrf_namespaces(twin, names):
    """Those of ``names`` that are tenant VRF namespaces of a switch applying its own configuration (ns.nos_plane)."""
    hosts = [ns.name for ns in twin.namespaces.values() if ns.nos_plane]
    return sorted(n for n in names if n not in twin.namespaces and any(is_vrf_namespace_of(n, h) for h in hosts))


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
    without routing config, for a deployment (playbooks/deploy.yml) to install the rendered one; "factory" does the
    same for a twin whose switches boot from their NOS's factory state (build_twin(..., boot="factory"))."""
    if frr_config == "factory":
        frr_config = "blank"
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
    write_state(twin, previous, kept)
    changes += raise_neigh_limits(twin)
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
    (ns.mgmt_plane; its NOS emulator's plane, docs/twin.md), each NOS's plane started for its switches."""
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
        plane = emulator_plane(nos_name)
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
        plane = emulator_plane(nos_name)
        try:
            changes += plane.apply(state_dir(twin.cluster), switches)
        except plane.PlaneError as exc:
            raise TwinError(str(exc))
    return changes


def _planes():
    """The twin planes of every NOS (each knows what of it runs)."""
    return [emulator_plane(n) for n in nos_names()]


def remove_namespaces(names):
    """Stop everything in the namespaces, delete them and their FRR pathspaces."""
    changes = network.delete_namespaces(names)
    for ns in sorted(names):
        for path in (daemons.frr_dir(ns), daemons.frr_run_dir(ns)):
            if os.path.exists(path):
                shutil.rmtree(path, ignore_errors=True)
    return changes


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
    changes += restore_neigh_limits()
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
