"""Design comparison: every design re-planned, the planner's reason when one cannot hold the
cluster, and optics counted only on cabled ports."""
from docs_helpers import cables_of, plan_of
from gpufabric.docs.comparison import compare, design_spec
from gpufabric.docs.settings import settings_for
from gpufabric.plan import build_plan


def _rows(name, overrides=None):
    plan = plan_of(name)
    return {r.design: r for r in compare(plan, cables_of(name), settings_for(plan, overrides))}


def test_metalsoft_designs():
    rows = _rows("metalsoft-16k")
    plan = plan_of("metalsoft-16k")
    this = rows["rail_planes"]
    assert this.reason is None and this.switches["backend_leaf"] == plan.summary["devices_by_role"]["backend_leaf"]
    assert "rail_optimized needs 22 pods" in rows["rail_optimized"].reason
    assert rows["rail_only"].reason.startswith("servers.count: rail_only")
    # a 24:8 Z9332F-ON takes 3 servers: not the 4 of a rack
    assert "cannot take the 32 GPUs of 4 servers" in rows["top_of_rack"].reason


def test_comparison_costs_with_prices():
    from gpufabric.docs.bom import Pricing
    plan = plan_of("lab")
    settings = settings_for(plan, {"prices": {"Z9332F-ON": 1, "Z9664F-ON": 1}})
    rows = compare(plan, cables_of("lab"), settings)
    cost, unpriced = Pricing(settings).cost(rows[0].bom, ("switches",))
    assert cost == rows[0].bom.total("switches") and not unpriced


def test_top_of_rack_at_100k_puts_every_gpu_link_on_copper():
    # SemiAnalysis ("100,000 H100 clusters", 2024): a non-rail design moves the GPU-to-leaf links onto
    # DAC, a quarter to a third of the fabric's links.
    plan = plan_of("h100-100k")
    tor = _rows("h100-100k")["top_of_rack"]
    assert tor.reason is None
    gpus = plan.summary["servers"] * plan.summary["rails"]
    dac = sum(r[2] for r in tor.bom.rows("cables") if r[1] == "DAC")
    cables = sum(r[2] for r in tor.bom.rows("cables"))
    assert dac >= gpus and 0.25 <= gpus / cables <= 0.34


def _independent_transceivers(plan, settings):
    """Two optics per cabled backend link whose media takes pluggable transceivers."""
    from gpufabric.plan.cables import CableLengths
    from gpufabric.docs.cabling import Media
    lengths, media = CableLengths.for_spec(plan.spec), Media(settings)
    total = 0
    for link in plan.links:
        if link.network == "backend":
            stock = lengths.of(link)[1]
            total += 2 if media.choose(stock, link.speed).get("transceivers") else 0
    return total


def test_transceivers_match_an_independent_count_of_cabled_ports():
    for name in ("lab", "metalsoft-16k"):
        plan = plan_of(name)
        settings = settings_for(plan)
        for row in compare(plan, cables_of(name), settings):
            if row.reason:
                continue
            other = plan if row.design == plan.summary["backend"]["design"] else build_plan(
                design_spec(plan.spec, row.design, plan.catalog))
            assert row.bom.total("transceivers") == _independent_transceivers(other, settings), (name, row.design)
