"""Bill of materials: switches and servers by model, pluggable optics by type and cage, cables by
type and length; with unit prices from the settings, a cost."""
import csv
import io

from ..catalog import parse_mode
from .markdown import count, money, table

CATEGORIES = ("switches", "servers", "transceivers", "cables")


class Bom:
    """Counted items: (category, name) -> [count, price keys, sort key, detail]."""

    def __init__(self):
        self.items = {}

    def add(self, category, name, price_keys, sort_key, detail="", n=1):
        entry = self.items.get((category, name))
        if entry is None:
            entry = self.items[(category, name)] = [0, price_keys, sort_key, detail]
        entry[0] += n

    def rows(self, category):
        """(name, detail, count, price keys) of one category in a stable, readable order."""
        found = [(e[2], name, e[3], e[0], e[1]) for (cat, name), e in self.items.items() if cat == category]
        return [r[1:] for r in sorted(found)]

    def total(self, category):
        return sum(e[0] for (cat, dummy), e in self.items.items() if cat == category)


def _cable_item(cable):
    family = cable.media["cable"].format(speed=cable.link.speed)
    return family, "%s %g m" % (family, cable.stock)


def tally(devices, cables, optics):
    bom = Bom()
    roles = {}
    for dev in devices:
        roles.setdefault(dev.model.name, set()).add(dev.role)
    spares = {}
    for dev in devices:
        if dev.spare:
            spares[dev.model.name] = spares.get(dev.model.name, 0) + 1
    for dev in devices:
        model = dev.model
        category = "servers" if dev.role in ("gpu_server", "backend_host") else "switches"
        spare = ", %d of them hot spares" % spares[model.name] if model.name in spares else ""
        bom.add(category, model.name, (model.name,), (model.name,),
                "%s (%s%s)" % (model.description, ", ".join(sorted(roles[model.name])), spare))
    # cables differing only in their ends' devices count as one item: classify each kind once
    kinds = {}
    broken = {}     # (device, cage): the cables on the sub-ports of one broken-out cage
    for cable in cables:
        link = cable.link
        upper = optics.sub_port(link.a, link.a_port)
        sub = upper or optics.sub_port(link.b, link.b_port)
        if sub:
            dev = link.a if upper else link.b
            broken.setdefault((dev.name, sub[0]), []).append(cable)
            continue
        key = (cable.media["name"], link.speed, cable.stock, optics.cage(link.a, link.a_port),
               optics.cage(link.b, link.b_port))
        kind = kinds.get(key)
        if kind is None:
            kinds[key] = [1, cable]
        else:
            kind[0] += 1
    for n, cable in kinds.values():
        add_cable(bom, cable, optics, n)
    far_twins = set()
    for group in broken.values():
        add_breakout(bom, group, optics, far_twins)
    return bom


def add_breakout(bom, group, optics, far_twins=None):
    """The cables of one broken-out cage: with pluggable optics, one twin-port transceiver in the cage,
    a patch cable and a far-end optic per link; without (DAC, AOC), one breakout cable for the cage. A far end
    that is itself a sub-port (a multi-plane NIC's plane port on a broken-out leaf port) takes its cage's one
    twin-port optic once, however many groups reach that cage (``far_twins`` remembers them)."""
    far_twins = set() if far_twins is None else far_twins
    first = group[0]
    link = first.link
    upper = optics.sub_port(link.a, link.a_port) is not None
    dev, port = (link.a, link.a_port) if upper else (link.b, link.b_port)
    cage_name, mode, dummy = optics.sub_port(dev, port)
    stock = max(c.stock for c in group)
    media = max((c for c in group), key=lambda c: c.stock).media
    if media.get("transceivers"):
        twin = optics.twin_name(mode, media["name"])
        ff = optics.cage(dev, port)
        full = "%s %s" % (twin, ff) if ff else twin
        subs, speed = parse_mode(mode)
        bom.add("transceivers", full, (full, twin), (-subs * speed, full),
                "%s, %s" % (media["name"], mode), 1)
        for cable in group:
            family, name = _cable_item(cable)
            bom.add("cables", name, (name, family), (family, cable.stock), cable.media["name"])
            far = (cable.link.b, cable.link.b_port) if upper else (cable.link.a, cable.link.a_port)
            far_sub = optics.sub_port(*far)
            if far_sub:
                if (far[0].name, far_sub[0]) not in far_twins:
                    far_twins.add((far[0].name, far_sub[0]))
                    optic = optics.twin_name(far_sub[1], cable.media["name"])
                    cage = optics.cage(*far)
                    full = "%s %s" % (optic, cage) if cage else optic
                    fsubs, fspeed = parse_mode(far_sub[1])
                    bom.add("transceivers", full, (full, optic), (-fsubs * fspeed, full),
                            "%s, %s" % (cable.media["name"], far_sub[1]), 1)
                continue
            optic = optics.type_name(cable)
            cage = optics.cage(*far)
            full = "%s %s" % (optic, cage) if cage else optic
            bom.add("transceivers", full, (full, optic), (-cable.link.speed, full), cable.media["name"])
        return
    subs, speed = parse_mode(mode)
    family = "%s breakout %dG to %s" % (media["name"], subs * speed, mode.split("(")[0])
    name = "%s %g m" % (family, stock)
    bom.add("cables", name, (name, family), (family, stock), "%s, one per physical port" % media["name"])


