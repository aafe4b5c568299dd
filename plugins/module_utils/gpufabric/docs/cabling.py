"""The cabling plan: one cable per plan link, with a position-based ID, the plan's length for it
(plan/cables.py), a media chosen by reach, and a label for each end.

Cable IDs come from where end B (the lower tier: server, leaf, spine) is plugged in: its rack, its
slot in the rack and its port. A port holds one cable, so the ID is unique, and growing the cluster
(which adds racks and devices at the end) never changes the ID of a cable already installed.
"""
import csv
import io

from ..plan.planes import nic_cage
from .markdown import count, table

# After a hot-spare server's name in the printed plan: cabled like the others, reserved for swaps.
SPARE_MARK = " (spare)"
CSV_HEADER = ("cable_id", "network", "tier", "speed_gbps", "a_rack", "a_device", "a_port", "b_rack", "b_device",
              "b_port", "length_m", "stock_length_m", "media", "a_optic", "b_optic", "label_a", "label_b")


class Cable:
    __slots__ = ("link", "length", "stock", "media", "_id")

    def __init__(self, link, length, stock, media):
        self.link = link
        self.length = length    # estimated routed length, metres
        self.stock = stock      # the length to order
        self.media = media      # an entry of settings["media"] (or the rj45 entry)
        self._id = None

    @property
    def id(self):
        """Computed on first use: design comparisons classify cables that are never labelled."""
        if self._id is None:
            self._id = cable_id(self.link)
        return self._id


def cable_id(link):
    b = link.b
    return "%s-s%02d-%s" % (b.rack.name, b.slot + 1, link.b_port)


class Media:
    """The media of a cable by its stock length and speed; see media in data/docs_defaults.yml."""

    def __init__(self, settings):
        self.media = settings["media"]
        self.rj45 = settings["rj45"]

    def choose(self, stock, speed, optics_only=False):
        """``optics_only``: a link between two broken-out cages (a multi-plane NIC's plane port on a leaf's
        2x400G port) needs pluggable optics at both ends: no DAC or AOC splits a cage towards two other cages."""
        if speed <= self.rj45["max_speed_gbps"]:
            return self.rj45
        for media in self.media:
            if stock <= media["reach_m"] and (media.get("transceivers") or not optics_only):
                return media
        return self.media[-1]


def plan_cables(plan, settings, links=None):
    """A Cable for every link (of ``links``, default all of the plan's), in plan order; lengths are
    the plan's (plan/cables.py), the ones the switch configs size their buffers for."""
    media, lengths = Media(settings), plan.cable_lengths
    optics = Optics(settings) if plan.sizing.nic_planes > 1 else None
    chosen = {}
    out = []
    for link in plan.links if links is None else links:
        length, stock = lengths.of(link)
        both = bool(optics and link.tier == "server" and optics.sub_port(link.b, link.b_port)
                    and optics.sub_port(link.a, link.a_port))
        key = (stock, link.speed, both)
        kind = chosen.get(key)
        if kind is None:
            kind = chosen[key] = media.choose(stock, link.speed, both)
        out.append(Cable(link, length, stock, kind))
    return out


_SERVERS = ("gpu_server", "backend_host")


