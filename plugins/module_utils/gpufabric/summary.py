"""The plan in numbers: what plan.yml prints and what an architect checks first."""
from .roles import ALL_ROLES


def summarize(plan, rack_power=None):
    """Counts by role and rail, links per tier, oversubscription, capacity; ``rack_power`` the racks' use
    (plan/racks.py, computed by the plan when the spec declares racks)."""
    sizing = plan.sizing
    roles = dict.fromkeys(ALL_ROLES, 0)
    by_rail = {}
    for dev in plan.devices:
        roles[dev.role] += 1
        if dev.rail is not None and dev.role.startswith("backend"):
            by_rail[dev.rail] = by_rail.get(dev.rail, 0) + 1
    links = {}
    for link in plan.links:
        key = "%s %s" % (link.network, link.tier)
        links[key] = links.get(key, 0) + 1
    be = sizing.backend
    backend = {
        "design": sizing.design,
        "tiers": be.tiers,
        "scalable_units": sizing.scalable_units,
        "servers_per_scalable_unit": sizing.servers_per_unit,
        "pods": sizing.backend_pods if be.tiers >= 3 else None,
        "planes": be.planes,
        "oversubscription": be.oversubscription(),
        "leaf_uplinks": be.uplinks,
        "spines_per_group": be.spines_per_group or None,
        "links_leaf_to_each_spine": be.links_to_each_spine or None,
        "superspines_per_plane": be.superspines_per_plane or None,
        "ecmp_width": be.uplinks or None,
        "max_servers": sizing.max_servers,
        "max_gpus": sizing.max_servers * sizing.rails,
        "limit": _limit(sizing),
        "spine_sizing": spine_sizing(be, sizing.scalable_units * be.group, sizing.max_servers, "backend"),
    }
    if be.tiers == 4:
        backend.update(zones=sizing.backend_zones, pods_per_zone=be.pods_per_zone,
                       core_switches_per_plane=be.cores_per_plane)
    broken = breakouts(be)
    if broken:   # only then, so a fabric without breakouts summarizes as before
        backend["breakouts"] = broken
    out = {
        "cluster": plan.spec["cluster"]["name"],
        "gpus": sizing.servers * sizing.rails,
        "servers": sizing.servers,
        "rails": sizing.rails,
        "switches": sum(n for role, n in roles.items() if role not in ("gpu_server", "backend_host")),
        "devices_by_role": roles,
        "backend_switches_by_rail": {"rail_%d" % r: by_rail[r] for r in sorted(by_rail)},
        "links": dict(sorted(links.items())),
        "backend": backend,
        "racks": len(plan.racks),
    }
    if rack_power is not None:   # only with racks in the spec, so a spec without it summarizes as before
        out["rack_power"] = rack_power
    spares = sum(1 for d in plan.servers if d.spare)
    if spares:   # only then, so a spec without spares summarizes as before
        out["hot_spares"] = {"servers": spares, "per_scalable_unit": plan.spec["servers"]["spares_per_unit"],
                             "replacing": dict(sorted(plan.replaced.items()))}
    if plan.hosts:
        out["backend_hosts"] = {g.name: {"kind": g.kind, "count": g.count, "model": g.model.name,
                                         "nics": g.nics} for g in sizing.hosts}
    fe = sizing.frontend
    if fe:
        out["frontend"] = {
            "dual_homing": plan.spec["frontend"]["dual_homing"],
            "tiers": fe.tiers,
            "leaf_pairs": sizing.leaf_pairs,
            "servers_per_pair": sizing.servers_per_pair,
            "oversubscription": fe.oversubscription(),
            "max_servers": fe.max_leaves // 2 * sizing.servers_per_pair,
            "spine_sizing": spine_sizing(fe, 2 * sizing.leaf_pairs, fe.max_leaves // 2 * sizing.servers_per_pair,
                                         "frontend"),
        }
    return out


def breakouts(clos):
    """{tier: "32 ports 2x400G(8)"} for each tier of ``clos`` whose switches break ports out."""
    out = {}
    for tier, model in (("leaf", clos.leaf_model), ("spine", clos.spine_model), ("superspine", clos.super_model),
                        ("core", clos.core_model)):
        modes = getattr(model, "modes", None) or {}
        counts = {}
        for mode in modes.values():
            counts[mode] = counts.get(mode, 0) + 1
        if counts:
            out[tier] = ", ".join("%d ports %s" % (n, mode) for mode, n in sorted(counts.items()))
    return out


def spine_sizing(clos, leaves_per_plane, max_servers, network):
    """One sentence: what the spine layer was sized for, and what the other choice would cost."""
    if clos.tiers != 2:
        return None
    spines = clos.spines_per_group
    if clos.spines_chosen:
        return "%d spines per plane, set by %s.spine.count" % (spines, network)
    if clos.size_for == "cluster":
        return ("%d spines per plane, sized for this cluster (%s.spine.size_for: cluster): they hold %d servers; "
                "growing past that adds spines and recables every leaf uplink" % (spines, network, max_servers))
    fewest = clos.fewest_spines_for(leaves_per_plane)
    if fewest == spines:
        return "%d spines per plane, sized for the hardware maximum (%d servers): growth never recables a leaf" % (
            spines, max_servers)
    return ("%d spines per plane, sized for the hardware maximum (%d servers) so growth never recables a leaf; "
            "this cluster needs only %d (%s.spine.size_for: cluster), which recables every leaf uplink once it "
            "grows past what they hold" % (spines, max_servers, fewest, network))


