"""The running tenant assignment read from the rail leaves (nos/sonic/tenancy.py, tenants/live.py): what each
leaf's running CONFIG_DB enforces, put together, is the assignment that was applied, in both modes; leaves that
disagree are named and re-applied first; a leaf not read is an error."""
import json

import pytest

from conftest import load_example
from tenant_helpers import example, rendered
from gpufabric.nos.sonic import tenancy
from gpufabric.nos.sonic.config_db import config_db
from gpufabric.plan import build_plan
from gpufabric.tenants import AssignmentError
from gpufabric.tenants.change import plan_change
from gpufabric.tenants.live import running


@pytest.fixture(scope="module")
def plan():
    return build_plan(load_example("lab"))


def readings(plan, assignment):
    """{leaf: bindings} as the leaves report them once ``assignment`` is applied (the JSON they print)."""
    leaves = [d.name for d in plan.by_role("backend_leaf")]
    cfgs = rendered(plan, assignment, leaves)
    return {leaf: tenancy.bindings(json.dumps(config_db(cfgs[leaf]))) for leaf in leaves}


@pytest.mark.parametrize("name", ["lab.tenants.yml", "lab-moved.tenants.yml", "lab-vrf.tenants.yml"])
def test_the_leaves_give_back_the_assignment_they_enforce(plan, name):
    applied = example(plan, name)
    found, drifted, lines = running(plan, readings(plan, applied), applied.ids)
    assert found == applied and found.isolation == applied.isolation
    assert drifted == [] and lines == []
    assert plan_change(plan, found, applied)["phases"] == []


@pytest.mark.parametrize("new_name", ["lab.tenants.yml", "lab-moved.tenants.yml"])
def test_leaving_vrf_mode_plans_from_the_running_vrfs_without_their_ids(plan, new_name):
    """The new file in ACL mode gives the running VRF tenants no id (a switch does not show it): the change is still
    planned, every VRF taken away, and the ids never reach a phase."""
    running_vrfs = example(plan, "lab-vrf.tenants.yml")
    new = example(plan, new_name)
    found, drifted, _lines = running(plan, readings(plan, running_vrfs), new.ids)
    assert found.isolation == "vrf" and found.tenants == running_vrfs.tenants and drifted == []
    assert sorted(found.ids.values()) == [1, 2]
    change = plan_change(plan, found, new)
    assert change["phases"][0]["name"] == "revoke"
    assert all(leaf["vrfs"] and all(v.endswith(" removed") for v in leaf["vrfs"])
               for leaf in change["phases"][0]["leaves"].values())
    assert all(phase["assignment"].isolation == "acl" and not phase["assignment"].ids for phase in change["phases"])


def test_an_open_fabric_reads_as_none(plan):
    assert running(plan, readings(plan, None)) == (None, [], [])


def test_leaves_that_disagree_are_named_and_reapplied_first(plan):
    first, moved = example(plan, "lab.tenants.yml"), example(plan, "lab-moved.tenants.yml")
    got = readings(plan, first)
    after = readings(plan, moved)
    # A move stopped half way: one leaf of lab-gpu0003 already holds it in its new tenant.
    changed = sorted(leaf for leaf in got if got[leaf] != after[leaf])
    assert changed
    got[changed[0]] = after[changed[0]]
    found, drifted, lines = running(plan, got, first.ids)
    assert found.tenant_of("lab-gpu0003") == "free"
    assert drifted == [changed[0]]
    assert any("lab-gpu0003" in line and changed[0] in line for line in lines)
    change = plan_change(plan, found, first, drifted)
    assert change["phases"] and changed[0] in change["phases"][0]["hosts"]


def test_a_leaf_not_read_is_named(plan):
    got = readings(plan, example(plan, "lab.tenants.yml"))
    del got["lab-r2-leaf01"]
    with pytest.raises(AssignmentError, match="lab-r2-leaf01: its running config was not read"):
        running(plan, got)


def test_only_ingress_l3_tables_the_collection_wrote_count():
    db = {"ACL_TABLE": {"TENANT_A": {"type": "L3", "stage": "ingress", "ports": ["Ethernet0"],
                                     "policy_desc": "tenant a: s1"},
                        "EVERFLOW": {"type": "MIRROR", "ports": ["Ethernet8"], "policy_desc": "tenant b: x"},
                        "HAND": {"type": "L3", "stage": "ingress", "ports": "Ethernet16,Ethernet24"},
                        "EGRESS": {"type": "L3", "stage": "egress", "ports": ["Ethernet32"], "policy_desc": "tenant c: y"}},
          "INTERFACE": {"Ethernet40": {"vrf_name": "Vrf-blue"}, "Ethernet40|10.0.0.0/31": {},
                        "Ethernet48": {"vrf_name": "Vrf-mgmt-other"}, "Ethernet56": {}}}
    assert tenancy.bindings(db) == {"acl": {"Ethernet0": "a"}, "vrf": {"Ethernet40": "blue", "Ethernet48": "mgmt-other"}}
    assert tenancy.bindings("") == {"acl": {}, "vrf": {}}
