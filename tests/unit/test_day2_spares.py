"""Hot spares: the spec keys and their checks, the spare positions in the plan and its outputs, and what a
swap changes (the failed server's rail leaves only: its ports shut, its tenant passed to the spare)."""
import copy

import pytest
from conftest import load_example

from gpufabric import build
from gpufabric.day2 import spares
from gpufabric.errors import SpecError
from gpufabric.export import hostvars, inventory_groups
from gpufabric.plan import build_plan
from gpufabric.structured import structured_configs, switches_of_swap
from gpufabric.tenants import attach, attached, parse_assignment, plan_servers
from gpufabric.validate.expect import Expectation


def lab(spares_per_unit=1, replaced=None):
    raw = copy.deepcopy(load_example("lab"))
    raw["servers"]["spares_per_unit"] = spares_per_unit
    if replaced is not None:
        raw["maintenance"] = {"replaced": replaced}
    return raw


def error_of(raw):
    with pytest.raises(SpecError) as info:
        build_plan(raw)
    assert "\n" not in str(info.value)
    return str(info.value)


def test_the_last_positions_of_each_unit_are_spares_and_keep_their_addresses():
    plain, spared = build_plan(lab(0)), build_plan(lab(1))
    assert [d.name for d in spared.servers if d.spare] == ["lab-gpu0002", "lab-gpu0004"]
    assert not any(d.spare for d in plain.servers)
    # Reserving positions renumbers nothing: every address and cable is the same.
    assert [(d.name, d.mgmt, d.bmc) for d in plain.devices] == [(d.name, d.mgmt, d.bmc) for d in spared.devices]
    assert [(lk.a.name, lk.a_port, lk.b.name, lk.b_port, lk.ipv4) for lk in plain.links] == \
        [(lk.a.name, lk.a_port, lk.b.name, lk.b_port, lk.ipv4) for lk in spared.links]
    assert spared.summary["hot_spares"] == {"servers": 2, "per_scalable_unit": 1, "replacing": {}}
    assert "hot_spares" not in plain.summary


def test_spares_show_in_inventory_cabling_and_bom():
    plan = build_plan(lab(1))
    members, _children = inventory_groups(plan)
    assert members["spare_servers"] == ["lab-gpu0002", "lab-gpu0004"]
    assert hostvars(plan)["lab-gpu0002"]["fabric"]["spare"] is True
    assert "spare" not in hostvars(plan)["lab-gpu0001"]["fabric"]
    files = build.render_all(plan, stages=["docs"])
    assert "| lab-gpu0002 (spare) | ens1np0 |" in files["docs/cabling.md"]
    assert "lab-gpu0001 (spare)" not in files["docs/cabling.md"]
    assert "2 of them hot spares" in files["docs/bom.md"]


@pytest.mark.parametrize("raw, message", [
    (lab(2), "servers.spares_per_unit: 2 leaves no working server in a scalable unit of 2 servers: use at most 1"),
    (lab(1, {"lab-gpu0009": "lab-gpu0002"}), "maintenance.replaced.lab-gpu0009: 'lab-gpu0009' is not a server"),
    (lab(1, {"lab-gpu0002": "lab-gpu0004"}), "maintenance.replaced.lab-gpu0002: lab-gpu0002 is itself a spare"),
    (lab(1, {"lab-gpu0001": "lab-gpu0003"}), "maintenance.replaced.lab-gpu0001: 'lab-gpu0003' is not a spare of "
                                             "this cluster (its spares: lab-gpu0002, lab-gpu0004)"),
    (lab(0, {"lab-gpu0001": "lab-gpu0002"}), "is not a spare of this cluster (it has none: set servers.spares_per_unit)"),
    (lab(1, {"lab-gpu0001": "lab-gpu0004"}), "maintenance.replaced.lab-gpu0001: lab-gpu0004 is in scalable unit 2, "
                                             "lab-gpu0001 in 1: use a spare of the failed server's unit"),
    (lab(-1), "servers.spares_per_unit"),
])
def test_bad_spare_keys_are_one_line_naming_the_key(raw, message):
    assert message in error_of(raw)


def test_a_spare_cannot_stand_in_for_two():
    raw = copy.deepcopy(load_example("lab"))
    raw["servers"].update(count=6, per_rack=3)
    raw["backend"]["leaf"]["downlinks"] = 3
    raw["servers"]["spares_per_unit"] = 1
    raw["maintenance"] = {"replaced": {"lab-gpu0001": "lab-gpu0003", "lab-gpu0002": "lab-gpu0003"}}
    assert "lab-gpu0003 already stands in for lab-gpu0001" in error_of(raw)


def test_a_swap_changes_only_the_failed_servers_rail_leaves():
    before = structured_configs(build_plan(lab(1)))
    plan = build_plan(lab(1, {"lab-gpu0001": "lab-gpu0002"}))
    after = structured_configs(plan)
    changed = sorted(h for h in before if before[h] != after[h])
    leaves = sorted({end.peer.name for end in plan.device("lab-gpu0001").ends() if end.link.network == "backend"})
    assert changed == leaves and len(leaves) == plan.summary["rails"]
    for leaf in leaves:
        shut = [p for p in after[leaf]["ethernet_interfaces"] if p["enabled"] != dict(
            (q["name"], q["enabled"]) for q in before[leaf]["ethernet_interfaces"])[p["name"]]]
        assert [(p["peer"], p["enabled"]) for p in shut] == [("lab-gpu0001", False)]
        assert "spare lab-gpu0002 stands in" in shut[0]["description"]
    hv = hostvars(plan)
    assert hv["lab-gpu0001"]["fabric"]["replaced_by"] == "lab-gpu0002"
    assert hv["lab-gpu0002"]["fabric"]["stands_in_for"] == "lab-gpu0001"


