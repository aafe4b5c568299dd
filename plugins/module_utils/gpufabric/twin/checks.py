"""Checks of a running twin against the plan: each result names the exact object that failed.

A result is {"check", "object", "result": "success" | "failure", "message"}. The expectations come from
the plan (links, ASNs, the planned ECMP width, rails), never from a second hand-written list.
"""
import json
import os
import sys

from ..ipam import cidr, fmt
from ..tenants import attached
from ..tenants.reach import Reach, rail_nics
from . import bgp_summaries, state_dir
from .daemons import lldpd_paths
from .run import run_many

PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe.py")


def _result(check, obj, ok, message=""):
    return {"check": check, "object": obj, "result": "success" if ok else "failure", "message": message}


def planned_sessions(plan):
    """{(switch, neighbor address): (peer switch, peer ASN)} for every routed switch-to-switch cable."""
    sessions = {}
    for link in plan.links:
        if link.ipv4 is None or link.network not in ("backend", "frontend") or link.tier == "server":
            continue
        sessions[(link.a.name, fmt(link.ipv4 + 1))] = (link.b.name, link.b.asn)
        sessions[(link.b.name, fmt(link.ipv4))] = (link.a.name, link.a.asn)
    return sessions


def check_bgp(plan):
    sessions = planned_sessions(plan)
    summaries = bgp_summaries({host for host, _peer in sessions})
    out = []
    for (host, peer), (peer_host, asn) in sorted(sessions.items()):
        found = summaries.get(host, {}).get("peers", {}).get(peer)
        obj = "%s -> %s (%s AS%s)" % (host, peer, peer_host, asn)
        if not found:
            out.append(_result("bgp_session", obj, False, "not configured in the running bgpd"))
        elif found.get("state") != "Established" or found.get("remoteAs") != asn:
            out.append(_result("bgp_session", obj, False, "state %s, remote AS %s" % (found.get("state"), found.get("remoteAs"))))
        else:
            out.append(_result("bgp_session", obj, True))
    for host, summary in sorted(summaries.items()):
        extra = set(summary.get("peers", {})) - {p for h, p in sessions if h == host}
        for peer in sorted(extra):
            out.append(_result("bgp_session", "%s -> %s" % (host, peer), False, "configured but not in the plan"))
    return out


def check_ecmp(plan):
    """From every backend leaf, the kernel route to every other backend leaf's server summary has as many
    next hops as the plan's ECMP width (leaves of one rail plane only reach their own plane)."""
    width = plan.summary["backend"].get("ecmp_width")
    leaves = [d for d in plan.by_role("backend_leaf") if d.server_block]
    names = [d.name for d in leaves]
    results = run_many([(["ip", "-n", n, "-j", "route", "show"], None) for n in names], check=False)
    out = []
    for leaf, proc in zip(leaves, results):
        routes = {r.get("dst"): r for r in json.loads(proc.stdout or "[]")}
        for other in leaves:
            if other is leaf or (leaf.plane != other.plane):
                continue
            prefix = cidr(*other.server_block)
            route = routes.get(prefix)
            hops = 0
            if route:
                hops = len(route.get("nexthops", [])) or (1 if route.get("gateway") else 0)
            out.append(_result("ecmp_width", "%s -> %s %s" % (leaf.name, other.name, prefix), hops == width,
                               "" if hops == width else "%d next hops, planned %s" % (hops, width)))
    return out


def _rail_addresses(plan):
    """{server: [(rail, address)]} of the servers' rail NICs."""
    out = {}
    for link in plan.links:
        if link.network == "backend" and link.tier == "server":
            server = link.b if link.b.role == "gpu_server" else link.a
            leaf = link.a if server is link.b else link.b
            addr = fmt(link.ipv4 + (1 if server is link.b else 0))
            out.setdefault(server.name, []).append((leaf.rail, addr))
    return out


