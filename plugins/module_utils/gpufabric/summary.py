"""The plan in numbers: what plan.yml prints and what an architect checks first."""
from .spec import ROLES


def summarize(p):
    """``p`` is the Planner after build: counts by role and rail, links per tier, oversubscription, capacity."""
    plan = p.plan
    roles = {role: 0 for role in ("gpu_server",) + ROLES}
    by_rail = {}
    for dev in plan.devices:
        roles[dev.role] += 1
        if dev.rail is not None and dev.role.startswith("backend"):
            by_rail[dev.rail] = by_rail.get(dev.rail, 0) + 1
    links = {}
    for link in plan.links:
        key = "%s %s" % (link.network, link.tier)
        links[key] = links.get(key, 0) + 1
    be = p.be
    backend = {
        "design": p.design,
        "tiers": be.tiers,
        "scalable_units": p.n_su,
        "servers_per_scalable_unit": p.d,
        "pods": p.be_pods if be.tiers == 3 else None,
        "planes": be.planes,
        "oversubscription": be.oversubscription(),
        "leaf_uplinks": be.u,
        "spines_per_group": be.S or None,
        "links_leaf_to_each_spine": be.m1 or None,
        "superspines_per_plane": be.SS or None,
        "ecmp_width": be.u or None,
        "max_servers": p.servers_max,
        "max_gpus": p.servers_max * p.R,
        "limit": _limit(p),
    }
    out = {
        "cluster": p.cluster,
        "gpus": p.N * p.R,
        "servers": p.N,
        "rails": p.R,
        "switches": sum(n for role, n in roles.items() if role != "gpu_server"),
        "devices_by_role": roles,
        "backend_switches_by_rail": {"rail_%d" % r: by_rail[r] for r in sorted(by_rail)},
        "links": dict(sorted(links.items())),
        "backend": backend,
        "racks": len(plan.racks),
    }
    if p.fe:
        out["frontend"] = {
            "dual_homing": p.spec["frontend"]["dual_homing"],
            "tiers": p.fe.tiers,
            "leaf_pairs": p.n_pairs,
            "servers_per_pair": p.spp,
            "oversubscription": p.fe.oversubscription(),
            "max_servers": p.fe.max_leaves // 2 * p.spp,
        }
    return out


def _limit(p):
    be = p.be
    if be.tiers == 1:
        return "one %s per rail with %d server ports" % (be.leaf_model.name, p.d)
    if be.tiers == 2:
        return "%d leaves per plane: a %s spine has %d downlinks at %d link(s) per leaf" % (
            be.max_leaves, be.spine_model.name, len(be.spine_down), be.m1)
    return "%d pods per plane: a %s superspine has %d downlinks at %d link(s) per spine" % (
        be.max_pods, be.super_model.name, len(be.super_down), be.m2)


def render_text(summary):
    """Human-readable summary for plan.yml and the CLI."""
    b = summary["backend"]
    lines = [
        "cluster %s: %d GPUs on %d servers, %d rails, %d switches, %d racks" % (
            summary["cluster"], summary["gpus"], summary["servers"], summary["rails"], summary["switches"],
            summary["racks"]),
        "backend: %s, %d tier(s), %d scalable unit(s) of %d servers%s" % (
            b["design"], b["tiers"], b["scalable_units"], b["servers_per_scalable_unit"],
            ", %d pod(s)" % b["pods"] if b["pods"] else ""),
        "switches by role: " + ", ".join("%s %d" % (r, n) for r, n in summary["devices_by_role"].items() if n),
        "backend switches by rail: " + (", ".join("%s %d" % kv for kv in summary["backend_switches_by_rail"].items())
                                        or "-"),
        "links: " + ", ".join("%s %d" % kv for kv in summary["links"].items()),
        "oversubscription: " + (", ".join("%s %s" % kv for kv in b["oversubscription"].items()) or "none (rail_only)"),
        "largest cluster on this hardware: %d servers, %d GPUs (limit: %s)" % (
            b["max_servers"], b["max_gpus"], b["limit"]),
    ]
    if "frontend" in summary:
        f = summary["frontend"]
        lines.append("frontend: %s, %d tier(s), %d leaf pair(s) of %d servers, oversubscription %s" % (
            f["dual_homing"], f["tiers"], f["leaf_pairs"], f["servers_per_pair"],
            ", ".join("%s %s" % kv for kv in f["oversubscription"].items()) or "-"))
    return "\n".join(lines)
