"""From the running assignment to a new one: which servers move, which leaf ports change tenant,
which switches change, and in which order.

A move is made in two phases so that a server is never, even for a moment, reachable from two
tenants: `revoke` first applies an assignment where every moving server sits in the free pool (its
old tenant loses it everywhere), then `grant` applies the new assignment (its new tenant gains it).
Each phase touches only the leaves whose isolation config differs from the phase before. With no
running assignment (the fabric is not isolated yet), one `isolate` phase applies the new one: it only
ever takes reachability away, so no order is needed.
"""
from ..structured.isolation import tenant_isolation
from ..tenant_assignment import FREE_POOL, Assignment, attach


def isolation_by_leaf(plan, assignment):
    """{leaf: its tenant_isolation section} under ``assignment`` (None: no isolation)."""
    previous = getattr(plan, "tenant_assignment", None)
    attach(plan, assignment)
    try:
        return {dev.name: tenant_isolation(dev, plan) for dev in plan.by_role("backend_leaf")}
    finally:
        attach(plan, previous)


def moves(plan, old, new):
    """[(server, old tenant or None, new tenant)] of every server whose tenant differs."""
    out = []
    for dev in plan.by_role("gpu_server"):
        before = old.tenant_of(dev.name) if old else None
        after = new.tenant_of(dev.name)
        if before != after:
            out.append((dev.name, before, after))
    return out


def interim(old, new, servers):
    """``new`` with every server whose tenant changes held in the free pool."""
    tenants = {}
    for name, members in new.tenants.items():
        kept = [s for s in members if old.tenant_of(s) == name]
        if kept:
            tenants[name] = kept
    return Assignment(tenants, servers, new.isolation, new.ids)


def _port_tenants(section):
    """{port: tenant} of a leaf's isolation: ports bound to a tenant's ACL (ACL mode, the free pool)
    or VRF (VRF mode)."""
    section = section or {}
    out = {port: acl["tenant"] for acl in section.get("acls", ()) for port in acl["ports"]}
    out.update((port, vrf["tenant"]) for vrf in section.get("vrfs", ()) for port in vrf["ports"])
    return out


def _leaf_changes(before, after):
    """What differs on one leaf: ports changing tenant, and ACLs whose rules change."""
    ports_before, ports_after = _port_tenants(before), _port_tenants(after)
    ports = ["%s %s -> %s" % (p, ports_before.get(p, "open"), ports_after.get(p, "open"))
             for p in sorted(set(ports_before) | set(ports_after), key=_natural)
             if ports_before.get(p) != ports_after.get(p)]
    rules_before = {a["name"]: a["rules"] for a in (before or {}).get("acls", ())}
    rules_after = {a["name"]: a["rules"] for a in (after or {}).get("acls", ())}
    acls = sorted(n for n in set(rules_before) | set(rules_after) if rules_before.get(n) != rules_after.get(n))
    vrfs_before = {v["name"] for v in (before or {}).get("vrfs", ())}
    vrfs_after = {v["name"] for v in (after or {}).get("vrfs", ())}
    vrfs = ["%s added" % n for n in sorted(vrfs_after - vrfs_before)]
    vrfs += ["%s removed" % n for n in sorted(vrfs_before - vrfs_after)]
    return ports, acls, vrfs


def _natural(port):
    digits = "".join(c for c in port if c.isdigit())
    return (port.rstrip("0123456789"), int(digits) if digits else 0)


def plan_change(plan, old, new, drifted=()):
    """{"moves": [{"server", "from", "to"}], "phases": [{"name", "assignment", "hosts", "leaves"}], "lines"}.

    ``leaves`` maps each changed leaf to {"ports": ["Ethernet0 alpha -> free"], "acls": [ACL names whose
    rules change], "vrfs": ["Vrf-alpha removed"]}; ``hosts`` lists them in plan order. Phases that change
    nothing are left out. ``drifted`` leaves (whose running isolation is not ``old``'s, tenants/live.py) are
    re-applied in the first phase even where ``old`` and that phase agree."""
    servers = [d.name for d in plan.by_role("gpu_server")]
    moved = moves(plan, old, new)
    stages = [("isolate", new)] if old is None else [("revoke", interim(old, new, servers)), ("grant", new)]
    current = isolation_by_leaf(plan, old)
    phases = []
    redo = set(drifted)
    for name, assignment in stages:
        target = isolation_by_leaf(plan, assignment)
        leaves = {}
        for leaf in target:
            if target[leaf] != current[leaf] or leaf in redo:
                ports, acls, vrfs = _leaf_changes(current[leaf], target[leaf])
                if leaf in redo and not (ports or acls or vrfs):
                    ports = ["re-applied: the leaf does not hold the running assignment"]
                leaves[leaf] = {"ports": ports, "acls": acls, "vrfs": vrfs}
        redo = set()
        if leaves:
            phases.append({"name": name, "assignment": assignment, "hosts": list(leaves), "leaves": leaves})
        current = target
    return {"moves": [{"server": s, "from": a if a is not None else "open", "to": b} for s, a, b in moved],
            "phases": phases, "lines": describe(moved, phases)}


def describe(moved, phases):
    """The change as lines a person reads before saying yes."""
    if not phases:
        return ["no change: the running tenant assignment is the new one"]
    lines = []
    for server, before, after in moved:
        lines.append("server %s: %s -> %s" % (server, before if before is not None else "open fabric",
                                              "free pool" if after == FREE_POOL else "tenant " + after))
    for n, phase in enumerate(phases, 1):
        hosts = phase["hosts"]
        lines.append("phase %d (%s): %d switch(es): %s" % (n, phase["name"], len(hosts), ", ".join(hosts)))
        for leaf in phase["hosts"]:
            change = phase["leaves"][leaf]
            parts = []
            if change["ports"]:
                parts.append("ports " + ", ".join(change["ports"]))
            if change["acls"]:
                parts.append("rules of " + ", ".join(change["acls"]))
            if change["vrfs"]:
                parts.append("VRFs " + ", ".join(change["vrfs"]))
            lines.append("  %s: %s" % (leaf, "; ".join(parts)))
    return lines
