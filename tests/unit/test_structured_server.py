"""Per-server structured config: its declared schema, RoCE from the switches' QoS profile, routing once,
and the Linux host files the build writes under servers/<host>/."""
import copy

import pytest
import yaml

from conftest import load_example
from gpufabric.build import render_all, render_servers, servers, structured
from gpufabric.errors import SpecError
from gpufabric.plan import build_plan
from gpufabric.render.linux_host import NETWORK_STACKS, network_files
from gpufabric.structured.server import schema_errors, server_configs
from gpufabric.twin.desired import build_twin
from gpufabric.validate.expect import Expectation

# RoCE moved to DSCP 24 on priority 4 (CNP unchanged): the classes list replaces the profile's.
DSCP24 = {"classes": [
    {"name": "rocev2", "dscp": [24], "traffic_class": 4, "lossless": True, "ecn": True, "dwrr_weight": 50},
    {"name": "cnp", "dscp": [48], "traffic_class": 6, "strict_priority": True},
    {"name": "best_effort", "dscp": [], "traffic_class": 0, "dwrr_weight": 50}]}


def _plan(overrides=None, example="lab"):
    spec = load_example(example)
    if overrides is not None:
        spec = copy.deepcopy(spec)
        spec.setdefault("switch_config", {})["qos_overrides"] = overrides
    return build_plan(spec)


@pytest.fixture(scope="module")
def lab_servers():
    return server_configs(_plan())


def test_every_lab_server_config_has_the_declared_schema(lab_servers):
    assert sorted(lab_servers) == ["lab-gpu%04d" % i for i in range(1, 5)]
    for cfg in lab_servers.values():
        assert schema_errors(cfg) == []
    broken = copy.deepcopy(lab_servers["lab-gpu0001"])
    broken["roce"]["dscp"] = "26"
    del broken["nics"][0]["table"]
    broken["extra"] = 1
    assert schema_errors(broken) == ["server: unknown key 'extra'", "server.nics[0].table: missing",
                                     "server.roce.dscp: '26' is not int"]


def test_default_roce_is_the_domain_numbers(lab_servers):
    roce = lab_servers["lab-gpu0002"]["roce"]
    assert (roce["dscp"], roce["lossless_priority"], roce["cnp_dscp"], roce["cnp_priority"]) == (26, 3, 48, 6)
    assert roce["traffic_class"] == 106 and roce["ecn_priorities"] == [3] and roce["trust"] == "dscp"
    assert roce["mlxconfig"] == {"CNP_DSCP_P1": 48, "CNP_802P_PRIO_P1": 6, "ROCE_CC_PRIO_MASK_P1": 8}
    assert lab_servers["lab-gpu0002"]["nccl"]["env"]["NCCL_IB_TC"] == "106"


def test_qos_overrides_move_switches_nics_nccl_and_validation_together():
    plan = _plan(DSCP24)
    switch = structured(plan)["lab-r0-leaf01"]["qos"]
    assert switch["dscp_to_traffic_class"][24] == 4 and switch["pfc_priorities"] == [4]
    assert switch["dscp_to_traffic_class"][26] == 0
    server = servers(plan)["lab-gpu0001"]
    roce = server["roce"]
    assert (roce["dscp"], roce["lossless_priority"], roce["pfc_priorities"], roce["ecn_priorities"]) == (24, 4, [4], [4])
    assert roce["dscp_to_priority"] == {24: 4, 48: 6} and roce["mlxconfig"]["ROCE_CC_PRIO_MASK_P1"] == 16
    assert roce["traffic_class"] == 24 << 2 | 2 == 98
    assert server["nccl"]["env"]["NCCL_IB_TC"] == "98"
    want = Expectation(plan).qos("lab-r0-leaf01")
    assert want["pfc"] == [4] and want["dscp_to_tc"][24] == 4 and want["ecn"] == [4]
    assert Expectation(plan).qos("lab-gpu0001") == {"trust": "dscp", "pfc": [4], "ecn": [4]}
    files = render_servers(plan)
    unit = files["servers/lab-gpu0001/systemd/gpufabric-roce.service"]
    assert "--pfc 0,0,0,0,1,0,0,0" in unit and "--dscp2prio set,24,4" in unit
    assert 'echo "98" > ${ROOT}/sys/class/infiniband/mlx5_0/tc/1/traffic_class' in unit
    assert "NCCL_IB_TC=98\n" in files["servers/lab-gpu0001/nccl.conf"]
    assert yaml.safe_load(files["servers/lab-gpu0001/structured.yml"])["roce"]["cnp_dscp"] == 48


