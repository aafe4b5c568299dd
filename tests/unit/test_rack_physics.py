"""Rack physics: a server rack holds what its units and power budget allow; the summary shows racks,
kW per rack and kW in all."""
import copy

import pytest

from conftest import load_example
from gpufabric.errors import SpecError
from gpufabric.plan import build_plan


def _refusal(spec):
    with pytest.raises(SpecError) as err:
        build_plan(spec)
    return str(err.value)


def test_40_xe9680_in_a_42u_rack_are_refused_naming_units_and_kw():
    spec = copy.deepcopy(load_example("lab"))
    spec["servers"].update(count=40, per_rack=40)
    text = _refusal(spec)
    assert text.startswith("servers.per_rack: 40 XE9680") and "\n" not in text
    assert "242U" in text and "42U usable" in text          # 40 x 6U + the OOB switches
    assert "408.0 kW" in text and "45 kW" in text           # 40 x 10.2 kW against the default budget
    assert "use at most 4 per rack" in text


def test_power_alone_can_refuse_and_names_the_budget_key():
    spec = copy.deepcopy(load_example("lab"))
    spec["servers"]["per_rack"] = 5          # 30U fits, 51 kW does not
    text = _refusal(spec)
    assert "51.0 kW of its 45 kW budget (racks.power_kw)" in text and "31U of 42U usable" in text
    spec["racks"] = {"power_kw": 60}
    build_plan(spec)                         # a rack with the power for it


def test_reserved_units_count_against_the_rack():
    spec = copy.deepcopy(load_example("lab"))
    spec["servers"]["per_rack"] = 4          # 24U + OOB
    spec["racks"] = {"units": 42, "reserved_units": 18, "power_kw": 100}
    text = _refusal(spec)
    assert "racks.reserved_units 18" in text and "use at most 3 per rack" in text


def test_summary_shows_racks_and_kw_when_the_spec_declares_its_racks():
    plan = build_plan(load_example("th5-1k"))
    power = plan.summary["rack_power"]
    servers = power["by_kind"]["server"]
    assert servers["racks"] == 128 // 4
    assert servers["max_kw_per_rack"] == pytest.approx(4 * 12.0)
    assert power["budget_kw"] == 50 and power["rack_units"] == 42
    switches_kw = sum(d.model.power_max_w or 0 for d in plan.devices if d.role.endswith(("leaf", "spine"))) / 1000.0
    assert power["kw_total"] == pytest.approx(128 * 12.0 + switches_kw)
    assert "rack_power" not in build_plan(load_example("lab")).summary     # unchanged without a racks section
