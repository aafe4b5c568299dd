"""Published designs built as examples, their headline figures counted from the plan's own cables, and the
design comparison's optics checked against an independent count of cabled ports."""
import collections

import pytest

from conftest import load_example
from gpufabric.docs.cabling import Media, plan_cables
from gpufabric.docs.comparison import compare, design_spec
from gpufabric.docs.settings import settings_for
from gpufabric.plan import build_plan
from gpufabric.plan.cables import CableLengths

_PLANS = {}


def plan_of(name):
    if name not in _PLANS:
        _PLANS[name] = build_plan(load_example(name))
    return _PLANS[name]


def _media_by_tier(plan):
    """{(tier, media name, takes transceivers): links} of the backend, counted link by link."""
    settings = settings_for(plan)
    lengths, media = CableLengths.for_spec(plan.spec), Media(settings)
    out = collections.Counter()
    for link in plan.links:
        if link.network == "backend":
            chosen = media.choose(lengths.of(link)[1], link.speed)
            out[(link.tier, chosen["name"], bool(chosen.get("transceivers")))] += 1
    return out


def test_semianalysis_copper_alternative_puts_every_gpu_link_on_dac():
    # SemiAnalysis, "100,000 H100 Clusters" (June 2024): the non-rail design replaces the 98,304
    # GPU-to-leaf optics by copper, a quarter to a third of the fabric's links.
    plan = plan_of("semianalysis-98k-tor")
    assert plan.summary["gpus"] == 98304 and plan.summary["backend"]["tiers"] == 3
    by = _media_by_tier(plan)
    tiers = collections.Counter()
    for (tier, _name, _optics), n in by.items():
        tiers[tier] += n
    assert tiers == {"server": 98304, "leaf-spine": 98304, "spine-superspine": 98304}
    assert by[("server", "DAC", False)] == 98304
    copper = sum(n for (_tier, name, _optics), n in by.items() if name == "DAC")
    assert copper * 3 == sum(tiers.values())  # exactly a third: every tier non-blocking
    # The same cluster re-planned rail-optimized (the comparison's row) puts its GPU links on optics.
    rail = build_plan(design_spec(plan.spec, "rail_optimized", plan.catalog))
    rail_gpu_optical = sum(n for (tier, name, _optics), n in _media_by_tier(rail).items()
                           if tier == "server" and name != "DAC")
    assert rail_gpu_optical >= 0.95 * 98304


def test_a_top_of_rack_hall_is_rows_of_racks_not_a_row_per_rack():
    # A top-of-rack unit is one rack: 3,072 units in a row each would make cables kilometres long.
    plan = plan_of("semianalysis-98k-tor")
    lengths = CableLengths.for_spec(plan.spec)
    longest = max(lengths.of(link)[0] for link in plan.links if link.network == "backend")
    assert longest <= 1000
    rows = collections.Counter(rack.row for rack in plan.racks if rack.row >= 0)
    assert max(rows.values()) <= 32 and len(rows) < 3072 // 8


def _independent_transceivers(plan, settings):
    """Two optics per cabled backend link whose media takes pluggable transceivers."""
    lengths, media = CableLengths.for_spec(plan.spec), Media(settings)
    return sum(2 for link in plan.links if link.network == "backend"
               and media.choose(lengths.of(link)[1], link.speed).get("transceivers"))


@pytest.mark.parametrize("name", ["semianalysis-98k-tor", "meta-32k"])
def test_comparison_optics_match_an_independent_count_of_cabled_ports(name):
    plan = plan_of(name)
    settings = settings_for(plan)
    rows = compare(plan, plan_cables(plan, settings), settings)
    built = [row for row in rows if not row.reason]
    assert len(built) >= 3
    for row in built:
        other = plan if row.design == plan.summary["backend"]["design"] else build_plan(
            design_spec(plan.spec, row.design, plan.catalog))
        assert row.bom.total("transceivers") == _independent_transceivers(other, settings), row.design
