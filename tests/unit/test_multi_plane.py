"""Multi-plane fabrics (backend.planes): each NIC port in a plane of its own, every plane a whole fabric.

NVIDIA's DGX SuperPOD B300 on Spectrum-4 Ethernet publishes, per number of scalable units of 64 DGX B300, the
compute fabric's leaves, spines, node-leaf cables and leaf-spine cables ("NVIDIA DGX SuperPOD: DGX B300 Systems,
Spectrum-4 Ethernet and DC Busbar Power", DGX SuperPOD Architecture, Table 3 "Larger DGX SuperPOD component
counts", docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/
dgx-superpod-architecture.html). Its fabric is twin-planar: every GPU's ConnectX-8 gives 2 x 400GbE, one port a
plane, on SN5600 leaves and spines (64 x 800G cages at 2 x 400G). The plan below is the spec a user writes
for it; the counts come out of the planner and are compared with the published ones.
"""
import copy

import pytest

from conftest import load_example
from gpufabric.errors import SpecError
from gpufabric.export import hostvars, inventory_groups
from gpufabric.plan import build_plan
from gpufabric.plan.planes import check_isolated, port_names
from gpufabric.structured.server import server_configs

# SU count: (nodes, GPUs, leaves, spines, node-leaf cables, leaf-spine cables), as published.
NVIDIA_B300_SPECTRUM4 = {
    1: (64, 512, 16, 8, 512, 512),
    2: (128, 1024, 32, 16, 1024, 1024),
    4: (256, 2048, 64, 32, 2048, 2048),
    8: (512, 4096, 128, 64, 4096, 4096),
    16: (1024, 8192, 256, 128, 8192, 8192),
}


def b300_spec(nodes):
    return {"cluster": {"name": "b300"}, "servers": {"model": "XE9780", "count": nodes, "per_rack": 4},
            "racks": {"units": 48, "power_kw": 60},
            "backend": {"design": "rail_optimized", "planes": 2,
                        # 800G cages as 2 x 400G on both sides of the leaf; spines as few as the SUs need
                        "leaf": {"model": "SN5600", "uplink_breakout": "2x400G"},
                        "spine": {"model": "SN5600", "size_for": "cluster"}},
            "oob": {"switch": {"model": "S3248T-ON"}}}


@pytest.mark.parametrize("units", sorted(NVIDIA_B300_SPECTRUM4))
def test_nvidia_dgx_b300_spectrum4_table_is_reproduced(units):
    nodes, gpus, leaves, spines, node_leaf, leaf_spine = NVIDIA_B300_SPECTRUM4[units]
    plan = build_plan(b300_spec(nodes))
    s = plan.summary
    m = s["multi_plane"]
    assert s["gpus"] == gpus and s["backend"]["scalable_units"] == units
    assert s["devices_by_role"]["backend_leaf"] == leaves == m["total"]["leaves"]
    assert s["devices_by_role"]["backend_spine"] == spines == m["total"]["spines"]
    # NVIDIA counts a cable per cage: a NIC's twin-port optic carries its two plane ports (two fibres to two
    # leaves), a leaf's 800G uplink cage two 400G links
    assert m["cables"]["node_leaf"] == node_leaf
    assert m["cables"]["leaf_spine"] == leaf_spine
    assert m["cables"]["node_leaf_fibres"] == 2 * node_leaf == s["links"]["backend server"]
    # two planes of equal halves, each two tiers
    assert m["count"] == 2 and m["each_plane_tiers"] == 2 and s["backend"]["tiers"] == 2
    halves = list(m["planes"].values())
    assert halves[0] == halves[1] and halves[0]["leaves"] == leaves // 2


def test_every_plane_is_two_tiers_up_to_8192_gpus_and_refused_beyond():
    plan = build_plan(b300_spec(1024))
    assert plan.summary["multi_plane"]["max_gpus_per_plane"] == 8192 == 128 ** 2 // 2
    with pytest.raises(SpecError) as info:
        build_plan(b300_spec(1025))
    assert info.value.path == "backend" and "each plane" in str(info.value) and "\n" not in str(info.value)


