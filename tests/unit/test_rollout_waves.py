"""Rollout waves (day2/rollout.py): what a wave may take away, judged by the drain's own refusal and by the cables."""
import copy
import json

import pytest
from conftest import load_example
from hypothesis import given
from hypothesis import strategies as st
from test_planner_properties import SETTINGS, plan_or_none, specs

from gpufabric.day2 import drain, rollout
from gpufabric.errors import SpecError
from gpufabric.plan import build_plan


def uplink_loss(plan, wave):
    """{switch not in the wave: share of its uplink speed towards the wave}, from the cables alone."""
    total, lost = {}, {}
    routed = {d.name for d in plan.devices if d.role != "gpu_server" and d.asn is not None}
    for link in plan.links:
        if link.tier in drain.FABRIC_TIERS and link.a.name in routed and link.b.name in routed:
            low = link.b.name
            total[low] = total.get(low, 0) + link.speed
            if link.a.name in wave:
                lost[low] = lost.get(low, 0) + link.speed
    return {n: lost.get(n, 0) / total[n] for n in total if n not in wave}


def check_waves(plan, waves, limit):
    """Every rule of a wave, checked with the drain's refusal (drain.drain_impact) and the plan's links."""
    seen = [n for w in waves for n in w["members"]]
    switches = [d.name for d in plan.devices if d.role in rollout.ROLE_ORDER]
    assert sorted(seen) == sorted(switches), "every switch in exactly one wave"
    servers_of, peers = {}, {}
    for link in plan.links:
        if link.tier == "server":
            leaf, host = (link.a, link.b) if link.a.role.endswith("_leaf") else (link.b, link.a)
            servers_of.setdefault(leaf.name, set()).add(host.name)
        if link.tier in ("peer", "oob") and link.a.role == link.b.role and link.a.role in ("frontend_leaf", "oob_switch"):
            peers.setdefault(link.a.name, set()).add(link.b.name)
            peers.setdefault(link.b.name, set()).add(link.a.name)
    count = {}
    for dev in plan.devices:
        count[dev.role] = count.get(dev.role, 0) + 1
    for wave in waves:
        members, role = wave["members"], wave["role"]
        assert {plan.device(n).role for n in members} == {role}
        if role.endswith("_leaf") or role == "oob_switch":
            assert len(members) <= max(1, int(count[role] * limit + 1e-9))
            for i, a in enumerate(members):
                for b in members[i + 1:]:
                    assert not servers_of.get(a, set()) & servers_of.get(b, set()), "%s, %s share a server" % (a, b)
                    assert b not in peers.get(a, ()), "%s, %s are one pair" % (a, b)
            continue
        cut = drain.drain_impact(plan, members)["cut_pairs"]
        worst = max(uplink_loss(plan, set(members)).values(), default=0)
        if len(members) > 1:
            assert not cut, "wave %s cuts %s" % (members, cut[0])
            assert worst <= limit + 1e-9, "wave %s takes %.2f of a switch's uplinks" % (members, worst)
        elif cut or worst > limit + 1e-9:
            # One switch at a time is the least a rollout can do; the wave says why it goes alone.
            assert wave["why"].startswith("alone:"), wave


@SETTINGS
@given(specs(), st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]))
def test_no_wave_cuts_a_leaf_pair_or_takes_more_than_max_capacity_loss(spec, limit):
    spec = dict(spec, maintenance={"max_capacity_loss": limit})
    plan = plan_or_none(spec)
    if plan is None:
        return
    check_waves(plan, rollout.plan_waves(plan), limit)


@pytest.mark.parametrize("example", ["lab", "twin-256", "planes-3tier-small", "tor-lab", "cumulus-lab", "mixed-lab",
                                     "railonly-small", "superpod-1k"])
def test_examples_keep_every_rule(example):
    plan = build_plan(load_example(example))
    check_waves(plan, rollout.plan_waves(plan), rollout.max_capacity_loss(plan))


def test_h100_100k_spine_and_superspine_waves_at_most_a_plane():
    plan = build_plan(load_example("h100-100k"))
    waves = rollout.plan_waves(plan)
    planes = {}
    for dev in plan.by_role("backend_superspine"):
        planes[dev.plane] = planes.get(dev.plane, 0) + 1
    upper = [w for w in waves if w["role"] in ("backend_spine", "backend_superspine")]
    assert len(upper) <= max(planes.values()), (len(upper), max(planes.values()))
    # Wide waves, each still within the rule: a quarter of a pod's 64 spines, four superspines of each plane.
    assert [len(w["members"]) for w in upper] == [256] * 4 + [400] * 4
    spines = upper[4]["members"]
    assert max(uplink_loss(plan, set(spines)).values()) == 0.25
    assert not drain.drain_impact(plan, spines)["cut_pairs"]