def test_a_profile_the_nics_cannot_carry_names_the_key():
    two_dscps = copy.deepcopy(DSCP24)
    two_dscps["classes"][0]["dscp"] = [24, 25]
    with pytest.raises(SpecError, match=r"^switch_config.qos_overrides: the NICs need exactly one RoCE DSCP on "
                                        r"priority 4 in QoS profile 'rocev2_lossless', it has \[24, 25\]"):
        server_configs(_plan(two_dscps))


def test_rail_designs_keep_nccl_on_its_rail():
    for cfg in server_configs(_plan(example="metalsoft-16k")).values():
        assert cfg["nccl"]["env"]["NCCL_CROSS_NIC"] == "0"
        break
    assert "NCCL_CROSS_NIC" not in server_configs(_plan())["lab-gpu0001"]["nccl"]["env"]


def test_each_network_stack_gets_the_same_routing(lab_servers):
    files = render_servers(_plan())
    host = "servers/lab-gpu0003/"
    # The build writes one document per server; the role renders the host's stack from it as read back.
    assert sorted(n[len(host):] for n in files if n.startswith(host)) == [
        "nccl.conf", "structured.yml", "sysctl/60-gpufabric.conf", "systemd/gpufabric-roce.service"]
    cfg = yaml.safe_load(files[host + "structured.yml"])
    assert {stack: network_files(cfg, stack) for stack in NETWORK_STACKS} == {
        stack: network_files(lab_servers["lab-gpu0003"], stack) for stack in NETWORK_STACKS}
    nic = cfg["nics"][4]
    networkd = network_files(cfg, "networkd")["20-gpufabric-%s.network" % nic["name"]]
    assert "Address=%s\n" % nic["cidr"] in networkd and "Gateway=%s\nTable=%d" % (nic["gateway"], nic["table"]) in networkd
    assert "From=%s/32\nTable=%d\nPriority=%d" % (nic["address"], nic["table"], nic["priority"]) in networkd
    netplan = yaml.safe_load(network_files(cfg, "netplan")["60-gpufabric.yaml"])["network"]
    assert netplan["ethernets"][nic["name"]]["routing-policy"] == [
        {"from": nic["address"] + "/32", "table": nic["table"], "priority": nic["priority"]}]
    assert netplan["bonds"]["bond0"]["interfaces"] == cfg["frontend"]["members"]
    keyfile = network_files(cfg, "NetworkManager")["gpufabric-%s.nmconnection" % nic["name"]]
    assert "route2=0.0.0.0/0,%s\nroute2_options=table=%d\n" % (nic["gateway"], nic["table"]) in keyfile
    assert "routing-rule1=priority %d from %s/32 table %d" % (nic["priority"], nic["address"], nic["table"]) in keyfile
    sysctl = files[host + "sysctl/60-gpufabric.conf"]
    assert "net.ipv4.conf.%s.rp_filter = 2\n" % nic["name"] in sysctl
    with pytest.raises(ValueError, match=r"^network stack 'ifupdown': expected one of networkd, netplan, NetworkManager$"):
        network_files(cfg, "ifupdown")


def test_the_twin_servers_route_as_the_build_says(lab_servers):
    plan = _plan()
    twin = build_twin(plan, render_all(plan))
    ns = twin.namespaces["lab-gpu0001"]
    cfg = lab_servers["lab-gpu0001"]
    assert sorted(ns.rules) == sorted((r["priority"], r["from"].split("/")[0], r["table"]) for r in cfg["routing"]["rules"])
    assert len(ns.routes) == 2 * len(cfg["nics"])
    assert ns.ifaces["ens1np0"].addrs == [cfg["nics"][0]["cidr"]]
