"""Validation of an EOS switch over its eAPI (nos/eos/eapi_transport.py, collectors.API_VARS): each of the collectors'
commands one runCmds call (JSON for ``eos``, text for ``eos_text``) through a stand-in of napalm's eos driver that
answers in EOS's JSON shape (the field names of `show lldp neighbors detail`, `show ip bgp summary`, `show interfaces`,
`show ip route` as Arista documents them and napalm 5.2's eos driver reads them; `peerStateIdleReason` ``Admin`` of
a shut-down peer as napalm's get_bgp_neighbors reads it), the answers turned into one DeviceState the checks share.
A command the switch refuses is an ERROR of its own observation only; a switch that does not open is an ERROR of all,
naming the switch and never its password."""
import json

from pyeapi.eapilib import CommandError

from gpufabric.nos.eos import collectors, eapi
from gpufabric.nos.eos.eapi_transport import EapiTransport
from gpufabric.validate.state import collect_commands

HOST = "eoslab-spine01"
LLDP = {"lldpNeighbors": {"Ethernet1/1": {"lldpNeighborInfo": [
    {"chassisIdType": "macAddress", "chassisId": "001c.7300.0011", "systemName": "eoslab-r0-leaf01",
     "systemDescription": "Arista Networks EOS version 4.34.2F", "lastChangeTime": 1764400000.0, "ttl": 120,
     "systemCapabilities": {"bridge": True, "router": True},
     "neighborInterfaceInfo": {"interfaceIdType": "interfaceName", "interfaceId": "\"Ethernet3/1\"",
                               "interfaceId_v2": "Ethernet3/1", "interfaceDescription": ""}}]}}}
SUMMARY = {"vrfs": {"default": {"vrf": "default", "routerId": "10.32.64.1", "asn": "64513", "peers": {
    "10.16.0.1": {"description": "", "version": 4, "msgReceived": 0, "msgSent": 0, "inMsgQueue": 0,
                  "outMsgQueue": 0, "asn": "64514", "prefixAccepted": 0, "prefixReceived": 0,
                  "upDownTime": 1764400000.0, "underMaintenance": False, "peerState": "Idle",
                  "peerStateIdleReason": "Admin"},
    "10.16.0.5": {"description": "", "version": 4, "msgReceived": 9, "msgSent": 9, "inMsgQueue": 0,
                  "outMsgQueue": 0, "asn": "64515", "prefixAccepted": 3, "prefixReceived": 3,
                  "upDownTime": 1764400000.0, "underMaintenance": False, "peerState": "Established",
                  "peerStateIdleReason": "NoInterface"}}}}}
INTERFACES = {"interfaces": {"Ethernet1/1": {
    "name": "Ethernet1/1", "description": "", "interfaceStatus": "connected", "lineProtocolStatus": "up", "mtu": 9214,
    "bandwidth": 800000000000, "forwardingModel": "routed", "hardware": "ethernet",
    "interfaceAddress": [{"primaryIp": {"address": "10.16.0.0", "maskLen": 31}}],
    "interfaceCounters": {"inOctets": 10, "outOctets": 10, "totalInErrors": 0, "totalOutErrors": 0, "inDiscards": 0,
                          "outDiscards": 0}}}}
RUNNING = ("qos map dscp 26 to traffic-class 3\n!\ninterface Ethernet1/1\n   mtu 9214\n   no switchport\n"
           "   qos trust dscp\n   priority-flow-control on\n   priority-flow-control priority 3 no-drop\n!\n")


class Node:
    """pyeapi's Node as napalm's driver holds it (``driver.device``): run_commands as pyeapi gives its results."""

    def __init__(self, refuse=()):
        self.calls = []
        self.refuse = refuse

    def run_commands(self, commands, encoding="json", send_enable=True):
        self.calls.append((list(commands), encoding, send_enable))
        command = commands[-1]
        if command in self.refuse:
            raise CommandError(1002, "CLI command 2 of 2 '%s' failed: invalid command" % command,
                               command_error="Invalid input (at token 1: 'ip')")
        if encoding == "text":
            return [{"output": RUNNING}] if command == "show running-config" else [{"output": ""}]
        return [{"show lldp neighbors detail": LLDP, "show ip bgp summary": SUMMARY, "show interfaces": INTERFACES,
                 "show ip route": {"vrfs": {"default": {"routes": {}}}}}[command]]