def test_two_spines_go_one_at_a_time_with_the_reason():
    plan = build_plan(load_example("lab"))
    spines = [w for w in rollout.plan_waves(plan) if w["role"] == "backend_spine"]
    assert [w["members"] for w in spines] == [["lab-spine01"], ["lab-spine02"]]
    assert spines[0]["why"].startswith("alone: it takes 50% of lab-r0-leaf01's uplink capacity")
    assert spines[0]["capacity_left"] == {"least": 0.5, "switch": "lab-r0-leaf01"}


def test_a_kept_drain_leaves_the_last_spine_alone_and_says_the_drain_refuses_it():
    raw = drain.with_drain(load_example("lab"), ["lab-spine01"])
    spines = [w for w in rollout.plan_waves(build_plan(raw)) if w["role"] == "backend_spine"]
    last = next(w for w in spines if w["members"] == ["lab-spine02"])
    assert "takes the last path between" in last["why"] and "refuses" in last["why"]


def test_four_spines_at_half_go_two_at_a_time():
    raw = load_example("twin-256")
    raw["backend"]["leaf"]["uplinks"] = 4
    raw["maintenance"] = {"max_capacity_loss": 0.5}
    plan = build_plan(raw)
    spines = [w["members"] for w in rollout.plan_waves(plan) if w["role"] == "backend_spine"]
    assert spines == [["t256-spine01", "t256-spine02"], ["t256-spine03", "t256-spine04"]]


def test_leaf_waves_take_one_rail_of_each_server():
    plan = build_plan(load_example("twin-256"))
    leaves = [w for w in rollout.plan_waves(plan) if w["role"] == "backend_leaf"]
    assert len(leaves) == 8
    assert all({plan.device(n).rail for n in w["members"]} == {i} for i, w in enumerate(leaves))
    assert leaves[0]["capacity_left"] == {"least": 0.875, "server": "t256-gpu0001"}


def test_rollout_is_deterministic_and_names_its_setting():
    raw = load_example("twin-256")
    first = json.dumps(rollout.rollout(build_plan(copy.deepcopy(raw))))
    assert first == json.dumps(rollout.rollout(build_plan(copy.deepcopy(raw))))
    doc = json.loads(first)
    assert doc["max_capacity_loss"] == 0.25 and doc["max_capacity_loss_from"].startswith("the default")
    assert [w["wave"] for w in doc["waves"]] == list(range(1, len(doc["waves"]) + 1))
    raw["maintenance"] = {"max_capacity_loss": 0.5}
    assert json.loads(json.dumps(rollout.rollout(build_plan(raw))))["max_capacity_loss_from"] == rollout.SPEC_KEY


@pytest.mark.parametrize("value, words", [(1.5, "1.5 is too large: the maximum is 1"),
                                          (-0.1, "-0.1 is too small: the minimum is 0"),
                                          ("half", "expected a number, got a string 'half'")])
def test_bad_max_capacity_loss_is_one_line_naming_the_key(value, words):
    raw = load_example("lab")
    raw["maintenance"] = {"max_capacity_loss": value}
    with pytest.raises(SpecError) as err:
        build_plan(raw)
    assert str(err.value) == "maintenance.max_capacity_loss: " + words


def test_a_run_again_starts_at_the_wave_that_failed():
    waves = [{"role": "backend_spine", "members": ["s1", "s2"]}, {"role": "backend_spine", "members": ["s3", "s4"]},
             {"role": "backend_leaf", "members": ["l1", "l2"]}, {"role": "backend_leaf", "members": ["l3"]}]
    # Wave 1 done, s3 failed (rolled back, so it differs again), s4 changed before the play stopped.
    assert rollout.pending_batches(waves, ["s3", "l1", "l2", "l3"]) == {
        "order": [["backend_spine", "s3"], ["backend_leaf", "l1"], ["backend_leaf", "l2"], ["backend_leaf", "l3"]],
        "sizes": {"backend_spine": [1], "backend_leaf": [2, 1]},
        "wave_of": {"s3": ["s3"], "l1": ["l1", "l2"], "l2": ["l1", "l2"], "l3": ["l3"]}}
    assert rollout.pending_batches(waves, []) == {"order": [], "sizes": {}, "wave_of": {}}
