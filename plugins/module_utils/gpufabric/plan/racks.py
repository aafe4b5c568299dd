"""Rack physics: what a server rack holds (units and power), checked before anything is placed, and
the power the plan's racks draw for the summary.

A server rack holds ``servers.per_rack`` servers, its OOB switches and, with top_of_rack, its leaf.
Units are the models' ``rack_units``; power their ``power_max_w`` (a model without one counts 0 W:
the summary says which models it could not count). The rack is the spec's ``racks`` section, or a
42U rack with a 45 kW budget.
"""
from ..errors import SpecError

DEFAULT_RACK = {"units": 42, "reserved_units": 0, "power_kw": 45}


def rack(spec):
    return spec.get("racks") or DEFAULT_RACK


def _kw(model):
    return (getattr(model, "power_max_w", None) or 0) / 1000.0


def check_server_rack(spec, server_model, others):
    """Refuse more servers per rack than the rack's units or power allow. ``others``: (model, count) of
    the switches standing in every server rack (OOB switches, a top-of-rack leaf)."""
    r = rack(spec)
    per_rack = spec["servers"]["per_rack"]
    usable = r["units"] - r["reserved_units"]
    other_u = sum(m.rack_units * n for m, n in others)
    other_kw = sum(_kw(m) * n for m, n in others)
    need_u = per_rack * server_model.rack_units + other_u
    need_kw = per_rack * _kw(server_model) + other_kw
    if need_u <= usable and need_kw <= r["power_kw"] + 1e-9:
        return
    fit_u = max(0, (usable - other_u) // server_model.rack_units)
    fit_kw = int((r["power_kw"] - other_kw) // _kw(server_model)) if _kw(server_model) else fit_u
    fit = max(0, min(fit_u, fit_kw))
    limits = []
    if need_u > usable:
        limits.append("%dU of the rack's %dU usable (racks.units %d - racks.reserved_units %d)" % (
            need_u, usable, r["units"], r["reserved_units"]))
    else:
        limits.append("%dU of %dU usable" % (need_u, usable))
    if need_kw > r["power_kw"] + 1e-9:
        limits.append("%.1f kW of its %g kW budget (racks.power_kw)" % (need_kw, r["power_kw"]))
    else:
        limits.append("%.1f kW of %g kW" % (need_kw, r["power_kw"]))
    raise SpecError("servers.per_rack", "%d %s per rack (%dU, %.1f kW each%s) need %s: use at most %d per rack, or "
                    "declare a larger rack under racks" % (
                        per_rack, server_model.name, server_model.rack_units, _kw(server_model),
                        ", plus %dU and %.1f kW of switches" % (other_u, other_kw) if others else "",
                        " and ".join(limits), fit))


def rack_power(plan):
    """Racks, units and kW: per kind of rack (server, network, core) and in all."""
    r = rack(plan.spec)
    per_rack = {}
    unknown = set()
    for dev in plan.devices:
        if dev.rack is None:
            continue
        entry = per_rack.setdefault(dev.rack.name, [dev.rack.kind, 0, 0.0])
        entry[1] += dev.model.rack_units if getattr(dev.model, "rack_units", None) else 1
        entry[2] += _kw(dev.model)
        if not getattr(dev.model, "power_max_w", None):
            unknown.add(dev.model.name)
    kinds = {}
    for kind, units, kw in per_rack.values():
        k = kinds.setdefault(kind, {"racks": 0, "max_units": 0, "max_kw": 0.0, "kw": 0.0})
        k["racks"] += 1
        k["max_units"] = max(k["max_units"], units)
        k["max_kw"] = max(k["max_kw"], kw)
        k["kw"] += kw
    out = {"rack_units": r["units"], "usable_units": r["units"] - r["reserved_units"], "budget_kw": r["power_kw"],
           "racks": len(per_rack),
           "by_kind": {kind: {"racks": v["racks"], "max_units": v["max_units"], "max_kw_per_rack": round(v["max_kw"], 1),
                              "kw": round(v["kw"], 1)} for kind, v in sorted(kinds.items())},
           "kw_total": round(sum(v[2] for v in per_rack.values()), 1),
           "without_power_figures": sorted(unknown)}
    return out
