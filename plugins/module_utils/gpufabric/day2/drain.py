"""Drain state: which switches are drained and what a drain costs (the lines that shift traffic on a running switch
are its NOS's: its home's ``drain``, frr_linux/drain.py for a switch running FRR).

A drained switch keeps every BGP session and every route; it announces everything with its own ASN
prepended DRAIN_PREPEND more times and with the GRACEFUL_SHUTDOWN community (RFC 8326). Neighbours
run eBGP multipath with `bestpath as-path multipath-relax`, which relaxes "same neighbour AS" but not
"same AS-path length": the longer paths drop out of the ECMP set at once and stay as backups. A path
that has no alternative (a leaf's own server block, the last spine of a pair of leaves) keeps
carrying traffic, where a withdrawal (a NOS's traffic-shift-away command) would black-hole it. The community is the RFC 8326
signal for receivers whose policy honours it; no receiver needs it for the shift to happen.
"""
from ..errors import SpecError

DRAIN_ROUTE_MAP = "GPUFABRIC_DRAIN"
# Longer than any two paths of a 3-tier Clos differ (leaf-spine-superspine-spine-leaf vs leaf-spine-leaf).
DRAIN_PREPEND = 3
GSHUT = "graceful-shutdown"
FABRIC_TIERS = ("leaf-spine", "spine-superspine", "superspine-core")
LEAF_ROLES = ("backend_leaf", "frontend_leaf")


def _routed_switches(plan):
    return {d.name: d for d in plan.devices if d.role != "gpu_server" and d.asn is not None}


def drained_switches(plan):
    """The switches the spec drains (maintenance.drained), checked against the plan."""
    names = list(plan.spec.get("maintenance", {}).get("drained") or [])
    routed = _routed_switches(plan)
    for name in names:
        if name not in routed:
            kind = "is not a BGP switch" if any(d.name == name for d in plan.devices) else "is not in this cluster"
            example = next((n for n in routed if "spine" in n), next(iter(routed), "?"))
            raise SpecError("maintenance.drained", "%r %s: list routed switches such as %r" % (name, kind, example))
    return frozenset(names)


def with_drain(raw_spec, drain=(), undrain=()):
    """A copy of the raw spec whose maintenance.drained adds ``drain`` and drops ``undrain``
    (the transient drain of playbooks/drain.yml, on top of what the spec itself keeps drained)."""
    spec = dict(raw_spec)
    maintenance = dict(spec.get("maintenance") or {})
    current = [n for n in maintenance.get("drained") or [] if n not in set(undrain)]
    maintenance["drained"] = current + [n for n in drain if n not in current]
    spec["maintenance"] = maintenance
    return spec


def drain_config(asn):
    """The structured `bgp.drain` block of a drained switch (each NOS's renderer writes it)."""
    return {"route_map": DRAIN_ROUTE_MAP, "prepend": [asn] * DRAIN_PREPEND, "community": GSHUT}


def _uplinks(plan, routed):
    up = {}
    for link in plan.links:
        if link.tier in FABRIC_TIERS and link.a.name in routed and link.b.name in routed:
            up.setdefault(link.b.name, set()).add(link.a.name)   # b is the lower end of an uplink
    return up


def _reach(start, up, down, drained):
    """Leaves reachable from leaf ``start`` going up then down through switches not drained."""
    seen, frontier = set(), [start]
    tops = set()
    while frontier:                       # up: every non-drained switch above
        node = frontier.pop()
        for above in up.get(node, ()):
            if above not in drained and above not in tops:
                tops.add(above)
                frontier.append(above)
    for top in tops:                      # down from each to the leaves
        stack = [top]
        while stack:
            node = stack.pop()
            for below in down.get(node, ()):
                if below in drained or below in seen:
                    continue
                seen.add(below)
                stack.append(below)
    return seen


