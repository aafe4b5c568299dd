"""The EOS home's readers of eAPI JSON (nos/eos/collectors.py, nos/eos/bgp.py) against answers written from the field
names Arista documents for them (EOS User Manual, the JSON of `show lldp neighbors detail`, `show ip bgp summary`,
`show ip bgp`, `show ip route`, `show interfaces`; napalm 5.2's eos driver, napalm/eos/eos.py, reads the same fields:
get_lldp_neighbors_detail, get_interfaces, get_interfaces_counters, get_route_to). The samples are written here, not
captured from a switch."""
import json
import os

from conftest import ROOT

from gpufabric import bgp_gate, home_contract
from gpufabric.nos.eos import bgp, collectors

SUMMARY = {"vrfs": {"default": {"routerId": "10.32.64.2", "asn": "64513", "peers": {
    "10.16.0.3": {"description": "eoslab-r0-leaf01 Ethernet3/1", "peerState": "Established", "prefixReceived": 2,
                  "prefixAccepted": 2, "asn": "64514", "upDownTime": 1764400000.0, "msgReceived": 12,
                  "msgSent": 12, "inMsgQueue": 0, "outMsgQueue": 0, "version": 4, "underMaintenance": False},
    "10.16.0.7": {"peerState": "Active", "prefixReceived": 0, "prefixAccepted": 0, "asn": "64515",
                  "upDownTime": 1764400000.0, "version": 4, "underMaintenance": False}}}}}
TABLE = {"vrfs": {"default": {"routerId": "10.32.64.2", "asn": "64513", "bgpRouteEntries": {
    "10.32.64.2/32": {"address": "10.32.64.2", "maskLength": 32, "totalPaths": 1, "bgpRoutePaths": [
        {"nextHop": "", "routeType": {"valid": True, "active": True, "suppressed": False, "backup": False,
                                      "ecmpHead": False, "ecmp": False, "ecmpContributor": False},
         "asPathEntry": {"asPathType": "Local", "asPath": "i"}}]},
    "10.32.0.1/32": {"address": "10.32.0.1", "maskLength": 32, "totalPaths": 1, "bgpRoutePaths": [
        {"nextHop": "10.16.0.3", "peerEntry": {"peerRouterId": "10.32.0.1", "peerAddr": "10.16.0.3"},
         "routeType": {"valid": True, "active": True, "suppressed": False},
         "asPathEntry": {"asPathType": "External", "asPath": "64514 i"}}]}}}}}


def test_the_summary_gives_the_neutral_bgp_fact():
    fact = collectors.PARSERS["bgp"][1](json.dumps(SUMMARY))
    assert fact == {"local_as": 64513, "peers": {
        "10.16.0.3": {"state": "Established", "remote_as": 64514, "prefixes_received": 2,
                      "hostname": "eoslab-r0-leaf01 Ethernet3/1"},
        "10.16.0.7": {"state": "Active", "remote_as": 64515, "prefixes_received": 0, "hostname": None}}}


def test_the_gate_reads_one_runcmds_answer_and_the_sessions_of_the_summary_alone():
    observed = bgp.observe(json.dumps([SUMMARY, TABLE]))
    assert observed["peers"]["10.16.0.3"]["state"] == "Established"
    assert observed["routes"] == {
        "10.32.64.2/32": [{"valid": True, "best": True, "suppressed": False}],
        "10.32.0.1/32": [{"valid": True, "best": True, "suppressed": False, "peerId": "10.16.0.3"}]}
    assert bgp.sessions(json.dumps([SUMMARY])) == {"10.16.0.3": "Established", "10.16.0.7": "Active"}
    assert bgp.sessions("% Invalid input") == {} and bgp.observe("") is None


def test_the_gate_over_eos_json_names_a_session_down_and_passes_when_all_are_up():
    cfg = {"hostname": "eoslab-spine02", "nos": "eos", "bgp": {"asn": 64513, "networks": ["10.32.64.2/32"],
           "neighbors": [{"ip": "10.16.0.3", "peer": "eoslab-r0-leaf01", "remote_as": 64514},
                         {"ip": "10.16.0.7", "peer": "eoslab-r1-leaf01", "remote_as": 64515}]}}
    peer = {"hostname": "eoslab-r0-leaf01", "bgp": {"networks": ["10.32.0.1/32"]}}
    before = json.dumps([SUMMARY])
    found = bgp_gate.deploy_gate(json.dumps([SUMMARY, TABLE]), cfg, before, "all", [peer])
    assert found == ["session 10.16.0.7 (eoslab-r1-leaf01) is Active"]
    up = json.loads(json.dumps(SUMMARY))
    up["vrfs"]["default"]["peers"]["10.16.0.7"]["peerState"] = "Established"
    assert bgp_gate.deploy_gate(json.dumps([up, TABLE]), cfg, before, "all", [peer]) == []


