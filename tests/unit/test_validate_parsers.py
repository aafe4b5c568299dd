"""Parsers on real command output (fixtures/validate/, see README.md there for the source of each)."""
import json
import os

from validate_helpers import ROOT, fixture

from gpufabric.nos.sonic import collectors
from gpufabric.frr_linux import host, parsers
from gpufabric.validate.transport import Unavailable

import pytest


def test_bgp_summary_established_and_shut_down():
    up = parsers.bgp_summary(fixture("frr_leaf_bgp_summary.json"))
    peer = {"state": "Established", "remote_as": 64513, "prefixes_received": 2, "hostname": "vfx-spine"}
    assert up == {"local_as": 64514, "peers": {"10.16.0.0": peer}}
    down = parsers.bgp_summary(fixture("frr_leaf_bgp_summary_down.json"))
    assert down["peers"]["10.16.0.0"]["state"] == "Active"


def test_bgp_summary_without_address_family_is_nested():
    nested = json.dumps({"ipv4Unicast": json.loads(fixture("frr_leaf_bgp_summary.json"))})
    assert parsers.bgp_summary(nested)["peers"]["10.16.0.0"]["remote_as"] == 64513
    assert parsers.bgp_summary("") == {"local_as": None, "peers": {}}


def test_routes_counts_active_next_hops_of_selected_route():
    spine = parsers.routes(fixture("frr_spine_route.json"))
    # The leaf's server summary (aggregate-address summary-only) arrives over BGP, one path.
    assert spine["10.0.0.0/30"]["protocol"] == "bgp"
    assert [h["interface"] for h in spine["10.0.0.0/30"]["nexthops"]] == ["Ethernet0"]
    assert "10.0.0.0/31" not in spine   # suppressed by summary-only
    leaf = parsers.routes(fixture("frr_leaf_route.json"))
    assert leaf["10.0.0.0/31"]["protocol"] == "connected"


def test_lldp_neighbors_list_and_single_object_forms():
    leaf = parsers.lldp_neighbors(fixture("lldp_leaf_neighbors.json"))
    assert leaf == {"Ethernet0": [{"system": "lab-gpu", "port": "ens1np0", "age_s": 4}],
                    "Ethernet16": [{"system": "lab-spine", "port": "Ethernet0", "age_s": 4}]}
    gpu = parsers.lldp_neighbors(fixture("lldp_gpu_neighbors.json"))
    assert gpu == {"ens1np0": [{"system": "lab-leaf", "port": "Ethernet0", "age_s": 4}]}
    assert parsers.lldp_neighbors('{"lldp": {}}') == {}


def test_lldp_neighbour_age_in_seconds():
    data = json.loads(fixture("lldp_gpu_neighbors.json"))
    data["lldp"]["interface"]["ens1np0"]["age"] = "1 day, 02:03:04"
    assert parsers.lldp_neighbors(json.dumps(data))["ens1np0"][0]["age_s"] == 93784
    del data["lldp"]["interface"]["ens1np0"]["age"]
    assert parsers.lldp_neighbors(json.dumps(data))["ens1np0"][0]["age_s"] is None


def test_lldp_port_from_description_when_port_id_is_a_mac():
    data = json.loads(fixture("lldp_gpu_neighbors.json"))
    port = data["lldp"]["interface"]["ens1np0"]["port"]
    port["id"] = {"type": "mac", "value": "72:07:af:69:2d:e4"}
    port["descr"] = "Ethernet0"
    assert parsers.lldp_neighbors(json.dumps(data))["ens1np0"][0]["port"] == "Ethernet0"


def test_ip_links_addresses_rules_routes():
    links = parsers.ip_links(fixture("ip_leaf_link_stats.json"))
    assert links["Ethernet0"]["mtu"] == 9216 and links["Ethernet0"]["oper_up"] and links["Ethernet0"]["admin_up"]
    assert links["Ethernet0"]["rx_errors"] == 0
    addrs = parsers.ip_addrs(fixture("ip_gpu_addr.json"))
    assert addrs["ens1np0"] == {"mtu": 9000, "ipv4": ["10.0.0.1/31"]}
    assert {"priority": 1001, "src": "10.0.0.1", "table": "101"} in parsers.ip_rules(fixture("ip_gpu_rule.json"))
    tables = parsers.ip_routes(fixture("ip_gpu_route_table101.json"))
    assert tables["main"] == [{"dst": "10.0.0.0/8", "gateway": "10.0.0.0", "dev": "ens1np0"}]


def test_sysfs_values():
    text = "/sys/class/net/Ethernet0/carrier_changes:4\n/sys/class/net/Ethernet0/speed:10000\n/sys/class/net/lo/speed:x\n"
    assert parsers.sysfs_values(text) == {"Ethernet0": {"carrier_changes": 4, "speed": 10000}, "lo": {"speed": "x"}}


def test_config_db_qos_from_rendered_lab_leaf():
    with open(os.path.join(ROOT, "tests/golden/lab/rendered/devices/lab-r0-leaf01/config_db.json")) as f:
        qos = collectors.config_db_qos(json.load(f))
    assert qos["Ethernet0"]["pfc"] == [3] and qos["Ethernet0"]["ecn"] == [3] and qos["Ethernet0"]["trust"] == "dscp"
    assert qos["Ethernet0"]["dscp_to_tc"][26] == 3 and qos["Ethernet0"]["dscp_to_tc"][48] == 6
    assert qos["Ethernet104"] == {"trust": None, "dscp_to_tc": None, "pfc": [], "ecn": []}   # an unused port


def test_mlnx_qos_published_sample_and_absent_tool():
    assert parsers.mlnx_qos(fixture("mlnx_qos.txt")) == {"trust": "dscp", "pfc": [0, 2, 6, 7]}
    assert parsers.mlnx_qos("bash: mlnx_qos: command not found") is None
    sysfs = ("/sys/class/net/ens1np0/ecn/roce_np/enable/3:1\n/sys/class/net/ens1np0/ecn/roce_rp/enable/3:1\n"
             "/sys/class/net/ens1np0/ecn/roce_rp/enable/4:1\n")
    text = "### ens1np0\n" + fixture("mlnx_qos.txt") + sysfs
    assert host.nic_qos(text) == {"ens1np0": {"trust": "dscp", "pfc": [0, 2, 6, 7], "ecn": [3]}}
    with pytest.raises(Unavailable):
        host.nic_qos("NO_MLNX_QOS\n")
