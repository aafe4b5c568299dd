"""The same cluster under each backend design, side by side: switches, optics and cost.

Every design is re-planned by the planner with the spec's servers and switch models, so each row
counts the cables and optics of the ports that are actually cabled.
"""
import copy

from ..errors import SpecError
from ..plan import build_plan
from ..plan.port_split import split_ports
from ..spec import DESIGNS
from .bom import Pricing, aoc_cables, tally
from .cabling import Optics, plan_cables
from .markdown import count, money, table


def design_spec(spec, design, catalog):
    """The spec with only the backend design changed; the frontend is left out (not compared)."""
    out = copy.deepcopy(spec)
    out["frontend"] = None
    be = out["backend"]
    be["design"] = design
    if design == "rail_only":
        # one switch per rail: every port faces the servers
        be["leaf"] = {"model": be["leaf"]["model"]}
        be["spine"] = be["superspine"] = be["core"] = be["pod_gpus"] = None
    elif design == "top_of_rack" and spec["backend"]["design"] != design:
        be["leaf"] = _top_of_rack_leaf(spec, catalog)
        for tier in ("spine", "superspine", "core"):
            if be[tier]:
                be[tier] = {k: v for k, v in be[tier].items() if k != "count"}
    return out


def _top_of_rack_leaf(spec, catalog):
    """One leaf per rack, in it, taking every GPU of the rack over copper: the spec's leaf model at the
    spec's down:up ratio, with only the uplinks its used downlinks need (uncabled ports need no optics)."""
    be = spec["backend"]
    model = catalog.switch(be["leaf"]["model"], "backend.leaf.model", be["leaf"]["nos"])
    down, up = split_ports(model, be["leaf"], "backend.leaf", be["spine"] is not None)[:2]
    rails = catalog.server(spec["servers"]["model"], "servers.model").gpus
    per_rack = spec["servers"]["per_rack"]
    usable = len(model.usable("down")) + len(model.usable("any")) + len(model.usable("up"))
    servers = per_rack
    if usable * len(down) // (len(down) + len(up)) < servers * rails:
        raise SpecError("backend.leaf.model", "a %s at %d:%d cannot take the %d GPUs of %d servers of a rack" % (
            model.name, len(down), len(up), rails * per_rack, per_rack))
    downlinks = servers * rails
    return {"model": model.name, "downlinks": downlinks, "uplinks": -(-downlinks * len(up) // len(down))}


class Row:
    """One design's backend: switches by tier, cables and optics, or the reason it cannot be built."""

    def __init__(self, design):
        self.design = design
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
            plan = build_plan(design_spec(plan.spec, design, plan.catalog))
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


def compare(plan, cables, settings):
    optics = Optics(settings)
    return [planned_row(plan, cables, design, settings, optics) for design in DESIGNS]


def render_comparison(plan, rows, settings):
    """Markdown: the comparison table and what it assumes."""
    pricing = Pricing(settings)
    current = plan.summary["backend"]["design"]
    out = []
    for row in rows:
        name = row.design + (" (this plan)" if row.design == current else "")
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
        "Backend only, %s servers of %s, the spec's switch models (%s); each design re-planned by the planner "
        "(top_of_rack: whole racks of servers on a leaf in their rack, the leaf's ports split at the spec's "
        "down:up ratio). Only cabled ports count. Cost covers switches, transceivers and cables%s." % (
            count(plan.summary["servers"]), plan.spec["servers"]["model"], _models(plan.spec["backend"]),
            "" if pricing.prices else "; no prices in the spec, so counts only"),
        "", table(header, out)])


def _models(be):
    return ", ".join("%s %s" % (tier, be[tier]["model"]) for tier in ("leaf", "spine", "superspine", "core")
                     if be.get(tier))