class Optics:
    """Names the pluggable optic at each end of a cable: type by speed and media, cage by port."""

    def __init__(self, settings):
        self.codes = settings["transceiver_codes"]
        self.twin_codes = settings.get("twin_port_codes") or {}
        self.nic_ff = settings["nic_form_factors"]
        self._cages = {}
        self._planes = {}     # server model -> {plane port: (NIC, mode, sub-port)} (empty: one port a NIC)

    def type_name(self, cable):
        if not cable.media.get("transceivers"):
            return ""
        speed, name = cable.link.speed, cable.media["name"]
        return self.codes.get(speed, {}).get(name) or "%dG-%s" % (speed, name)

    def twin_name(self, mode, media):
        """The one transceiver of a broken-out cage (a twin-port optic for 2x400G): by mode and media."""
        plain = mode.split("(")[0]
        return self.twin_codes.get(plain, {}).get(media) or "%s-%s twin-port" % (plain, media)

    def sub_port(self, dev, port):
        """(cage name, mode, sub-port) when ``port`` is a sub-port of a broken-out cage (a switch's, or a multi-plane
        NIC's: its plane ports share the NIC's one cage), else None."""
        if dev.role in _SERVERS:
            table = self._planes.get(dev.model)
            return (table if table is not None else self._plane_ports(dev)).get(port)
        parents = getattr(dev.model, "parent", None)
        if not parents:
            return None
        cage = dev.model.cage_of(port)
        return None if cage[3] is None else (cage[0], cage[3], cage[2])

    def _plane_ports(self, dev):
        """{plane port: (NIC name, port mode, sub-port)} of a server model whose NICs run several plane ports (read
        from the ports cabled on its first server: ens1f0np0 and ens1f1np1 are the 2x400G of NIC ens1np0); {} for a
        model whose NICs are one port each."""
        table = self._planes.get(dev.model)
        if table is None:
            nics = {n["name"].split("np")[0]: n for n in dev.model.backend_nics}
            by_nic = {}
            for link in dev.links:
                if link.network == "backend" and link.b is dev:
                    stem = nic_cage(link.b_port)
                    if stem != link.b_port and stem in nics:
                        by_nic.setdefault(stem, []).append(link.b_port)
            table = {}
            for stem, ports in by_nic.items():
                nic = nics[stem]
                mode = "%dx%dG" % (len(ports), nic["speed"] // len(ports))
                table.update((name, (nic["name"], mode, sub)) for sub, name in enumerate(sorted(ports)))
            self._planes[dev.model] = table
        return table

    def cage(self, dev, port):
        """Form factor of a switch port from the catalog; of a server port from nic_form_factors."""
        model = dev.model
        # a tier's broken-out view and the plain model share a name, not their port names
        key = model.name if getattr(model, "parent", None) is None else (model.name, id(model))
        cages = self._cages.get(key)
        if cages is None:
            if dev.role in ("gpu_server", "backend_host"):
                ff = self.nic_ff.get(model.name, {})
                cages = {n["name"]: ff.get("backend", "") for n in model.backend_nics}
                cages.update((p["name"], ff.get("frontend", "")) for p in model.frontend_ports)
            else:
                cages = {p[0]: p[3] for p in model.ports}
            self._cages[key] = cages
        found = cages.get(port)
        if found is None and dev.role in ("gpu_server", "backend_host"):
            sub = self._plane_ports(dev).get(port)   # a plane port sits in its NIC's cage
            found = cages.get(sub[0]) if sub else None
        return found or ""

    def end_type(self, cable, dev, port, name):
        """The optic at one end: ``name``, or the twin-port optic of a broken-out cage that end is a half of."""
        sub = self.sub_port(dev, port)
        return self.twin_name(sub[1], cable.media["name"]) if sub else name

    def ends(self, cable):
        """[(type, cage) at end A, at end B], or [] without pluggable optics."""
        name = self.type_name(cable)
        if not name:
            return []
        link = cable.link
        return [(self.end_type(cable, link.a, link.a_port, name), self.cage(link.a, link.a_port)),
                (self.end_type(cable, link.b, link.b_port, name), self.cage(link.b, link.b_port))]


def _label(cid, far, far_port):
    """Printed on one end: the cable ID and where the other end goes."""
    return "%s > %s %s %s" % (cid, far.rack.name, far.name, far_port)


def cable_row(cable, optics):
    link = cable.link
    a, b = link.a, link.b
    cid = cable.id
    ends = [" ".join(filter(None, end)) for end in optics.ends(cable)] or ("", "")
    return (cid, link.network, link.tier, link.speed, a.rack.name, a.name, link.a_port, b.rack.name, b.name,
            link.b_port, "%.1f" % cable.length, "%g" % cable.stock, cable.media["name"], ends[0], ends[1],
            _label(cid, b, link.b_port), _label(cid, a, link.a_port))


def render_csv(rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    writer.writerows(rows)
    return out.getvalue()


def render_markdown(plan, cables, rows, settings):
    """Printable plan: totals by media, then one table per rack, each cable under the rack of its
    end B (the server rack for server cables), where a technician starts pulling it."""
    by_media = {}
    for cable in cables:
        key = (cable.media["name"], cable.link.speed)
        by_media[key] = by_media.get(key, 0) + 1
    lay = settings["layout"]
    lines = ["# Cabling plan: %s" % plan.spec["cluster"]["name"], "",
             "%s cables. Lengths are estimates from the rack layout (racks %g m wide, rows %g m apart, core row at "
             "row %g, %g m tray drop per end, %g m in one rack, slack %g m + %d%%); media by reach. "
             "See docs/build-docs.md in the collection for the assumptions." % (
                 count(len(cables)), lay["rack_width_m"], lay["row_pitch_m"], lay["core_row"], lay["tray_drop_m"],
                 lay["in_rack_m"], lay["slack_m"], round(lay["slack_ratio"] * 100)), "",
             table(("Media", "Speed (Gb/s)", "Cables"),
                   [(m, s, count(n)) for (m, s), n in sorted(by_media.items(), key=lambda kv: (-kv[0][1], kv[0][0]))]),
             ""]
    by_rack = {}
    for row, cable in zip(rows, cables):
        by_rack.setdefault(cable.link.b.rack.ordinal, []).append(row)
    spares = {d.name for d in plan.servers if d.spare}
    header = table(("Cable", "Net / tier", "Device B", "Port B", "Rack A", "Device A", "Port A", "Media",
                    "Length (m)"), [])
    for rack in plan.racks:
        rack_rows = by_rack.get(rack.ordinal)
        if rack_rows:
            lines += ["## Rack %s" % rack.name, "", header]
            # one format per row: this table has a row per cable (hundreds of thousands at 100k GPUs)
            lines.extend("| %s | %s %s | %s%s | %s | %s | %s | %s | %s %dG | %s |" % (
                r[0], r[1], r[2], r[8], SPARE_MARK if r[8] in spares else "", r[9], r[4], r[5], r[6], r[12], r[3],
                r[11]) for r in rack_rows)
            lines.append("")
    return "\n".join(lines)


def render_cabling(plan, cables, settings):
    """{docs/cabling.csv, docs/cabling.md}."""
    optics = Optics(settings)
    rows = [cable_row(c, optics) for c in cables]
    return {"docs/cabling.csv": render_csv(rows), "docs/cabling.md": render_markdown(plan, cables, rows, settings)}
