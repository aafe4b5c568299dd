"""Validation's eAPI transport (nos/eos/eapi_transport.py) against the twin's eAPI stand-in (twin/emulators/eos), run in
this process on 127.0.0.1 over HTTPS with a certificate of its own CA: every observation the EOS collectors make is a
`show` command the stand-in answers in EOS's JSON (or text for the running config), read into one DeviceState. The
stand-in's operational state is fixed here (what the namespace's links, lldpd and FRR would report); no root
(tests/twin/test_eos_deploy_twin.py runs validate.yml on the whole eos-lab twin)."""
import os

import pytest
from conftest import ROOT

from gpufabric.nos.eos import collectors, deploy, eapi
from gpufabric.validate.state import collect_commands

emu = pytest.importorskip("gpufabric.twin.emulators.eos.eapi")
emuhttp = pytest.importorskip("gpufabric.twin.emulators.eos.http")

HOST = "eoslab-spine02"
PASSWORD = "twin-Secret-43"


class Oper(emu.Oper):
    """What the namespace would report: one cabled port up, its LLDP neighbour, one session up, one shut down."""

    def links(self):
        return {"Ethernet1/1": {"up": True, "mtu": 9214, "mac": "00:1c:73:00:01:01", "addrs": ["10.16.0.2/31"]}}

    def lldp(self):
        return [{"port": "Ethernet1/1", "system": "eoslab-r0-leaf01", "chassis": "00:1c:73:00:00:11",
                 "port_id": "Ethernet3/1", "ttl": 120}]

    def bgp(self):
        return {"as": 64513, "routerId": "10.32.64.2", "peers": {
            "10.16.0.3": {"remoteAs": 64514, "state": "Established", "pfxRcd": 2},
            "10.16.0.7": {"remoteAs": 64515, "state": "Idle (Admin)", "pfxRcd": 0}}}

    def routes(self):
        return {"10.32.0.0/24": [{"selected": True, "protocol": "bgp", "distance": 20, "metric": 0,
                                  "nexthops": [{"ip": "10.16.0.3", "interfaceName": "Ethernet1_1", "active": True}]}]}


@pytest.fixture
def switch(tmp_path):
    ca_dir = tmp_path / "ca"
    ca_dir.mkdir()
    pem, _key = emuhttp.make_ca(str(ca_dir))
    sw = emu.EosSwitch(HOST, "7060X6-64PE", "SN-TEST", "00:1c:73:00:00:02", oper=Oper())
    cert, key = emuhttp.issue(str(ca_dir), str(tmp_path), HOST)
    server = emuhttp.EapiServer(sw, cert, key, "admin", PASSWORD).start()
    with open(os.path.join(ROOT, "tests/golden/eos-lab/rendered/devices", HOST, "startup-config")) as f:
        build = f.read()
    deploy.deploy(eapi.open_driver(HOST, "127.0.0.1", "admin", PASSWORD, server.port, True, pem), HOST, build, confirm=0)
    try:
        yield {"host": "127.0.0.1", "port": server.port, "ca": pem, "user": "admin", "password": PASSWORD}
    finally:
        server.stop()


def test_every_observation_over_eapi_from_the_stand_in(switch):
    transport = collectors.api_transport({HOST: switch})
    state = collect_commands(transport, HOST, "backend_spine", ["bgp", "links", "lldp", "qos", "routes"], nos_name="eos")
    assert state.errors == {} and state.unavailable == {}
    [seen] = state.lldp["Ethernet1/1"]
    assert list(state.lldp) == ["Ethernet1/1"] and seen["system"] == "eoslab-r0-leaf01" and seen["port"] == "Ethernet3/1"
    assert state.bgp["local_as"] == 64513
    assert state.bgp["peers"]["10.16.0.3"]["state"] == "Established"
    assert state.bgp["peers"]["10.16.0.7"]["state"] == "Idle (Admin)"
    port = state.interfaces["Ethernet1/1"]
    assert port["admin_up"] and port["oper_up"] and port["mtu"] == 9214
    # Every rendered port's RoCE treatment, read from the running config the deploy left.
    qos = state.qos["Ethernet1/1"]
    assert qos["trust"] == "dscp" and qos["pfc"] == [3] and qos["ecn"] == [3] and qos["dscp_to_tc"][26] == 3
    assert state.routes["10.32.0.0/24"] == {"protocol": "bgp", "nexthops": [{"ip": "10.16.0.3",
                                                                             "interface": "Ethernet1/1"}]}


def test_a_certificate_of_another_ca_is_an_error_of_every_observation(switch, tmp_path):
    other, _key = emuhttp.make_ca(str(tmp_path))
    transport = collectors.api_transport({HOST: dict(switch, ca=other)})
    state = collect_commands(transport, HOST, "backend_spine", ["bgp", "lldp"], nos_name="eos")
    assert sorted(state.errors) == ["bgp", "lldp"]
    assert all("CERTIFICATE_VERIFY_FAILED" in e and PASSWORD not in e for e in state.errors.values())
