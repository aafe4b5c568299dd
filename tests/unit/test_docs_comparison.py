"""Design comparison: re-planned designs, the planner's reason when one cannot hold the cluster,
and the middle-of-rack estimate."""
from docs_helpers import cables_of, plan_of
from gpufabric.docs.comparison import MIDDLE_OF_RACK, compare
from gpufabric.docs.settings import settings_for


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
    mor = rows[MIDDLE_OF_RACK]
    assert mor.estimate and mor.reason is None
    # every server on an in-rack leaf: its 8 NIC links are DAC
    dac = sum(r[2] for r in mor.bom.rows("cables") if r[1] == "DAC")
    assert dac == 8 * plan.summary["servers"]


def test_comparison_costs_with_prices():
    from gpufabric.docs.bom import Pricing
    plan = plan_of("lab")
    settings = settings_for(plan, {"prices": {"Z9332F-ON": 1, "Z9664F-ON": 1}})
    rows = compare(plan, cables_of("lab"), settings)
    cost, unpriced = Pricing(settings).cost(rows[0].bom, ("switches",))
    assert cost == rows[0].bom.total("switches") and not unpriced


def test_middle_of_rack_cables_only_used_uplinks():
    from gpufabric.docs.comparison import _in_rack_leaves
    # 4 servers (32 GPUs) per rack on a 128-port leaf split 64:64: each leaf is half full and
    # needs 32 uplinks, not 64; a last rack of 2 servers needs 16.
    assert _in_rack_leaves(12500, 4, 8, 8, 64, 64) == (3125, 100000)
    assert _in_rack_leaves(6, 4, 8, 8, 64, 64) == (2, 48)
    # 3:1 leaves round up per leaf: 8 GPUs at 24:8 need 3 uplinks (8/3 rounded up)
    assert _in_rack_leaves(1, 1, 3, 8, 24, 8) == (1, 3)


def test_middle_of_rack_at_100k_counts_cabled_ports_only():
    plan = plan_of("h100-100k")
    mor = _rows("h100-100k")[MIDDLE_OF_RACK]
    gpus = plan.summary["servers"] * plan.summary["rails"]
    # non-blocking: as many leaf uplinks as GPUs, spread over 64-port-down spines
    assert mor.switches["backend_leaf"] == 3125
    assert mor.switches["backend_spine"] == -(-gpus // 64)
    dac = sum(r[2] for r in mor.bom.rows("cables") if r[1] == "DAC")
    assert dac == gpus and mor.aoc <= gpus