def test_validation_expects_nothing_of_a_failed_server():
    plan = build_plan(lab(1, {"lab-gpu0001": "lab-gpu0002"}))
    expect = Expectation(plan)
    assert "lab-gpu0001" not in expect.by_name and "lab-gpu0002" in expect.by_name
    assert not [p for ports in expect.ports.values() for p in ports.values() if p.peer == "lab-gpu0001"]


def test_the_spare_takes_the_failed_servers_tenant():
    plan = build_plan(lab(1, {"lab-gpu0001": "lab-gpu0002"}))
    data = {"isolation": "acl", "tenants": {"alpha": {"servers": ["lab-gpu0001", "lab-gpu0003"]}}}
    attach(plan, parse_assignment(data, plan_servers(plan)))
    effective = attached(plan)
    assert effective.tenant_of("lab-gpu0002") == "alpha"
    assert effective.tenant_of("lab-gpu0001") == "free"
    assert effective.tenant_of("lab-gpu0003") == "alpha"


def test_a_spare_stands_in_in_vrf_mode_with_the_tenant_ids():
    from gpufabric.structured import structured_configs, switches_of_swap
    plan = build_plan(lab(1, {"lab-gpu0001": "lab-gpu0002"}))
    data = {"isolation": "vrf", "tenants": {"alpha": {"id": 3, "servers": ["lab-gpu0001", "lab-gpu0003"]}}}
    attach(plan, parse_assignment(data, plan_servers(plan)))
    assert attached(plan).ids == {"alpha": 3}
    vrfs = structured_configs(plan, ["lab-r0-leaf01"])["lab-r0-leaf01"]["tenant_isolation"]["vrfs"]
    assert [(v["name"], v["community"], v["servers"]) for v in vrfs] == [("Vrf-alpha", "64512:3", ["lab-gpu0002"])]


def test_a_spare_already_in_a_tenant_is_refused():
    plan = build_plan(lab(1, {"lab-gpu0001": "lab-gpu0002"}))
    data = {"isolation": "acl", "tenants": {"beta": {"servers": ["lab-gpu0002"]}}}
    with pytest.raises(SpecError) as info:
        attach(plan, parse_assignment(data, plan_servers(plan)))
    assert "spare lab-gpu0002 is in tenant beta" in str(info.value)


def test_with_swap_adds_and_restores_on_top_of_the_spec():
    raw = lab(1, {"lab-gpu0003": "lab-gpu0004"})
    swapped = spares.with_swap(raw, {"lab-gpu0001": "lab-gpu0002"})
    assert swapped["maintenance"]["replaced"] == {"lab-gpu0003": "lab-gpu0004", "lab-gpu0001": "lab-gpu0002"}
    assert spares.with_swap(swapped, restore=["lab-gpu0001"])["maintenance"]["replaced"] == {"lab-gpu0003": "lab-gpu0004"}
    assert raw["maintenance"]["replaced"] == {"lab-gpu0003": "lab-gpu0004"}   # the input is not changed


def test_a_tenant_change_over_a_swapped_plan_keeps_the_stand_in():
    """tenants.yml renders its phases by attaching assignments and putting the previous one back."""
    from gpufabric.tenants.change import plan_change
    plan = build_plan(lab(1, {"lab-gpu0001": "lab-gpu0002"}))
    old = parse_assignment({"isolation": "acl", "tenants": {"alpha": {"servers": ["lab-gpu0001"]}}}, plan_servers(plan))
    new = parse_assignment({"isolation": "acl", "tenants": {"alpha": {"servers": ["lab-gpu0001", "lab-gpu0003"]}}},
                           plan_servers(plan))
    attach(plan, old)
    change = plan_change(plan, old, new)
    assert [m["server"] for m in change["moves"]] == ["lab-gpu0003"]
    assert attached(plan).tenant_of("lab-gpu0002") == "alpha"
    assert attached(plan).tenant_of("lab-gpu0001") == "free"


def test_the_measured_reach_of_a_swapped_plan_is_the_stand_ins():
    """Reach (validation's tenant_isolation) attaches the fabric's assignment again: it stays as it is."""
    from gpufabric.tenants.reach import Reach, rail_nics
    plan = build_plan(lab(1, {"lab-gpu0001": "lab-gpu0002"}))
    attach(plan, parse_assignment({"isolation": "acl", "tenants": {"alpha": {"servers": ["lab-gpu0001", "lab-gpu0003"]}}},
                                  plan_servers(plan)))
    reach, nics = Reach(plan, attached(plan)), rail_nics(plan)
    spare, peer, failed = nics["lab-gpu0002"][0], nics["lab-gpu0003"][0], nics["lab-gpu0001"][0]
    assert reach.both_ways(spare, peer) and not reach.both_ways(failed, peer)


def test_the_switches_of_a_swap_follow_the_tenants():
    swapped, plain = build_plan(lab(1, {"lab-gpu0001": "lab-gpu0002"})), build_plan(lab(1))
    rail_leaves = sorted({e.peer.name for e in plain.device("lab-gpu0001").ends() if e.link.network == "backend"})
    assert switches_of_swap(swapped, plain) == rail_leaves
    data = {"isolation": "acl", "tenants": {"alpha": {"servers": ["lab-gpu0001", "lab-gpu0003"]}}}
    for plan in (swapped, plain):
        attach(plan, parse_assignment(data, plan_servers(plan)))
    other = {e.peer.name for e in plain.device("lab-gpu0003").ends() if e.link.network == "backend"}
    assert switches_of_swap(swapped, plain) == sorted(set(rail_leaves) | other)
