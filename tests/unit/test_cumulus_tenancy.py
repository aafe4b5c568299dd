"""The running tenant assignment of Cumulus rail leaves (nos/cumulus/tenancy.py): what `nv config show -o json` prints
of a leaf the collection configured gives back the assignment that was applied, in both isolation modes, for tenant
names with dashes too; ACLs the collection did not write, ACLs bound outbound or not defined isolate nothing."""
import json

import pytest

from conftest import load_example
from tenant_helpers import rendered
from gpufabric.nos.cumulus import nvue, tenancy
from gpufabric.plan import build_plan
from gpufabric.tenants import Assignment, plan_servers
from gpufabric.tenants.change import plan_change
from gpufabric.tenants.live import running


@pytest.fixture(scope="module")
def plan():
    return build_plan(load_example("cumulus-lab"))


def shown(cfg):
    """What `nv config show -o json` prints on a switch running ``cfg``'s startup.yaml: its documents, as JSON."""
    return json.dumps(nvue.startup(cfg, "5.14"))


def readings(plan, assignment):
    leaves = [d.name for d in plan.by_role("backend_leaf")]
    cfgs = rendered(plan, assignment, leaves)
    return {leaf: tenancy.bindings(shown(cfgs[leaf])) for leaf in leaves}


def assignment(plan, isolation, tenants, ids=None):
    return Assignment(tenants, plan_servers(plan), isolation, ids or {})


@pytest.mark.parametrize("isolation", ["acl", "vrf"])
def test_the_leaves_give_back_the_assignment_they_enforce(plan, isolation):
    applied = assignment(plan, isolation, {"alpha": ["cumuluslab-gpu0001", "cumuluslab-gpu0003"],
                                           "team-b": ["cumuluslab-gpu0002"]}, {"alpha": 1, "team-b": 2})
    got = readings(plan, applied)
    mode = "vrf" if isolation == "vrf" else "acl"
    assert all(found[mode] for found in got.values())
    found, drifted, lines = running(plan, got, applied.ids)
    assert found == applied and found.isolation == isolation
    assert drifted == [] and lines == []
    assert plan_change(plan, found, applied)["phases"] == []
    # The server in no tenant sits behind the free pool's ACL (QUARANTINE), in both modes.
    free_port = {leaf: [p for p, t in b["acl"].items() if t == "free"] for leaf, b in got.items()}
    assert any(free_port.values())


def test_an_open_fabric_reads_as_none(plan):
    assert running(plan, readings(plan, None)) == (None, [], [])


def test_only_inbound_ipv4_acls_the_collection_names_count():
    tree = {"acl": {"TENANT_A_B": {"type": "ipv4"}, "QUARANTINE": {"type": "ipv4"}, "GPUFABRIC_MGMT": {"type": "ipv4"},
                    "TENANT_MAC": {"type": "mac"}},
            "interface": {"swp1": {"acl": {"TENANT_A_B": {"inbound": {}}}},
                          "swp2": {"acl": {"QUARANTINE": {"inbound": {}}}},
                          "swp3": {"acl": {"TENANT_A_B": {"outbound": {}}}},
                          "swp4": {"acl": {"GPUFABRIC_MGMT": {"inbound": {}}}},
                          "swp5": {"acl": {"TENANT_MAC": {"inbound": {}}}},
                          "swp6": {"acl": {"TENANT_GONE": {"inbound": {}}}},
                          "swp7": {"ip": {"vrf": "Vrf-blue"}}, "swp8": {"ip": {"vrf": "mgmt"}}, "swp9": None}}
    docs = [{"header": {"rev-id": 1.0}}, {"set": tree}]
    assert tenancy.bindings(json.dumps(docs)) == {"acl": {"swp1": "a-b", "swp2": "free"}, "vrf": {"swp7": "blue"}}
    assert tenancy.bindings("") == {"acl": {}, "vrf": {}}
    with pytest.raises(ValueError):
        tenancy.bindings('"text"')