def test_planes_share_no_switch_and_each_nic_port_reaches_its_own_plane():
    plan = build_plan(b300_spec(128))
    assert check_isolated(plan) == []
    for dev in plan.devices:
        if dev.role.startswith("backend_"):
            planes = {dev.fabric_plane} | {(e.peer.fabric_plane if e.peer.role != "gpu_server" else dev.fabric_plane)
                                           for e in dev.ends() if e.link.network == "backend"}
            assert planes == {dev.fabric_plane}, dev.name
    server = plan.servers[0]
    backend = [e for e in server.ends() if e.link.network == "backend"]
    assert len(backend) == 16
    ports = {e.port: e.peer for e in backend}
    assert ports["ens1f0np0"].fabric_plane == 0 and ports["ens1f1np1"].fabric_plane == 1
    assert ports["ens1f0np0"].rail == ports["ens1f1np1"].rail == 0
    # the check itself can fail: a cable moved into the other plane is named
    link = next(link for link in plan.links if link.tier == "server" and link.b_port == "ens1f1np1")
    link.a = plan.backend.leaves[0]
    assert check_isolated(plan) == ["b300-p1-r0-leaf01 %s (plane 1) - %s ens1f1np1 (plane 2)" % (
        link.a_port, link.b.name)]


def test_planes_have_their_own_asns_and_addresses_and_stay_put_when_the_cluster_grows():
    small, large = build_plan(b300_spec(64)), build_plan(b300_spec(128))
    spine_asns = {d.fabric_plane: d.asn for d in small.backend.spines}
    assert len(set(spine_asns.values())) == 2
    assert len({d.asn for d in small.backend.leaves}) == len(small.backend.leaves)
    after = {d.name: d for d in large.devices}
    for dev in small.backend.leaves:
        again = after[dev.name]
        assert (again.asn, again.loopback, again.server_block, again.fabric_plane) == (
            dev.asn, dev.loopback, dev.server_block, dev.fabric_plane)
    server = small.servers[5]
    assert [(e.port, e.peer.name, e.ipv4) for e in server.ends() if e.link.network == "backend"] == \
        [(e.port, e.peer.name, e.ipv4) for e in after[server.name].ends() if e.link.network == "backend"]


def test_servers_get_one_routed_interface_per_plane_port_with_roce_and_merged_nccl_devices():
    plan = build_plan(load_example("planes-lab"))
    cfg = server_configs(plan)["planelab-gpu0001"]
    names = [nic["name"] for nic in cfg["nics"]]
    assert names == ["ens1f0np0", "ens1f1np1", "ens2f0np0", "ens2f1np1"]
    assert [nic["rdma"] for nic in cfg["nics"]] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
    assert len({nic["table"] for nic in cfg["nics"]}) == 4 and len({nic["gateway"] for nic in cfg["nics"]}) == 4
    assert [r["table"] for r in cfg["routing"]["rules"]] == [nic["table"] for nic in cfg["nics"]]
    assert cfg["roce"]["pfc_priorities"] and cfg["roce"]["traffic_class"] == 106
    env = cfg["nccl"]["env"]
    assert env["NCCL_IB_HCA"] == "=mlx5_0,mlx5_1,mlx5_2,mlx5_3" and env["NCCL_IB_MERGE_NICS"] == "1"
    assert "NCCL_CROSS_NIC" not in env
    # a one-plane server's environment is as before
    assert "NCCL_IB_MERGE_NICS" not in server_configs(build_plan(load_example("lab")))["lab-gpu0001"]["nccl"]["env"]


def test_inventory_names_each_switch_plane():
    plan = build_plan(load_example("planes-lab"))
    hv = hostvars(plan)
    assert hv["planelab-p2-spine01"]["fabric"]["plane"] == 2
    groups, _children = inventory_groups(plan)
    assert groups["plane_1"] and not set(groups["plane_1"]) & set(groups["plane_2"])
    assert len(groups["plane_1"]) == len(groups["plane_2"]) == 6


def test_port_names_follow_the_port_mode():
    nic = {"name": "ens3np0", "rdma": "mlx5_2", "speed": 800}
    assert port_names(nic, 2, 1) == [("ens3np0", "mlx5_2")]
    assert port_names(nic, 2, 4) == [("ens3f0np0", "mlx5_8"), ("ens3f1np1", "mlx5_9"), ("ens3f2np2", "mlx5_10"),
                                     ("ens3f3np3", "mlx5_11")]


def _error(changes, base=None):
    spec = copy.deepcopy(base or load_example("planes-lab"))
    for key, value in changes.items():
        if value is None:
            spec["backend"].pop(key, None)
        else:
            spec["backend"][key] = value
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    text = str(info.value)
    assert "\n" not in text and "Traceback" not in text
    return info.value


