"""The same cluster under each backend design, side by side: switches, optics and cost.

rail_optimized, rail_planes and rail_only are re-planned by the planner with the spec's servers and
switch models; middle-of-rack is not a planner design, so it is estimated here from port arithmetic.
"""
import copy

from ..errors import SpecError
from ..plan import build_plan
from ..plan.clos import ceil_div, split_ports
from ..spec import DESIGNS
from .bom import Bom, Pricing, add_cable, aoc_cables, tally
from .cabling import Cable, Media, Optics, plan_cables
from .markdown import count, money, table

MIDDLE_OF_RACK = "middle_of_rack"


def design_spec(spec, design):
    """The spec with only the backend design changed; the frontend is left out (not compared)."""
    out = copy.deepcopy(spec)
    out["frontend"] = None
    be = out["backend"]
    be["design"] = design
    if design == "rail_only":
        # one switch per rail: every port faces the servers
        be["leaf"] = {"model": be["leaf"]["model"]}
        be["spine"] = be["superspine"] = None
    return out


class Row:
    """One design's backend: switches by tier, cables and optics, or the reason it cannot be built."""

    def __init__(self, design, estimate=False):
        self.design = design
        self.estimate = estimate
        self.reason = None
        self.tiers = None
        self.switches = {}
        self.bom = None
        self.aoc = 0
        self.max_gpus = None


def _backend(cables):
    return [c for c in cables if c.link.network == "backend"]


def planned_row(plan, cables, design, settings, optics):
    """``cables`` are the plan's; another design is re-planned and its cables classified here."""
    row = Row(design)
    if plan.summary["backend"]["design"] != design:
        try:
            plan = build_plan(design_spec(plan.spec, design))
        except SpecError as exc:
            row.reason = str(exc)
            return row
        cables = plan_cables(plan, settings, [link for link in plan.links if link.network == "backend"])
    cables = _backend(cables)
    devices = [d for d in plan.devices if d.role.startswith("backend")]
    row.tiers = plan.summary["backend"]["tiers"]
    row.switches = {role: n for role, n in plan.summary["devices_by_role"].items() if role.startswith("backend")}
    row.bom = tally(devices, cables, optics)
    row.aoc = aoc_cables(cables)
    row.max_gpus = plan.summary["backend"]["max_gpus"]
    return row


def _most_common_cable(cables, tier):
    """The (media, length) most cables of a tier have, as a representative cable."""
    seen = {}
    for cable in cables:
        if cable.link.tier == tier:
            key = (cable.media["name"], cable.stock)
            seen.setdefault(key, [0, cable])[0] += 1
    return max(seen.values(), key=lambda v: v[0])[1] if seen else None


def _in_rack_leaves(servers, per_rack, servers_per_leaf, rails, down, up):
    """(leaves, cabled uplinks) when each rack's servers fill leaves of their own rack in turn.

    A leaf cables only the uplinks its used downlinks need at the leaf's down:up ratio: a leaf half
    full of GPUs needs half the uplinks, and uncabled ports need no optics.
    """
    leaves = uplinks = 0
    for first in range(0, servers, per_rack):
        in_rack = min(per_rack, servers - first)
        for on_leaf in range(0, in_rack, servers_per_leaf):
            used = min(servers_per_leaf, in_rack - on_leaf) * rails
            leaves += 1
            uplinks += ceil_div(used * up, down)
    return leaves, uplinks