def _limit(sizing):
    be = sizing.backend
    if be.tiers == 1:
        return "one %s per rail with %d server ports" % (be.leaf_model.name, sizing.servers_per_unit)
    if be.tiers == 2:
        return "%d leaves per plane: a %s spine has %d downlinks at %d link(s) per leaf" % (
            be.max_leaves, be.spine_model.name, len(be.spine_down), be.links_to_each_spine)
    if be.tiers == 4:
        return "%d zones of %d pods per plane: a %s core switch has %d downlinks at %d link(s) per superspine" % (
            be.max_zones, be.pods_per_zone, be.core_model.name, len(be.core_down), be.links_to_each_core)
    return "%d pods per plane: a %s superspine has %d downlinks at %d link(s) per spine" % (
        be.max_pods, be.super_model.name, len(be.super_down), be.links_to_each_superspine)


def render_text(summary):
    """Human-readable summary for plan.yml and the CLI."""
    b = summary["backend"]
    lines = [
        "cluster %s: %d GPUs on %d servers, %d rails, %d switches, %d racks" % (
            summary["cluster"], summary["gpus"], summary["servers"], summary["rails"], summary["switches"],
            summary["racks"]),
        "backend: %s, %d tier(s), %d scalable unit(s) of %d servers%s" % (
            b["design"], b["tiers"], b["scalable_units"], b["servers_per_scalable_unit"],
            (", %d pod(s)" % b["pods"] if b["pods"] else "") + (", %d zone(s)" % b["zones"] if b.get("zones") else "")),
        "switches by role: " + ", ".join("%s %d" % (r, n) for r, n in summary["devices_by_role"].items() if n),
        "backend switches by rail: " + (", ".join("%s %d" % kv for kv in summary["backend_switches_by_rail"].items())
                                        or "-"),
        "links: " + ", ".join("%s %d" % kv for kv in summary["links"].items()),
        "oversubscription: " + (", ".join("%s %s" % kv for kv in b["oversubscription"].items()) or "none (rail_only)"),
        "largest cluster on this hardware: %d servers, %d GPUs (limit: %s)" % (
            b["max_servers"], b["max_gpus"], b["limit"]),
    ]
    if b.get("spine_sizing"):
        lines.append("backend spines: " + b["spine_sizing"])
    if b.get("breakouts"):
        lines.append("backend breakouts (per switch): " + "; ".join("%s %s" % kv for kv in b["breakouts"].items()))
    if "multi_plane" in summary:
        lines += multi_plane_text(summary["multi_plane"])
    if "rack_power" in summary:
        lines.append(rack_power_text(summary["rack_power"]))
    if "frontend" in summary:
        f = summary["frontend"]
        lines.append("frontend: %s, %d tier(s), %d leaf pair(s) of %d servers, oversubscription %s" % (
            f["dual_homing"], f["tiers"], f["leaf_pairs"], f["servers_per_pair"],
            ", ".join("%s %s" % kv for kv in f["oversubscription"].items()) or "-"))
        if f.get("spine_sizing"):
            lines.append("frontend spines: " + f["spine_sizing"])
    return "\n".join(lines)


def rack_power_text(p):
    """One line: racks, kW per rack by kind, kW in all."""
    kinds = "; ".join("%d %s rack(s) up to %dU and %.1f kW" % (v["racks"], kind, v["max_units"], v["max_kw_per_rack"])
                      for kind, v in p["by_kind"].items())
    missing = " (no power figure: %s)" % ", ".join(p["without_power_figures"]) if p["without_power_figures"] else ""
    return "racks: %d of %dU (%dU usable), %g kW budget each: %s; %.1f kW in all%s" % (
        p["racks"], p["rack_units"], p["usable_units"], p["budget_kw"], kinds, p["kw_total"], missing)


def multi_plane_text(m):
    """Lines of a multi-plane backend: the NIC's mode, each plane's switches and links, and the total."""
    lines = ["backend planes: %d, %s NICs as %s (%dG a port), each plane %d tier(s) of at most %d GPUs" % (
        m["count"], m["nic_model"], m["nic_mode"], m["port_speed"], m["each_plane_tiers"], m["max_gpus_per_plane"])]
    for name, n in list(m["planes"].items()) + [("total", m["total"])]:
        lines.append("  %s: %d switches (%d leaves, %d spines%s), %d server links, %d fabric links" % (
            name, n["switches"], n["leaves"], n["spines"],
            "".join(", %d %s" % (n[k], k) for k in ("superspines", "core") if n[k]), n["server_links"],
            n["fabric_links"]))
    c = m["cables"]
    lines.append("  cables: %d node-leaf (%d fibres), %d leaf-spine, counted by cage" % (
        c["node_leaf"], c["node_leaf_fibres"], c["leaf_spine"]))
    return lines
