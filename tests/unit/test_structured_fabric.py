"""Structured config of the lab: peers on every port, BGP sessions that match across each link, MC-LAG pairs."""
import copy

import pytest

from conftest import load_example
from gpufabric.plan import build_plan
from gpufabric.structured import structured_configs


@pytest.fixture(scope="module")
def lab():
    return structured_configs(build_plan(load_example("lab")))


def test_every_switch_and_only_switches(lab):
    roles = {cfg["role"] for cfg in lab.values()}
    assert roles == {"backend_leaf", "backend_spine", "frontend_leaf", "frontend_spine", "oob_switch"}
    assert len(lab) == 27


def test_cabled_ports_name_their_peer_and_the_peer_agrees(lab):
    for host, cfg in lab.items():
        for port in cfg["ethernet_interfaces"]:
            if not port["enabled"] or port["peer"] is None:
                continue
            assert port["description"] == "%s %s" % (port["peer"], port["peer_interface"])
            peer = lab.get(port["peer"])
            if peer is None:
                continue  # a server
            if port["network"] == "oob":
                assert peer["management"]["interface"] == port["peer_interface"]
                continue
            back = next(p for p in peer["ethernet_interfaces"] if p["name"] == port["peer_interface"])
            assert (back["peer"], back["peer_interface"]) == (host, port["name"])
            assert back["mtu"] == port["mtu"] and back["speed_gbps"] == port["speed_gbps"]


def test_backend_ports_are_jumbo_and_rs_fec(lab):
    for cfg in lab.values():
        if cfg["network"] == "backend":
            for port in cfg["ethernet_interfaces"]:
                if port["enabled"]:
                    assert port["mtu"] == 9216 and port["fec"] == "rs"


def test_bgp_sessions_match_on_both_ends(lab):
    sessions = 0
    for host, cfg in lab.items():
        for n in cfg.get("bgp", {}).get("neighbors", []):
            peer = lab[n["peer"]]["bgp"]
            mirror = [m for m in peer["neighbors"] if m["ip"] == n["local_ip"]]
            assert len(mirror) == 1, (host, n)
            assert mirror[0]["remote_as"] == cfg["bgp"]["asn"] and mirror[0]["local_ip"] == n["ip"]
            assert n["remote_as"] == peer["asn"]
            sessions += 1
    assert sessions == 2 * (32 + 12)  # backend and frontend leaf-spine links, seen from both ends


def test_leaf_advertises_its_server_block_and_sizes_ecmp_to_uplinks(lab):
    leaf = lab["lab-r0-leaf01"]["bgp"]
    assert leaf["summaries"] == ["10.0.0.0/30"]
    assert leaf["max_paths"] == 2 and leaf["multipath_relax"] and leaf["bfd"]["multiplier"] == 3
    assert lab["lab-spine01"]["bgp"]["summaries"] == []
    assert lab["lab-fe-leaf01a"]["bgp"]["max_paths"] == 6


def test_mclag_pair_names_each_server_bond_alike(lab):
    a, b = lab["lab-fe-leaf01a"], lab["lab-fe-leaf01b"]
    assert a["mclag"]["peer_ip"] == b["mclag"]["source_ip"] and b["mclag"]["peer_ip"] == a["mclag"]["source_ip"]
    bonds = [{pc["name"]: pc["peer"] for pc in cfg["port_channels"] if pc["mclag"]} for cfg in (a, b)]
    assert bonds[0] == bonds[1] and len(bonds[0]) == 4
    assert a["vlans"][0]["virtual_gateway"] == b["vlans"][0]["virtual_gateway"] == "10.64.0.1/28"
    assert a["vlans"][0]["ipv4"] != b["vlans"][0]["ipv4"]
    assert a["bgp"]["allowas_in"] == 1


def test_management_only_from_oob_network(lab):
    for cfg in lab.values():
        assert cfg["management"]["allowed_sources"] == ["192.168.0.0/22"]
        assert cfg["management"]["vrf"] == ("default" if cfg["role"] == "oob_switch" else "mgmt")


def test_oob_relays_dhcp_only_when_a_provisioning_host_is_named(lab):
    spec = copy.deepcopy(load_example("lab"))
    del spec["oob"]["provisioning_host"]
    cfgs = structured_configs(build_plan(spec))
    assert all(v["dhcp_relay_servers"] == [] and "dhcp_relay_option82" not in v
               for c in cfgs.values() if c["role"] == "oob_switch" for v in c["vlans"])
    spec["oob"]["provisioning_host"] = "192.168.3.10"
    cfgs = structured_configs(build_plan(spec))
    oob = [c for c in cfgs.values() if c["role"] == "oob_switch"]
    assert oob and all(c["vlans"][0]["dhcp_relay_servers"] == ["192.168.3.10"] for c in oob)
    assert all(c["vlans"][0]["dhcp_relay_option82"] == {"circuit_id": "{hostname}:{port}", "existing": "discard"}
               for c in oob)