def test_lldp_neighbours_by_local_port():
    answer = {"lldpNeighbors": {"Ethernet1/1": {"lldpNeighborInfo": [
        {"systemName": "eoslab-r0-leaf01", "chassisIdType": "macAddress", "chassisId": "001c.7300.0001",
         "lastChangeTime": 1000.0, "ttl": 120,
         "neighborInterfaceInfo": {"interfaceIdType": "interfaceName", "interfaceId": "\"Ethernet3/1\"",
                                   "interfaceId_v2": "Ethernet3/1", "interfaceDescription": "to spine02"}}]},
        "Ethernet2/1": {"lldpNeighborInfo": []}}}
    assert collectors.lldp_neighbors(json.dumps(answer), now=1100.0) == {
        "Ethernet1/1": [{"system": "eoslab-r0-leaf01", "port": "Ethernet3/1", "age_s": 100}]}
    del answer["lldpNeighbors"]["Ethernet1/1"]["lldpNeighborInfo"][0]["neighborInterfaceInfo"]["interfaceId_v2"]
    assert collectors.lldp_neighbors(json.dumps(answer))["Ethernet1/1"][0]["port"] == "Ethernet3/1"


def test_routes_of_the_default_vrf_with_their_protocol_and_next_hops():
    answer = {"vrfs": {"default": {"routes": {
        "10.32.0.1/32": {"routeType": "eBGP", "preference": 200, "metric": 0, "kernelProgrammed": True,
                         "hardwareProgrammed": True, "routeAction": "forward", "directlyConnected": False,
                         "vias": [{"nexthopAddr": "10.16.0.3", "interface": "Ethernet1/1"},
                                  {"nexthopAddr": "10.16.0.35", "interface": "Ethernet9/1"}]},
        "10.16.0.2/31": {"routeType": "connected", "directlyConnected": True,
                         "vias": [{"interface": "Ethernet1/1"}]}}}}}
    assert collectors.routes(json.dumps(answer)) == {
        "10.32.0.1/32": {"protocol": "bgp", "nexthops": [{"ip": "10.16.0.3", "interface": "Ethernet1/1"},
                                                         {"ip": "10.16.0.35", "interface": "Ethernet9/1"}]},
        "10.16.0.2/31": {"protocol": "connected", "nexthops": [{"ip": None, "interface": "Ethernet1/1"}]}}


def test_links_with_state_mtu_and_counters():
    answer = {"interfaces": {
        "Ethernet1/1": {"name": "Ethernet1/1", "interfaceStatus": "connected", "lineProtocolStatus": "up",
                        "mtu": 9216, "bandwidth": 800000000000, "description": "",
                        "interfaceCounters": {"totalInErrors": 0, "totalOutErrors": 1, "inDiscards": 2,
                                              "outDiscards": 3}},
        "Ethernet2/1": {"interfaceStatus": "disabled", "lineProtocolStatus": "down", "mtu": 1500}}}
    assert collectors.links(json.dumps(answer)) == {
        "Ethernet1/1": {"admin_up": True, "oper_up": True, "mtu": 9216, "rx_errors": 0, "tx_errors": 1,
                        "rx_discards": 2, "tx_discards": 3},
        "Ethernet2/1": {"admin_up": False, "oper_up": False, "mtu": 1500, "rx_errors": None, "tx_errors": None,
                        "rx_discards": None, "tx_discards": None}}
    status = {"interfaceStatuses": {"Ethernet1/1": {"linkStatus": "notconnect", "lineProtocolStatus": "down"}}}
    assert collectors.links(json.dumps(status))["Ethernet1/1"]["admin_up"] is True
    assert collectors.links(json.dumps(status))["Ethernet1/1"]["oper_up"] is False


def test_qos_of_every_port_from_the_running_config_as_rendered():
    path = os.path.join(ROOT, "tests/golden/eos-lab/rendered/devices/eoslab-spine02/startup-config")
    with open(path) as f:
        text = f.read()
    qos = collectors.port_qos(text)
    port = qos["Ethernet1/1"]
    assert port["trust"] == "dscp" and port["pfc"] == [3] and port["ecn"] == [3]
    assert port["dscp_to_tc"][26] == 3 and port["dscp_to_tc"][48] == 6 and port["dscp_to_tc"][0] == 0
    assert len(port["dscp_to_tc"]) == 64
    # eAPI's text answer carries the same text in "output".
    assert collectors.port_qos(json.dumps([{"output": text}])) == qos
    bare = collectors.port_qos("interface Ethernet5/1\n   no switchport\n")
    assert bare == {"Ethernet5/1": {"trust": None, "dscp_to_tc": None, "pfc": [], "ecn": []}}


def test_every_observation_has_its_command_parser_and_tool():
    assert [p for p in home_contract.problems("eos") if "collectors" in p or "bgp_gate" in p or "drain" in p] == []
    for observation, (tool, _text) in collectors.COMMANDS.items():
        assert tool in collectors.SSH_TOOLS, observation


def test_over_ssh_each_command_is_one_shell_word_for_eos_cli():
    import shlex
    from gpufabric.validate.transport import SshTransport
    ssh = SshTransport(hosts={"sw1": {"host": "10.0.0.9", "flavour": "eos"}})
    assert shlex.split(ssh.remote_text("sw1", collectors.COMMANDS["bgp"])) == [
        "Cli", "-p", "15", "-c", "show ip bgp summary | json"]
    assert shlex.split(ssh.remote_text("sw1", collectors.COMMANDS["qos"])) == [
        "Cli", "-p", "15", "-c", "show running-config"]
