"""summary.md: the fabric in numbers (tiers, oversubscription, bisection bandwidth, ECMP width)
and the design comparison."""
from ..summary import rack_power_text
from ..tenant_assignment import attached
from ..tenants.view import tenant_rows
from .comparison import compare, render_comparison
from .markdown import count, table

TIERS = ("server", "leaf-spine", "spine-superspine", "superspine-core")
RAIL_NOTE = " (the sum over rails; traffic between rails crosses inside the servers over NVLink)"


def bisection_gbps(plan):
    """Half the capacity of the narrowest backend tier: a cut through the middle of a Clos crosses at
    most that much (server links for a non-blocking fabric, the uplinks where it is oversubscribed)."""
    capacity = {}
    for link in plan.links:
        if link.network == "backend" and link.tier in TIERS:
            capacity[link.tier] = capacity.get(link.tier, 0) + link.speed
    return min(capacity.values()) // 2, capacity


def render_summary(plan, cables, settings):
    """{docs/summary.md}."""
    s = plan.summary
    b = s["backend"]
    bisection, capacity = bisection_gbps(plan)
    per_rail = b["design"] in ("rail_planes", "rail_only")
    facts = [
        ("GPUs", count(s["gpus"])), ("Servers", count(s["servers"])), ("Rails", s["rails"]),
        ("Switches", count(s["switches"])), ("Racks", count(s["racks"])),
        ("Backend design", b["design"]), ("Backend tiers", b["tiers"]),
        ("Scalable units", "%d of %d servers" % (b["scalable_units"], b["servers_per_scalable_unit"])),
        ("Pods", b["pods"] or "-"), ("Planes", b["planes"]),
        ("Oversubscription", ", ".join("%s %s" % kv for kv in b["oversubscription"].items()) or "none (one tier)"),
        ("ECMP width (leaf uplinks)", b["ecmp_width"] or "-"),
        ("Bisection bandwidth", "%s Gb/s%s" % (count(bisection), RAIL_NOTE if per_rail else "")),
        ("Largest cluster on this hardware", "%s GPUs (%s)" % (count(b["max_gpus"]), b["limit"])),
    ]
    if b.get("spine_sizing"):
        facts.append(("Spines", b["spine_sizing"]))
    if b.get("breakouts"):
        facts.append(("Breakouts (per switch)", "; ".join("%s: %s" % kv for kv in b["breakouts"].items())))
    if "rack_power" in s:
        facts.append(("Rack power", rack_power_text(s["rack_power"])[len("racks: "):]))
    if "hot_spares" in s:
        h = s["hot_spares"]
        swaps = ", ".join("%s replaced by %s" % kv for kv in h["replacing"].items())
        facts.append(("Hot spares", "%d (the last %d of each scalable unit)%s" % (
            h["servers"], h["per_scalable_unit"], "; " + swaps if swaps else "")))
    if "frontend" in s:
        f = s["frontend"]
        facts.append(("Frontend", "%s, %d tier(s), %d leaf pairs of %d servers, oversubscription %s" % (
            f["dual_homing"], f["tiers"], f["leaf_pairs"], f["servers_per_pair"],
            ", ".join("%s %s" % kv for kv in f["oversubscription"].items()) or "-")))
    lines = ["# Fabric summary: %s" % s["cluster"], "", table(("", ""), facts), "",
             "## Backend capacity per tier", "",
             table(("Tier", "Gb/s"), [(t, count(capacity[t])) for t in TIERS if t in capacity]), "",
             "## Links per network tier", "",
             table(("Network tier", "Links"), [(k, count(v)) for k, v in s["links"].items()]), "",
             "## Design comparison", "", render_comparison(plan, compare(plan, cables, settings), settings), ""]
    assignment = attached(plan)
    if assignment is not None:
        lines += ["## Tenants (isolation: %s, see docs/tenancy.md)" % assignment.isolation, "",
                  table(("Tenant", "Servers", "GPUs", "Rail leaves", "Server names"), tenant_rows(plan, assignment)), ""]
    return {"docs/summary.md": "\n".join(lines)}
