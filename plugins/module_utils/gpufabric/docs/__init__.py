"""Build documentation from the plan, for the people who install and run the cluster.

render_docs(plan) returns {path under build/<cluster>/: text}:

- docs/cabling.csv, docs/cabling.md: every cable, its ID, ends, length, media, labels (cabling.py)
- docs/bom.md, docs/bom.csv: switches, servers, optics, cables, cost (bom.py)
- docs/summary.md: the fabric in numbers and the design comparison (fabric_summary.py, comparison.py)
- docs/reliability.md: time to the first link failure, job survival (reliability.py)
- docs/diagrams/*.dot, *.svg: overview, per-rail and full views (diagrams.py)
- docs/devices/<host>.md: interfaces, BGP neighbours, QoS per device (device_pages.py)

Defaults are in data/docs_defaults.yml; the spec's `docs` section and ``overrides`` change them.
"""
from .bom import render_bom
from .cabling import Optics, plan_cables, render_cabling
from .device_pages import render_device_pages
from .diagrams import render_diagrams
from .fabric_summary import render_summary
from .reliability import render_reliability
from .settings import settings_for


def render_docs(plan, overrides=None, svg=True):
    settings = settings_for(plan, overrides)
    cables = plan_cables(plan, settings)
    files = {}
    files.update(render_cabling(plan, cables, settings))
    files.update(render_bom(plan, cables, Optics(settings), settings))
    files.update(render_summary(plan, cables, settings))
    files.update(render_reliability(plan, cables, settings))
    files.update(render_diagrams(plan, settings, svg))
    files.update(render_device_pages(plan, cables))
    return files


# The parts of render_docs that read every cable, each rendered apart by render_part.
PARTS = ("cabling", "bom", "summary", "reliability", "diagrams")


def render_part(plan, part):
    """The files of one of PARTS: together with render_pages over every device, the files of render_docs(plan)."""
    settings = settings_for(plan)
    if part == "diagrams":
        return render_diagrams(plan, settings, True)
    cables = plan_cables(plan, settings)
    if part == "cabling":
        return render_cabling(plan, cables, settings)
    if part == "bom":
        return render_bom(plan, cables, Optics(settings), settings)
    if part == "summary":
        return render_summary(plan, cables, settings)
    return render_reliability(plan, cables, settings)


def render_pages(plan, devices):
    """docs/devices/<host>.md of ``devices`` (of the plan's), as render_docs writes them: only their links' cables are
    made (a cable's ID, length and media are its link's own)."""
    links, seen = [], set()
    for dev in devices:
        for link in dev.links:
            if id(link) not in seen:
                seen.add(id(link))
                links.append(link)
    return render_device_pages(plan, plan_cables(plan, settings_for(plan), links), devices)