@pytest.mark.parametrize("changes, path, words", [
    ({"planes": 3, "nic_mode": None}, "backend.planes", "3 planes do not divide the 8 lanes of ConnectX-8's port"),
    ({"planes": 8, "nic_mode": None}, "backend.planes", "no port mode of 8 ports"),
    ({"nic_mode": "2x200G"}, "backend.nic_mode", "no port mode of ConnectX-8 gives 2x200G"),
    ({"nic_mode": "4x200G"}, "backend.nic_mode", "4 port(s) but backend.planes is 2"),
    ({"design": "rail_planes"}, "backend.planes", "use design rail_optimized"),
])
def test_bad_multi_plane_specs_get_one_line_naming_the_key(changes, path, words):
    err = _error(changes)
    assert err.path == path and words in str(err), str(err)


def test_a_one_port_nic_cannot_be_split_into_planes():
    spec = copy.deepcopy(load_example("lab"))
    spec["backend"]["planes"] = 2
    err = _error({}, spec)
    assert err.path == "backend.planes" and "ConnectX-7 has no port mode of 2 ports" in str(err)


def test_a_plane_port_speed_the_leaf_cannot_run_is_refused_on_the_leaf():
    spec = copy.deepcopy(load_example("planes-lab"))
    spec["backend"].update(planes=4, nic_mode="4x200G")
    spec["backend"]["leaf"] = {"model": "Z9332F-ON", "downlinks": 4, "uplinks": 4, "downlink_breakout": "1x400G"}
    err = _error({}, spec)
    assert err.path.startswith("backend.leaf"), str(err)


def test_bom_puts_one_twin_port_optic_in_each_nic_cage_and_two_fibres_to_two_leaves():
    from gpufabric.docs import bom as bom_mod
    from gpufabric.docs.cabling import Optics, plan_cables
    from gpufabric.docs.settings import settings_for
    plan = build_plan(b300_spec(64))
    settings = settings_for(plan)
    cables = plan_cables(plan, settings)
    server = [c for c in cables if c.link.tier == "server"]
    # two broken-out cages at the ends of every server link: pluggable optics, never a DAC/AOC breakout
    assert server and all(c.media["transceivers"] for c in server)
    optics = Optics(settings)
    nic = {}
    for c in server:
        cage = optics.sub_port(c.link.b, c.link.b_port)
        assert cage is not None and cage[1] == "2x400G"
        nic.setdefault((c.link.b.name, cage[0]), set()).add(c.link.a.name)
    assert len(nic) == 512 and all(len(leaves) == 2 for leaves in nic.values())
    bom = bom_mod.tally(plan.devices, cables, optics)
    twin = {name: n for name, _detail, n, _keys in bom.rows("transceivers") if "twin-port" in name}
    # 512 at the NICs, 512 in the leaves' 2x400G downlink cages (16 leaves x 32)
    assert sum(twin.values()) == 1024
    fibres = sum(n for name, _d, n, _k in bom.rows("cables") if name.startswith("MMF") or name.startswith("SMF"))
    assert fibres == len(server) == 1024


@pytest.mark.parametrize("nos", ["sonic", "cumulus"])
def test_every_switch_of_every_plane_renders_for_each_nos(nos):
    from gpufabric.build import render_switches
    spec = copy.deepcopy(load_example("planes-lab"))
    spec["backend"]["leaf"] = {"model": "SN5600", "nos": nos, "downlinks": 2, "uplinks": 2}
    spec["backend"]["spine"] = {"model": "SN5600", "nos": nos, "count": 2}
    plan = build_plan(spec)
    files = render_switches(plan)
    switches = [d for d in plan.devices if d.fabric_plane is not None]
    assert {d.fabric_plane for d in switches} == {0, 1}
    for dev in switches:
        texts = [t for path, t in files.items() if path.startswith("devices/%s/" % dev.name)]
        assert texts, dev.name
        for end in dev.ends():
            if end.link.tier == "server":
                assert "%s %s" % (end.peer.name, end.peer_port) in "".join(texts)


@pytest.mark.parametrize("model, mode, downlinks", [("SN5600", "4x200G", 128), ("Z9864F-ON", "4x200G", 128),
                                                    ("generic-102t", "8x200G", 256)])
def test_switches_run_their_200g_port_modes_under_4x200g_nics(model, mode, downlinks):
    spec = b300_spec(256)
    spec["backend"].update(planes=4, nic_mode="4x200G")
    spec["backend"]["leaf"] = {"model": model}
    spec["backend"]["spine"] = {"model": model}
    plan = build_plan(spec)
    leaf = plan.backend.leaves[0]
    down = [e for e in leaf.ends() if e.link.tier == "server"]
    assert {e.link.speed for e in down} == {200}
    assert set(leaf.model.modes.values()) >= {mode}
    assert plan.sizing.backend.downlinks == downlinks
    assert plan.summary["multi_plane"]["count"] == 4 and plan.summary["multi_plane"]["port_speed"] == 200