class Driver:
    send_enable = True

    def __init__(self, node):
        self.device = node
        self.closed = False

    def close(self):
        self.closed = True


def transport(node, opened=None):
    def opener(*args):
        if opened is not None:
            opened.append(args)
        return Driver(node)
    settings = {"host": "127.0.0.1", "port": "40123", "ca": "/run/ca.pem", "user": "admin", "password": "s3cret"}
    return EapiTransport({HOST: settings}, opener=opener)


def test_the_host_variables_of_the_api_are_the_deploys_own():
    assert collectors.API_VARS == {"host": "eos_eapi_host", "port": "eos_eapi_port", "ca": "eos_eapi_ca",
                                   "user": "eos_eapi_user", "password": "eos_eapi_password"}
    assert isinstance(collectors.api_transport({}), EapiTransport)


def test_every_observation_is_read_over_eapi_into_one_state():
    node, opened = Node(), []
    state = collect_commands(transport(node, opened), HOST, "backend_spine", ["bgp", "links", "lldp", "qos", "routes"],
                             nos_name="eos")
    # The switch's certificate is checked against the CA of its host variables, the port as given.
    assert opened == [(HOST, "127.0.0.1", "admin", "s3cret", "40123", True, "/run/ca.pem", 60)]
    assert sorted((cmds[-1], enc) for cmds, enc, _enable in node.calls) == [
        ("show interfaces", "json"), ("show ip bgp summary", "json"), ("show ip route", "json"),
        ("show lldp neighbors detail", "json"), ("show running-config", "text")]
    assert state.errors == {} and state.unavailable == {}
    assert state.lldp["Ethernet1/1"][0]["system"] == "eoslab-r0-leaf01"
    assert state.lldp["Ethernet1/1"][0]["port"] == "Ethernet3/1"
    # A peer shut down is Idle with EOS's reason Admin, read as the checks expect it; a stale reason of an
    # Established peer is not its state.
    assert state.bgp == {"local_as": 64513, "peers": {
        "10.16.0.1": {"state": "Idle (Admin)", "remote_as": 64514, "prefixes_received": 0, "hostname": ""},
        "10.16.0.5": {"state": "Established", "remote_as": 64515, "prefixes_received": 3, "hostname": ""}}}
    port = state.interfaces["Ethernet1/1"]
    assert port["oper_up"] and port["admin_up"] and port["mtu"] == 9214 and port["rx_errors"] == 0
    assert state.qos["Ethernet1/1"]["pfc"] == [3] and state.qos["Ethernet1/1"]["dscp_to_tc"][26] == 3
    assert state.routes == {}


def test_a_refused_command_is_an_error_of_its_own_observation():
    state = collect_commands(transport(Node(refuse=("show ip route",))), HOST, "backend_leaf", ["bgp", "routes"],
                             nos_name="eos")
    assert list(state.errors) == ["routes"]
    assert "'show ip route' refused" in state.errors["routes"] and HOST in state.errors["routes"]
    assert state.bgp["peers"]["10.16.0.5"]["state"] == "Established"
    assert state.problem("routes")[0] == "ERROR"


def test_a_switch_that_does_not_open_is_an_error_of_every_observation_without_its_password():
    def opener(*args):
        raise eapi.EapiError("%s: eAPI at https://127.0.0.1:40123/command-api did not open: certificate verify "
                             "failed" % args[0])
    settings = {"host": "127.0.0.1", "port": 40123, "ca": "/run/ca.pem", "user": "admin", "password": "s3cret"}
    state = collect_commands(EapiTransport({HOST: settings}, opener=opener), HOST, "backend_spine",
                             ["bgp", "links", "lldp"], nos_name="eos")
    assert sorted(state.errors) == ["bgp", "links", "lldp"]
    assert all("certificate verify failed" in e and HOST in e and "s3cret" not in e for e in state.errors.values())
    assert state.problem("bgp")[0] == "ERROR"
    missing = collect_commands(EapiTransport({}), HOST, "backend_spine", ["bgp"], nos_name="eos")
    assert "no eAPI address" in missing.errors["bgp"]


def test_the_answers_are_eos_json_texts_the_collectors_read():
    answers = transport(Node()).run_many(HOST, [collectors.COMMANDS["bgp"], collectors.COMMANDS["qos"]])
    assert json.loads(answers[0]) == SUMMARY and json.loads(answers[1]) == {"output": RUNNING}