def middle_of_rack(plan, cables, settings, optics):
    """Estimate: every server's GPUs on a leaf in its own rack (the spec's leaf model at the spec's
    down:up ratio), copper inside the rack, and spines/superspines sized by port count; fabric
    cables like the most common ones of the same tier in this plan."""
    row = Row(MIDDLE_OF_RACK, estimate=True)
    spec = plan.spec
    be = spec["backend"]
    if be["spine"] is None:
        row.reason = "estimate needs backend.spine in the spec (middle-of-rack leaves need spines)"
        return row
    R = plan.summary["rails"]
    catalog = plan.catalog
    leaf_model = catalog.switch(be["leaf"]["model"], "backend.leaf.model")
    down, up = split_ports(leaf_model, be["leaf"], "backend.leaf", True)[:2]
    ports = len(leaf_model.usable("down")) + len(leaf_model.usable("any")) + len(leaf_model.usable("up"))
    d = ports * len(down) // (len(down) + len(up))
    u = ports - d
    if d < R:
        row.reason = "a %s leaf at %d:%d has %d downlinks, fewer than the %d GPUs of a server" % (
            leaf_model.name, len(down), len(up), d, R)
        return row
    leaves, uplinks = _in_rack_leaves(plan.summary["servers"], spec["servers"]["per_rack"], d // R, R, d, u)
    three = be["superspine"] is not None
    spine_model = catalog.switch(be["spine"]["model"], "backend.spine.model")
    s_down, s_up = split_ports(spine_model, be["spine"], "backend.spine", three)[:2]
    spines = ceil_div(uplinks, len(s_down))
    if not three and leaves > len(s_down):
        row.reason = "estimate: %d in-rack leaves exceed the %d ports of a %s spine; needs a third tier" % (
            leaves, len(s_down), spine_model.name)
        return row
    row.tiers = 3 if three else 2
    row.switches = {"backend_leaf": leaves, "backend_spine": spines}
    links = {"server": plan.summary["servers"] * R, "leaf-spine": uplinks}
    bom = Bom()
    bom.add("switches", leaf_model.name, (leaf_model.name,), (leaf_model.name,), n=leaves)
    bom.add("switches", spine_model.name, (spine_model.name,), (spine_model.name,), n=spines)
    if three:
        super_model = catalog.switch(be["superspine"]["model"], "backend.superspine.model")
        ss_down = split_ports(super_model, be["superspine"], "backend.superspine", False)[0]
        links["spine-superspine"] = ceil_div(uplinks * len(s_up), len(s_down))
        row.switches["backend_superspine"] = ceil_div(links["spine-superspine"], len(ss_down))
        bom.add("switches", super_model.name, (super_model.name,), (super_model.name,),
                n=row.switches["backend_superspine"])
    media, lengths = Media(settings), plan.cable_lengths
    cables = _backend(cables)
    for tier, n in links.items():
        sample = _most_common_cable(cables, tier)
        if sample is None:
            row.reason = "estimate needs this plan to have %s cables to take their media from" % tier
            return row
        if tier == "server":
            rack = sample.link.b.rack
            length, stock = lengths.between(rack, rack)
            sample = Cable(sample.link, length, stock, media.choose(stock, sample.link.speed))
        add_cable(bom, sample, optics, n)
        if sample.media.get("optical") and not sample.media.get("transceivers"):
            row.aoc += n
    row.bom = bom
    return row


def compare(plan, cables, settings):
    optics = Optics(settings)
    rows = [planned_row(plan, cables, design, settings, optics) for design in DESIGNS]
    rows.append(middle_of_rack(plan, cables, settings, optics))
    return rows


def render_comparison(plan, rows, settings):
    """Markdown: the comparison table and what it assumes."""
    pricing = Pricing(settings)
    current = plan.summary["backend"]["design"]
    out = []
    for row in rows:
        name = row.design + (" (this plan)" if row.design == current else "") + (" (estimate)" if row.estimate else "")
        if row.reason:
            out.append((name, "-", "-", "-", "-", "-", "-", "-", "-", "-", "cannot hold the cluster: " + row.reason))
            continue
        sw = row.switches
        cost, unpriced = pricing.cost(row.bom)
        out.append((name, row.tiers, count(sw.get("backend_leaf", 0)), count(sw.get("backend_spine", 0)),
                    count(sw.get("backend_superspine", 0)), count(row.bom.total("switches")),
                    count(row.bom.total("transceivers")), count(row.aoc),
                    count(sum(r[2] for r in row.bom.rows("cables") if r[1] == "DAC")),
                    "-" if cost is None else money(cost, pricing.currency) + (" (partial)" if unpriced else ""),
                    "up to %s GPUs on this hardware" % count(row.max_gpus) if row.max_gpus else ""))
    header = ("Design", "Tiers", "Leaves", "Spines", "Superspines", "Switches", "Transceivers", "AOC", "DAC",
              "Cost", "Note")
    return "\n".join([
        "Backend only, %s servers of %s, the spec's switch models (%s); each planner design re-planned by the "
        "planner, middle-of-rack estimated from port counts (every server on a leaf in its own rack over DAC, the "
        "leaf's ports split at the spec's down:up ratio, fabric cables like this plan's). Cost covers switches, "
        "transceivers and cables%s." % (
            count(plan.summary["servers"]), plan.spec["servers"]["model"], _models(plan.spec["backend"]),
            "" if pricing.prices else "; no prices in the spec, so counts only"),
        "", table(header, out)])


def _models(be):
    return ", ".join("%s %s" % (tier, be[tier]["model"]) for tier in ("leaf", "spine", "superspine") if be[tier])
