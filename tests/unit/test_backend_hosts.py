"""Backend hosts that are not GPU servers (storage, UFM/management): declared in the spec, placed, cabled
and addressed like servers at the positions after the last GPU server, in every output."""
import copy

import pytest

from conftest import load_example
from gpufabric.build import render_all
from gpufabric.errors import SpecError
from gpufabric.export import hostvars, inventory_groups
from gpufabric.plan import build_plan

UFM = {"description": "NVIDIA UFM appliance (stand-in)", "gpus": 4,
       "backend_nics": [{"name": "ib%d" % i, "speed": 400} for i in range(4)],
       "mgmt_port": {"name": "eno1", "speed": 1}, "bmc_port": {"name": "bmc", "speed": 1}}


def _superpod(servers, hosts=None):
    spec = copy.deepcopy(load_example("superpod-1k"))
    spec["frontend"] = None
    spec["servers"]["count"] = servers
    spec["backend"]["spine"] = {"model": "generic-64x400g", "size_for": "cluster"}
    spec["models"] = {"servers": {"ufm-3.1": UFM}}
    spec["backend"]["hosts"] = hosts if hosts is not None else [
        {"name": "ufm", "kind": "management", "model": "ufm-3.1", "count": 1}]
    return spec


@pytest.mark.parametrize("units, nodes, gpus, leaves, spines, node_leaf, leaf_spine", [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (4, 127, 1016, 32, 16, 1020, 1024),
])
def test_superpod_cable_counts_with_ufm(units, nodes, gpus, leaves, spines, node_leaf, leaf_spine):
    # NVIDIA DGX SuperPOD reference architecture, DGX H100 (RA-11333-001), "Larger SuperPOD component
    # counts": a scalable unit of 32 positions holds 31 DGX H100 and the UFM appliance, whose 4 ports
    # take leaf ports of the 32nd position: 252 node-leaf cables where the GPUs use 248 (1 SU), and the
    # "4 SU, 127-node" SuperPOD. The spines follow the SU count (4, 8, 16; spine.size_for: cluster).
    plan = build_plan(_superpod(nodes))
    s = plan.summary
    assert (s["servers"], s["gpus"], s["backend"]["scalable_units"]) == (nodes, gpus, units)
    assert (s["devices_by_role"]["backend_leaf"], s["devices_by_role"]["backend_spine"]) == (leaves, spines)
    assert (s["links"]["backend server"], s["links"]["backend leaf-spine"]) == (node_leaf, leaf_spine)
    assert s["devices_by_role"]["backend_host"] == 1 and s["switches"] == leaves + spines + s["devices_by_role"][
        "oob_switch"]


def test_a_host_is_cabled_and_addressed_like_the_server_at_its_position():
    plan = build_plan(_superpod(31))
    ufm = plan.device("spod1k-ufm01")
    assert ufm.role == "backend_host" and ufm.kind == "management" and ufm.position == 31
    backend = [e for e in ufm.ends() if e.link.network == "backend"]
    # NIC i to rail i's leaf, at the leaf port of position 31, the upper address of that position's /31
    assert [(e.peer.rail, e.peer_port) for e in backend] == [(r, "Ethernet248") for r in range(4)]
    for end in backend:
        base, prefix = end.peer.server_block
        assert end.link.ipv4 == base + 2 * 31 and end.ipv4.endswith("/31")
    oob = [e.port for e in ufm.ends() if e.link.network == "oob"]
    assert sorted(oob) == ["bmc", "eno1"] and ufm.bmc is not None and ufm.mgmt == ufm.bmc + 1
    addresses = [d.bmc for d in plan.servers + plan.hosts] + [d.mgmt for d in plan.servers + plan.hosts]
    assert len(addresses) == len(set(addresses))


def test_hosts_appear_in_inventory_bom_cabling_and_leaf_configs():
    plan = build_plan(_superpod(31, [{"name": "ufm", "kind": "management", "model": "ufm-3.1", "count": 1},
                                     {"name": "stor", "kind": "storage", "count": 2, "nics": 2}]))
    members, _children = inventory_groups(plan)
    assert members["backend_host_storage"] == ["spod1k-stor01", "spod1k-stor02"]
    assert members["backend_host_management"] == ["spod1k-ufm01"]
    fab = hostvars(plan)["spod1k-stor02"]["fabric"]
    backend = [i for i in fab["interfaces"] if i["network"] == "backend"]
    assert fab["kind"] == "storage" and len(backend) == 2 and all(i["mtu"] == 9000 for i in backend)
    files = render_all(plan, stages=["structured", "configs", "docs"])
    bom = files["docs/bom.md"]
    assert "| ufm-3.1 |" in bom and "(backend_host)" in bom
    cabling = files["docs/cabling.csv"] if "docs/cabling.csv" in files else files["docs/cabling.md"]
    assert "spod1k-stor02" in cabling
    # the storage hosts take positions 32 and 33: the second scalable unit's first two leaf ports
    leaf = files["devices/spod1k-r1-leaf02/structured.yml"]
    assert "peer: spod1k-stor02" in leaf and "peer: spod1k-stor01" in leaf


@pytest.mark.parametrize("hosts, message", [
    ([{"name": "ufm", "kind": "management", "count": 1, "nics": 9}],
     "backend.hosts[0].nics: 9 NICs, but XE9680 has 8 backend NICs and there are 8 rails"),
    ([{"name": "ufm", "kind": "management", "count": 1}, {"name": "ufm", "kind": "storage", "count": 1}],
     "backend.hosts[1].name: 'ufm' names two host groups"),
    ([{"name": "x", "kind": "tape", "count": 1}], "backend.hosts[0].kind"),
])
def test_bad_hosts_are_refused_in_one_line(hosts, message):
    with pytest.raises(SpecError) as info:
        build_plan(_superpod(31, hosts))
    assert str(info.value).startswith(message) and "\n" not in str(info.value)
