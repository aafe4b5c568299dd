"""Graphviz diagrams: an overview aggregated by rail and scalable unit (its node count is bounded
whatever the cluster size), one view per rail, and a full view for small clusters.

DOT text is generated deterministically (nodes in plan order); SVG comes from Graphviz `dot` when it
is on PATH, run in parallel for all views.
"""
import shutil
import subprocess

from .markdown import table

COLORS = {"gpu_server": "#dbe9f6", "backend_host": "#c9d6ea", "backend_leaf": "#fde2c8", "backend_spine": "#f9c79a",
          "backend_superspine": "#f4a261", "frontend_leaf": "#d8f0d2", "frontend_spine": "#b5e0a8",
          "frontend_superspine": "#8fcf7d", "backend_core": "#e76f51"}


def _blocks(total, max_groups):
    """Size of the blocks that fold ``total`` consecutive units into at most ``max_groups`` groups."""
    return max(1, -(-total // max_groups))


def _span(prefix, value, size):
    lo = value // size * size + 1
    hi = lo + size - 1
    return "%s %d" % (prefix, lo) if size == 1 else "%s %d-%d" % (prefix, lo, hi)


class Grouping:
    """Coarse groups of devices: servers by blocks of scalable units, spines by blocks of pods,
    superspines by blocks of their planes, so that no role has more than ``max_groups`` groups."""

    def __init__(self, plan, max_groups):
        b = plan.summary["backend"]
        self.su_size = _blocks(b["scalable_units"], max_groups)
        self.pods = b["pods"]  # None with two tiers
        self.pod_size = _blocks(self.pods or 1, max_groups)
        planes = 1 + max([d.plane for d in plan.devices if d.role == "backend_superspine"] or [0])
        self.plane_size = _blocks(planes, max_groups)
        self.rail_planes = b["design"] == "rail_planes"

    def su_block(self, dev, what):
        span = _span("SU", dev.su, self.su_size)
        return "%s %s" % (what, span), "%s\n%s" % (what, span)

    def _tier(self, dev, what, span):
        """A spine or superspine group: per rail with rail planes, within it by ``span`` if given."""
        rail = "rail %d " % dev.rail if self.rail_planes else ""
        label = rail + what + ("\n" + span if span else "")
        return label.replace("\n", " "), label

    def spines(self, dev, by_pod=True):
        return self._tier(dev, "spines", by_pod and self.pods and _span("pod", dev.pod, self.pod_size))

    def superspines(self, dev, by_plane=True):
        return self._tier(dev, "superspines", by_plane and _span("plane", dev.plane, self.plane_size))

    def cores(self, dev):
        """Core switches (four tiers): one group (per rail with rail planes)."""
        return self._tier(dev, "core switches", None)


class Graph:
    """Nodes (devices or groups of devices) and edges counting the links between them."""

    def __init__(self, name, title):
        self.name, self.title = name, title
        self.nodes = {}   # key -> [label, role, devices, model name]
        self.edges = {}   # (upper key, lower key) -> [links, speed]

    @classmethod
    def build(cls, plan, name, title, group_of, networks=("backend", "frontend")):
        graph = cls(name, title)
        member = {}
        for dev in plan.devices:
            group = group_of(dev)
            if group is None:
                continue
            key, label = group
            member[dev.name] = key
            node = graph.nodes.setdefault(key, [label, dev.role, 0, dev.model.name])
            node[2] += 1
        for link in plan.links:
            if link.network not in networks:
                continue
            a, b = member.get(link.a.name), member.get(link.b.name)
            if a is not None and b is not None:
                graph.edges.setdefault((a, b), [0, link.speed])[0] += 1
        return graph

    def dot(self):
        ids = {key: "n%d" % i for i, key in enumerate(self.nodes)}
        lines = ['graph "%s" {' % self.name,
                 '  graph [label="%s", labelloc=t, fontname="Helvetica", ranksep=1.0, nodesep=0.25];' % self.title,
                 '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
                 '  edge [color="#555555", fontname="Helvetica", fontsize=8];']
        by_role = {}
        for key, (label, role, n, model) in self.nodes.items():
            by_role.setdefault(role, []).append(ids[key])
            text = "%s\\n%s" % (label.replace("\n", "\\n"), model if n == 1 else "%d x %s" % (n, model))
            lines.append('  %s [label="%s", fillcolor="%s"];' % (ids[key], text, COLORS.get(role, "#eeeeee")))
        for members in by_role.values():
            lines.append("  { rank=same; %s; }" % "; ".join(members))
        for (a, b), (n, speed) in self.edges.items():
            attrs = ' [label="%d x %dG"]' % (n, speed) if n > 1 else ""
            lines.append("  %s -- %s%s;" % (ids[a], ids[b], attrs))
        lines.append("}")
        return "\n".join(lines) + "\n"


def _detail_or(plan, include, coarse, max_detail):
    """group_of for a view: included devices one by one when their role has at most ``max_detail``
    of them in the view, else in the coarse group ``coarse[role](dev)``."""
    counts = {}
    for dev in plan.devices:
        if include(dev):
            counts[dev.role] = counts.get(dev.role, 0) + 1

    def group_of(dev):
        if not include(dev):
            return None
        if counts[dev.role] <= max_detail:
            return dev.name, dev.name
        return coarse[dev.role](dev)
    return group_of


def overview(plan, settings):
    g = Grouping(plan, settings["diagrams"]["overview_max_groups"])
    coarse = {
        "gpu_server": lambda d: g.su_block(d, "servers"),
        "backend_host": lambda d: ("%s hosts" % d.kind, "%s hosts" % d.kind),
        # top-of-rack leaves carry every rail: grouped by scalable unit like their servers
        "backend_leaf": lambda d: (("leaf r%d" % d.rail, "rail %d leaves" % d.rail) if d.rail is not None
                                   else g.su_block(d, "top-of-rack leaves")),
        # rail planes: one group per rail is already as many groups as rails
        "backend_spine": lambda d: g.spines(d, not g.rail_planes),
        "backend_superspine": lambda d: g.superspines(d, False),
        "backend_core": g.cores,
        "frontend_leaf": lambda d: ("fe leaves", "frontend leaves"),
        "frontend_spine": lambda d: ("fe spines", "frontend spines"),
        "frontend_superspine": lambda d: ("fe superspines", "frontend superspines"),
    }
    s = plan.summary
    title = "%s: %d GPUs, %s, %d tier(s); OOB: %d switches (not drawn)" % (
        s["cluster"], s["gpus"], s["backend"]["design"], s["backend"]["tiers"], s["devices_by_role"]["oob_switch"])
    return Graph.build(plan, "overview", title, _detail_or(plan, lambda d: d.role != "oob_switch", coarse, 0))


def rail_view(plan, settings, rail):
    g = Grouping(plan, settings["diagrams"]["overview_max_groups"])
    coarse = {
        "gpu_server": lambda d: g.su_block(d, "servers"),
        "backend_host": lambda d: ("%s hosts" % d.kind, "%s hosts" % d.kind),
        "backend_leaf": lambda d: g.su_block(d, "rail %d leaves" % rail),
        "backend_spine": g.spines,
        "backend_superspine": g.superspines,
        "backend_core": g.cores,
    }

    def include(dev):
        return dev.role == "gpu_server" or (dev.role.startswith("backend") and dev.rail in (rail, None)
                                            and dev.role != "backend_host")
    return Graph.build(plan, "rail-%d" % rail, "%s: rail %d (backend)" % (plan.summary["cluster"], rail),
                       _detail_or(plan, include, coarse, settings["diagrams"]["detail_max_nodes"]), ("backend",))


def full_view(plan):
    return Graph.build(plan, "full", "%s: every server and switch (OOB not drawn)" % plan.summary["cluster"],
                       lambda d: None if d.role == "oob_switch" else (d.name, d.name))


def graphs(plan, settings):
    out = [overview(plan, settings)]
    if plan.summary["backend"]["design"] != "top_of_rack":   # one leaf carries every rail: no rail views
        out += [rail_view(plan, settings, r) for r in range(plan.summary["rails"])]
    if _full_size(plan) <= settings["diagrams"]["full_view_max_devices"]:
        out.append(full_view(plan))
    return out


def _full_size(plan):
    return sum(1 for d in plan.devices if d.role != "oob_switch")


def svgs(dots):
    """{name: svg text} from {name: dot text}, all `dot` processes at once; None without Graphviz."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    procs = {name: subprocess.Popen([exe, "-Tsvg"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE) for name in dots}
    out = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(dots[name].encode("utf-8"))
        if proc.returncode:
            raise RuntimeError("dot -Tsvg failed for %s: %s" % (name, stderr.decode("utf-8", "replace").strip()))
        out[name] = stdout.decode("utf-8")
    return out


def render_diagrams(plan, settings, svg=True):
    """{docs/diagrams/<view>.dot, .svg, README.md}. ``svg=False`` writes DOT only (golden tests)."""
    views = graphs(plan, settings)
    dots = {g.name: g.dot() for g in views}
    files = {"docs/diagrams/%s.dot" % name: text for name, text in dots.items()}
    rendered = svgs(dots) if svg else {}
    for name, text in (rendered or {}).items():
        files["docs/diagrams/%s.svg" % name] = text
    limit = settings["diagrams"]["full_view_max_devices"]
    rows = [(g.name, g.title, len(g.nodes), len(g.edges)) for g in views]
    notes = ["Full view: %s (it is drawn up to %d servers and switches; this cluster has %d)." % (
        "included" if len(views) > plan.summary["rails"] + 1 else "left out", limit, _full_size(plan))]
    if rendered is None:
        notes.append("Graphviz `dot` was not found on PATH: only .dot files were written; render them with "
                     "`dot -Tsvg VIEW.dot > VIEW.svg`.")
    files["docs/diagrams/README.md"] = "\n".join(
        ["# Diagrams: %s" % plan.summary["cluster"], "",
         table(("View", "Title", "Nodes", "Edges"), rows), ""] + notes) + "\n"
    return files
