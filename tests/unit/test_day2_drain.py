"""Drain state: spec -> structured config -> frr.conf, the safety analysis, and validation of a drained fabric."""
import copy

import pytest
from conftest import load_example
from validate_helpers import collector_of, healthy_states

from gpufabric.day2 import drain
from gpufabric.errors import SpecError
from gpufabric.frr_linux import drain as frr_drain
from gpufabric.plan import build_plan
from gpufabric.nos.sonic.render import frr_conf
from gpufabric.structured import structured_configs
from gpufabric.validate.runner import validate


@pytest.fixture(scope="module")
def lab_raw():
    return load_example("lab")


def plan_with(raw, drained):
    return build_plan(drain.with_drain(raw, drained))


def test_only_the_drained_switch_changes(lab_raw):
    plain = structured_configs(build_plan(lab_raw))
    drained = structured_configs(plan_with(lab_raw, ["lab-spine01"]))
    changed = sorted(h for h in plain if plain[h] != drained[h])
    assert changed == ["lab-spine01"]
    assert drained["lab-spine01"]["bgp"]["drain"] == {"route_map": "GPUFABRIC_DRAIN", "prepend": [64513] * 3,
                                                      "community": "graceful-shutdown"}


def test_drained_frr_conf_holds_the_vtysh_drain_lines(lab_raw):
    cfg = structured_configs(plan_with(lab_raw, ["lab-spine02"]))["lab-spine02"]
    text = [line.strip() for line in frr_conf(cfg).splitlines()]
    for command in frr_drain.commands(cfg["bgp"]):
        if command not in ("configure terminal", "end"):
            assert command in text, command
    plain = structured_configs(build_plan(lab_raw))["lab-spine02"]
    assert "GPUFABRIC_DRAIN" not in frr_conf(plain)


def test_undrain_commands_remove_what_drain_adds(lab_raw):
    bgp = structured_configs(build_plan(lab_raw))["lab-spine01"]["bgp"]
    off = frr_drain.commands(bgp, drain=False)
    assert "no neighbor FABRIC route-map GPUFABRIC_DRAIN out" in off and "no route-map GPUFABRIC_DRAIN" in off
    assert off.index("no neighbor FABRIC route-map GPUFABRIC_DRAIN out") < off.index("no route-map GPUFABRIC_DRAIN")


def test_unknown_or_unrouted_name_is_one_line(lab_raw):
    for name, words in (("lab-spine09", "is not in this cluster"), ("lab-gpu0001", "is not a BGP switch")):
        with pytest.raises(SpecError) as err:
            structured_configs(plan_with(lab_raw, [name]))
        assert str(err.value).startswith("maintenance.drained: %r %s" % (name, words))


def test_last_spine_is_refused_one_spine_is_fine(lab_raw):
    assert drain.check_drain(build_plan(lab_raw), ["lab-spine02"]) == (None, [])
    refusal, _warn = drain.check_drain(plan_with(lab_raw, ["lab-spine01"]), ["lab-spine02"])
    assert refusal.startswith("draining lab-spine02 would drain the last path between lab-r0-leaf01 and lab-r0-leaf02")
    refusal, _warn = drain.check_drain(build_plan(lab_raw), ["lab-fe-spine01", "lab-fe-spine02"])
    assert "lab-fe-leaf01a and lab-fe-leaf01b" in refusal


def test_backend_leaf_needs_confirmation_frontend_leaf_warns(lab_raw):
    plan = build_plan(lab_raw)
    refusal, warnings = drain.check_drain(plan, ["lab-r3-leaf02"])
    assert refusal == ("lab-r3-leaf02 is the only rail 3 leaf of 2 servers (lab-gpu0003, lab-gpu0004): they lose rail 3 "
                       "while it is down; set confirm_leaf_drain=true to drain it anyway")
    assert drain.check_drain(plan, ["lab-r3-leaf02"], confirm_leaf=True) == (None, warnings)
    refusal, warnings = drain.check_drain(plan, ["lab-fe-leaf01b"])
    assert refusal is None and "keep their other frontend leaf" in warnings[0]


def test_only_a_backend_leaf_needs_confirmation(lab_raw):
    plan = build_plan(lab_raw)
    needs = {name: drain.needs_confirmation(plan, [name])
             for name in ("lab-r3-leaf02", "lab-spine01", "lab-fe-leaf01a", "lab-fe-spine02")}
    assert needs == {"lab-r3-leaf02": True, "lab-spine01": False, "lab-fe-leaf01a": False, "lab-fe-spine02": False}


def test_validation_expects_ecmp_without_the_drained_spine(lab_raw):
    plan = plan_with(lab_raw, ["lab-spine01"])
    states = healthy_states(build_plan(lab_raw))
    fails = [r for r in validate(plan, collector_of(states))["results"] if r.status == "FAIL"]
    # Still over both spines: the drain has not taken effect, every leaf is named.
    assert sorted({r.device for r in fails}) == sorted(d.name for d in plan.by_role("backend_leaf"))
    assert "still through drained lab-spine01" in fails[0].message
    shifted = copy.deepcopy(states)
    for leaf in plan.by_role("backend_leaf"):
        for route in shifted[leaf.name].routes.values():
            route["nexthops"] = [h for h in route["nexthops"] if h["interface"] != "Ethernet16"]
    assert [r for r in validate(plan, collector_of(shifted))["results"] if r.status == "FAIL"] == []