def drain_impact(plan, names):
    """What draining ``names`` (on top of the spec's drained switches) costs:
    {"servers_losing_rail": [(server, network, leaf)], "cut_pairs": [(leaf, leaf)]}.
    A cut pair is two leaves of one plane that would keep no path through switches not drained:
    draining it would drain the last path of every server pair behind them."""
    routed = _routed_switches(plan)
    drained = drained_switches(plan) | frozenset(names)
    up = _uplinks(plan, routed)
    down = {}
    for low, highs in up.items():
        for high in highs:
            down.setdefault(high, set()).add(low)
    leaves = sorted(n for n, d in routed.items() if d.role in LEAF_ROLES)
    cut = []
    for leaf in leaves:
        if leaf in drained:
            continue
        full, left = _reach(leaf, up, down, frozenset()), _reach(leaf, up, down, drained)
        for other in sorted(full - left - drained):
            if other in routed and routed[other].role in LEAF_ROLES and leaf < other:
                cut.append((leaf, other))
    losing = []
    for link in plan.links:
        if link.tier != "server":
            continue
        server, leaf = (link.b, link.a) if link.b.role == "gpu_server" else (link.a, link.b)
        if leaf.name in names and leaf.role in LEAF_ROLES:
            losing.append((server.name, link.network, leaf.name))
    return {"servers_losing_rail": sorted(set(losing)), "cut_pairs": cut}


def neighbours(plan, name):
    """Switches with a routed cable to ``name``: the ones whose routes show a drain."""
    routed = _routed_switches(plan)
    out = set()
    for link in plan.links:
        if link.tier in FABRIC_TIERS and name in (link.a.name, link.b.name):
            other = link.b if link.a.name == name else link.a
            if other.name in routed:
                out.add(other.name)
    return sorted(out)


def check_drain(plan, names, confirm_leaf=False):
    """Refusal (one line) or None, and warnings, for draining ``names`` now."""
    routed = _routed_switches(plan)
    unknown = [n for n in names if n not in routed]
    if unknown:
        return "switch %s is not a routed switch of %s" % (", ".join(unknown), plan.summary["cluster"]), []
    impact = drain_impact(plan, names)
    if impact["cut_pairs"]:
        a, b = impact["cut_pairs"][0]
        return ("draining %s would drain the last path between %s and %s (%d leaf pairs cut): undrain another "
                "switch first" % (", ".join(names), a, b, len(impact["cut_pairs"]))), []
    single_points, warnings = _leaf_costs(impact, routed)
    if single_points and not confirm_leaf:
        return ("%s; set confirm_leaf_drain=true to drain it anyway" % single_points[0]), single_points + warnings
    return None, single_points + warnings


def needs_confirmation(plan, names):
    """True when draining ``names`` takes a rail from servers (a backend leaf is their only leaf on it),
    which check_drain refuses unless confirmed."""
    return bool(_leaf_costs(drain_impact(plan, names), _routed_switches(plan))[0])


def _leaf_costs(impact, routed):
    """([one line per backend leaf whose servers lose a rail], [one line per frontend leaf])."""
    warnings = []
    by_leaf = {}
    for server, network, leaf in impact["servers_losing_rail"]:
        by_leaf.setdefault((leaf, network), []).append(server)
    single_points = []
    for (leaf, network), servers in sorted(by_leaf.items()):
        listed = ", ".join(servers[:4]) + (" ..." if len(servers) > 4 else "")
        if network == "backend":
            # A rail NIC has exactly one leaf: whatever is done to the leaf, its servers lose that rail.
            single_points.append("%s is the only rail %s leaf of %d servers (%s): they lose rail %s while it is "
                                 "down" % (leaf, routed[leaf].rail, len(servers), listed, routed[leaf].rail))
        else:
            warnings.append("%s: its %d servers (%s) keep their other frontend leaf; the drain moves only the "
                            "spine-side traffic, their bonds still hash onto it" % (leaf, len(servers), listed))
    return single_points, warnings