def add_cable(bom, cable, optics, n=1):
    """``n`` cables like ``cable``, with the optics at their ends."""
    family, name = _cable_item(cable)
    bom.add("cables", name, (name, family), (family, cable.stock), cable.media["name"], n)
    for optic, cage in optics.ends(cable):
        full = "%s %s" % (optic, cage) if cage else optic
        bom.add("transceivers", full, (full, optic), (-cable.link.speed, full), cable.media["name"], n)


def aoc_cables(cables):
    return sum(1 for c in cables if c.media.get("optical") and not c.media.get("transceivers"))


class Pricing:
    """Unit prices by item name, falling back to the item's family (a cable of any length)."""

    def __init__(self, settings):
        self.prices = settings.get("prices") or {}
        self.currency = settings["currency"]

    def unit(self, price_keys):
        for key in price_keys:
            if key in self.prices:
                return self.prices[key]
        return None

    def cost(self, bom, categories=CATEGORIES):
        """(total, unpriced item names) over ``categories``; total is None without any prices."""
        if not self.prices:
            return None, []
        total, unpriced = 0, []
        for category in categories:
            for name, dummy, n, keys in bom.rows(category):
                unit = self.unit(keys)
                if unit is None:
                    unpriced.append(name)
                else:
                    total += unit * n
        return total, unpriced


def _priced_rows(bom, category, pricing):
    out = []
    for name, detail, n, keys in bom.rows(category):
        unit = pricing.unit(keys)
        cost = "" if unit is None else money(unit * n, pricing.currency)
        out.append((name, detail, count(n), "" if unit is None else money(unit, pricing.currency), cost))
    return out


def render_bom(plan, cables, optics, settings):
    """{docs/bom.md, docs/bom.csv}."""
    bom = tally(plan.devices, cables, optics)
    pricing = Pricing(settings)
    aoc = aoc_cables(cables)
    optical = sum(1 for c in cables if c.media.get("optical"))
    header = ("Item", "Detail", "Count", "Unit price", "Cost")
    lines = ["# Bill of materials: %s" % plan.spec["cluster"]["name"], ""]
    for category in CATEGORIES:
        lines += ["## %s" % category.capitalize(), "", table(header, _priced_rows(bom, category, pricing)), ""]
        if category == "transceivers":
            ends = bom.total(category) + 2 * aoc
            lines += ["Pluggable transceivers: %s. AOC cables: %s, with %s optical ends built in (ordered as cables). "
                      "Optical ends in all: %s, %s the %s optical cables." % (
                          count(bom.total(category)), count(aoc), count(2 * aoc), count(ends),
                          "two for each of" if ends == 2 * optical else
                          "fewer than two for each of (a twin-port optic in a broken-out switch port ends two of)",
                          count(optical)), ""]
    total, unpriced = pricing.cost(bom)
    lines += ["## Totals", "", table(("Category", "Items"), [(c, count(bom.total(c))) for c in CATEGORIES]), ""]
    if total is None:
        lines.append("No prices set (docs.prices in the spec): counts only.")
    else:
        lines.append("Cost: %s%s." % (money(total, pricing.currency), "; without prices for: " + ", ".join(unpriced)
                                      if unpriced else ""))
    return {"docs/bom.md": "\n".join(lines) + "\n", "docs/bom.csv": _csv(bom, pricing)}


def _csv(bom, pricing):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("category", "item", "detail", "count", "unit_price", "cost"))
    for category in CATEGORIES:
        for name, detail, n, keys in bom.rows(category):
            unit = pricing.unit(keys)
            writer.writerow((category, name, detail, n, "" if unit is None else unit, "" if unit is None else unit * n))
    return out.getvalue()
