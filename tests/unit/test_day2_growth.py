"""Growth: the "what to cable" delta by cable ID, and the switches a grown build changes, from the builds
(what a deploy touches) and from the plans (what must change); the two must agree."""
import copy

import pytest
from conftest import load_example

from gpufabric import build
from gpufabric import growth
from gpufabric.plan import build_plan


def grown(count, raw=None):
    raw = copy.deepcopy(raw or load_example("lab"))
    raw["servers"]["count"] = count
    plan = build_plan(raw)
    return plan, build.render_all(plan)


@pytest.fixture(scope="module")
def lab_growth():
    return grown(4), grown(6)


def test_one_scalable_unit_changes_exactly_the_switches_the_plans_say(lab_growth):
    (old_plan, old_files), (new_plan, new_files) = lab_growth
    changed = growth.changed_switches(old_files, new_files)
    assert changed == growth.must_change(old_plan, new_plan)
    old_names = {d.name for d in old_plan.devices}
    existing = [s for s in changed if s in old_names]
    # Existing switches that change: the spines (ports to the new leaves) and the frontend spines (the new pair).
    assert existing == sorted(d.name for d in old_plan.devices if d.role in ("backend_spine", "frontend_spine"))
    new = sorted(d.name for d in new_plan.devices if d.name not in old_names and d.role != "gpu_server")
    assert [s for s in changed if s not in old_names] == new
    assert len(new) == 8 + 2 + 2    # a rail leaf per rail, a frontend pair, the new racks' OOB switches


def test_the_delta_lists_only_the_new_cables_by_id(lab_growth):
    (old_plan, old_files), (new_plan, new_files) = lab_growth
    delta = growth.cabling_delta(old_files["docs/cabling.csv"], new_files["docs/cabling.csv"])
    assert delta["moved"] == [] and delta["removed"] == []
    assert len(delta["new"]) == len(new_plan.links) - len(old_plan.links) > 0
    old_ids = set(growth.read_cabling(old_files["docs/cabling.csv"]))
    assert not old_ids & {row["cable_id"] for row in delta["new"]}
    text = growth.render_delta("lab", delta, growth.changed_switches(old_files, new_files), [])
    assert "%d new cables, 0 to move, 0 to remove" % len(delta["new"]) in text
    assert "Recabling" not in text
    assert all(row["cable_id"] in text for row in delta["new"])


def test_unchanged_builds_change_no_switch(lab_growth):
    (old_plan, old_files), _new = lab_growth
    assert growth.changed_switches(old_files, dict(old_files)) == []
    assert growth.must_change(old_plan, build_plan(copy.deepcopy(load_example("lab")))) == []


def test_a_changed_cable_shows_as_a_move_and_in_the_document():
    head = ",".join(["cable_id", "network", "tier", "speed_gbps", "a_rack", "a_device", "a_port", "b_rack", "b_device",
                     "b_port", "media", "stock_length_m"])
    old = head + "\nc1,backend,server,400,r1,leaf1,Ethernet0,r2,gpu1,ens1,AOC,5\nc2,backend,server,400,r1,leaf1,Ethernet8,r2,gpu2,ens1,AOC,5\n"
    new = head + "\nc1,backend,server,400,r1,leaf1,Ethernet4,r2,gpu1,ens1,AOC,5\nc3,backend,server,400,r1,leaf1,Ethernet8,r2,gpu3,ens1,AOC,5\n"
    delta = growth.cabling_delta(old, new)
    assert [r["cable_id"] for r in delta["new"]] == ["c3"]
    assert [(o["a_port"], n["a_port"]) for o, n in delta["moved"]] == [("Ethernet0", "Ethernet4")]
    assert [r["cable_id"] for r in delta["removed"]] == ["c2"]
    text = growth.render_delta("x", delta, [], [])
    assert "- move c1: leaf1 Ethernet4 -- gpu1 ens1, was leaf1 Ethernet0 -- gpu1 ens1" in text
    assert "- remove c2" in text


def test_a_change_that_is_not_growth_is_told_apart(lab_growth):
    """A changed MTU changes every switch although no cable changes: `unexpected` names them."""
    (old_plan, old_files), _new = lab_growth
    raw = copy.deepcopy(load_example("lab"))
    raw["backend"]["mtu"] = 9100
    plan = build_plan(raw)
    files = build.render_all(plan)
    found = growth.compare_builds(old_files, files, plan)
    assert found["must"] == [] and found["delta"]["new"] == []
    assert set(found["unexpected"]) >= {d.name for d in plan.devices if d.role == "backend_spine"}


def test_growth_within_the_last_unit_changes_its_leaves_and_pair():
    (old_plan, old_files), (new_plan, new_files) = grown(3), grown(4)
    changed = growth.changed_switches(old_files, new_files)
    assert changed == growth.must_change(old_plan, new_plan)
    assert [s for s in changed if "-leaf02" in s and s.startswith("lab-r")] == \
        ["lab-r%d-leaf02" % rail for rail in range(new_plan.summary["rails"])]
    assert not [s for s in changed if "spine" in s]
