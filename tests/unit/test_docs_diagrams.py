"""Diagrams: bounded overview, per-rail views, full view only for small clusters, stable DOT."""
import shutil

import pytest

from docs_helpers import plan_of
from gpufabric.docs.diagrams import graphs, overview, render_diagrams
from gpufabric.docs.settings import settings_for


@pytest.mark.parametrize("name", ["metalsoft-16k", "h100-100k"])
def test_overview_stays_small(name):
    plan = plan_of(name)
    settings = settings_for(plan)
    groups, rails = settings["diagrams"]["overview_max_groups"], plan.summary["rails"]
    graph = overview(plan, settings)
    # server groups + rail leaves + spine and superspine groups + the frontend tiers
    assert len(graph.nodes) <= groups + 3 * max(rails, groups) + 3
    assert len(graph.nodes) < 60


def test_views_and_full_view_threshold():
    lab = plan_of("lab")
    names = [g.name for g in graphs(lab, settings_for(lab))]
    assert names == ["overview"] + ["rail-%d" % r for r in range(8)] + ["full"]
    big = plan_of("metalsoft-16k")
    assert "full" not in [g.name for g in graphs(big, settings_for(big))]


def test_edges_count_every_backend_link_of_a_rail():
    plan = plan_of("metalsoft-16k")
    rail = [g for g in graphs(plan, settings_for(plan)) if g.name == "rail-3"][0]
    expected = sum(1 for link in plan.links if link.network == "backend" and 3 in (link.a.rail, link.b.rail))
    assert sum(edge[0] for edge in rail.edges.values()) == expected


def test_dot_is_deterministic():
    plan = plan_of("lab")
    assert render_diagrams(plan, settings_for(plan), svg=False) == render_diagrams(plan, settings_for(plan), svg=False)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
def test_svg_rendered_for_every_view():
    plan = plan_of("lab")
    files = render_diagrams(plan, settings_for(plan))
    dots = [p for p in files if p.endswith(".dot")]
    assert all(files[p[:-4] + ".svg"].lstrip().startswith("<?xml") for p in dots)