def check_reachability(plan, timeout=3.0):
    """Every server reaches every other server on every rail, from NIC i to the rail-i NICs; in a
    rail_planes cluster a NIC reaches nothing on another rail. With tenants, a pair the leaves' ACLs
    keep apart must not reach (tenants/reach.py)."""
    rails = _rail_addresses(plan)
    isolated = plan.spec["backend"].get("design") == "rail_planes"
    reach = Reach(plan, attached(plan))
    by_address = {(n.server, n.address): n for found in rail_nics(plan).values() for n in found}
    jobs, expect = [], []
    for server, nics in sorted(rails.items()):
        args, pairs = [], []
        for rail, src in nics:
            dsts = []
            for other, other_nics in sorted(rails.items()):
                if other == server:
                    continue
                for other_rail, dst in other_nics:
                    if other_rail == rail or isolated:
                        dsts.append(dst)
                        label = "%s rail %s %s -> %s rail %s %s" % (server, rail, src, other, other_rail, dst)
                        same_rail = other_rail == rail
                        wanted = same_rail and reach.both_ways(by_address[(server, src)], by_address[(other, dst)])
                        pairs.append((src, dst, wanted, label, same_rail))
            args.append("%s=%s" % (src, ",".join(dsts)))
        jobs.append((["ip", "netns", "exec", server, sys.executable, PROBE, str(timeout)] + args, None))
        expect.append(pairs)
    out = []
    for proc, pairs in zip(run_many(jobs, check=False), expect):
        got = json.loads(proc.stdout) if proc.returncode == 0 and proc.stdout.strip() else {}
        for src, dst, wanted, obj, same_rail in pairs:
            reached = got.get("%s>%s" % (src, dst))
            ok = reached is wanted
            if ok:
                message = ""
            elif reached is None:
                message = "probe failed: %s" % proc.stderr.strip()[-200:]
            else:
                message = "unreachable" if wanted else "reachable across rail planes or tenants"
            kind = "reachability" if wanted else "tenant_isolation" if same_rail else "rail_isolation"
            out.append(_result(kind, obj, ok, message))
    return out


def check_lldp(plan, cluster):
    """Every cabled backend and frontend port sees, over LLDP, the planned neighbour host and port."""
    expected = {}
    for link in plan.links:
        if link.network in ("backend", "frontend"):
            expected.setdefault(link.a.name, {})[link.a_port] = (link.b.name, link.b_port)
            expected.setdefault(link.b.name, {})[link.b_port] = (link.a.name, link.a_port)
    hosts = sorted(expected)
    results = run_many([(["lldpcli", "-u", lldpd_paths(state_dir(cluster), h)["socket"], "-f", "json",
                          "show", "neighbors"], None) for h in hosts], check=False)
    out = []
    for host, proc in zip(hosts, results):
        seen = _lldp_neighbors(proc.stdout) if proc.returncode == 0 else {}
        for port, (peer, peer_port) in sorted(expected[host].items()):
            got = seen.get(port)
            ok = got == (peer, peer_port)
            out.append(_result("lldp_neighbor", "%s %s" % (host, port), ok,
                               "" if ok else "expected %s %s, saw %s" % (peer, peer_port, got or "nothing")))
    return out


def _lldp_neighbors(text):
    """{local port: (chassis name, port id)} from `lldpcli -f json show neighbors` (one or many)."""
    try:
        interfaces = json.loads(text).get("lldp", {}).get("interface", {})
    except ValueError:
        return {}
    if isinstance(interfaces, dict):
        interfaces = [{k: v} for k, v in interfaces.items()]
    out = {}
    for entry in interfaces:
        for port, data in entry.items():
            chassis = data.get("chassis", {})
            name = next(iter(chassis), None) if "name" not in chassis else chassis["name"].get("value")
            out[port] = (name, data.get("port", {}).get("id", {}).get("value"))
    return out


def verify(plan, cluster):
    """All checks; a list of results."""
    return check_bgp(plan) + check_ecmp(plan) + check_reachability(plan) + check_lldp(plan, cluster)


def failures(results):
    return [r for r in results if r["result"] != "success"]
