"""The Cumulus emulator's operational views and defaults, without namespaces: `nv show interface` from the kernel's
links and lldpd's JSON, `nv show vrf default router bgp neighbor` from FRR's summary (oper_live.py); the factory
configuration a twin switch boots (factory.py) valid for NVIDIA's model; what NVUE fills in with filled=true."""
import json

import pytest

from gpufabric.twin.emulators.cumulus import factory, nv_cli, oper_live
from gpufabric.twin.emulators.cumulus.nvue_checks import model_releases, schema_validator

LINKS = [
    {"ifname": "lo", "ifindex": 1, "mtu": 65536, "flags": ["LOOPBACK", "UP", "LOWER_UP"], "address": "00:00:00:00:00:00"},
    {"ifname": "eth0", "ifindex": 2, "mtu": 1500, "flags": ["BROADCAST", "UP", "LOWER_UP"], "address": "02:00:00:00:00:01"},
    {"ifname": "swp1", "ifindex": 3, "mtu": 9216, "flags": ["BROADCAST", "UP", "LOWER_UP"], "address": "02:00:00:00:00:02"},
    {"ifname": "swp2", "ifindex": 4, "mtu": 9216, "flags": ["BROADCAST", "UP"], "address": "02:00:00:00:00:03"},
    {"ifname": "swp3", "ifindex": 5, "mtu": 1500, "flags": ["BROADCAST"], "address": "02:00:00:00:00:04"},
    {"ifname": "vrfl1", "ifindex": 6, "mtu": 1500, "flags": ["UP", "LOWER_UP"], "address": "02:00:00:00:00:05"},
]
ADDRS = [{"ifname": "swp1", "addr_info": [{"local": "10.0.0.1", "prefixlen": 31}]},
         {"ifname": "lo", "addr_info": [{"local": "127.0.0.1", "prefixlen": 8}, {"local": "10.32.0.1", "prefixlen": 32}]}]
# lldpcli -f json show neighbors (lldpd 1.0.16) with one neighbour: "interface" is then an object, not a list.
LLDP = {"lldp": {"interface": {"swp1": {"via": "LLDP", "age": "0 day, 00:01:02", "chassis": {"cumuluslab-spine01": {
    "id": {"type": "mac", "value": "02:00:00:00:00:aa"}, "descr": "twin"}}, "port": {
    "id": {"type": "ifname", "value": "swp17"}, "descr": "swp17", "ttl": "20"}}}}}
SUMMARY = {"peers": {"10.0.0.0": {"remoteAs": 64600, "state": "Established", "pfxRcd": 7, "pfxSnt": 3,
                                  "peerUptimeMsec": 65000, "hostname": "cumuluslab-spine01"},
                     "10.0.0.4": {"remoteAs": 64600, "state": "Active", "pfxRcd": 0, "pfxSnt": 0}}}
CONFIG = {"interface": {"swp1": {"type": "swp"}, "swp2": {"type": "swp"}, "eth0": {"type": "eth", "ip": {"vrf": "mgmt"}}},
          "vrf": {"default": {"router": {"bgp": {"neighbor": {"10.0.0.0": {"type": "numbered", "peer-group": "FABRIC"}}}}}}}


@pytest.fixture
def live(tmp_path, monkeypatch):
    """nv inside a switch whose kernel, lldpd and FRR answer as above; /sys speeds: swp1 10000, the rest none."""
    directory = tmp_path / "sw1" / "nvue"
    directory.mkdir(parents=True)
    (directory / "applied.json").write_text(json.dumps(CONFIG))
    monkeypatch.setattr(nv_cli, "_switch_dir", lambda: ("sw1", str(directory)))
    calls = []

    def run(argv):
        calls.append(argv)
        if argv[:3] == ["ip", "-j", "link"]:
            return json.dumps(LINKS)
        if argv[:2] == ["ip", "-j"]:
            return json.dumps(ADDRS)
        if argv[0] == "lldpcli":
            assert argv[2] == str(tmp_path / "sw1" / "lldpd.socket")
            return json.dumps(LLDP)
        if argv[0] == "vtysh":
            assert argv[1:3] == ["-N", "sw1"]
            return json.dumps(SUMMARY)
        return ""
    monkeypatch.setattr(oper_live, "_run", run)
    (tmp_path / "etc-frr" / "sw1").mkdir(parents=True)    # FRR's pathspace of sw1, seen from the machine
    monkeypatch.setattr(oper_live, "FRR_ETC", str(tmp_path / "etc-frr"))
    monkeypatch.setattr(oper_live, "_sys", lambda name, what: {"speed": "10000", "carrier_changes": "2"}[what]
                        if name == "swp1" else None)
    return calls


def test_nv_show_interface_answers_from_the_kernel_and_lldpd(live, capsys):
    assert nv_cli.main(["show", "interface", "-o", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert sorted(shown) == ["eth0", "lo", "swp1", "swp2", "swp3"]          # not the twin's own links (vrfl1)
    swp1 = shown["swp1"]
    assert swp1["type"] == "swp" and swp1["ip"]["address"] == {"10.0.0.1/31": {}}
    assert swp1["link"]["state"] == {"up": {}} and swp1["link"]["speed"] == "10G" and swp1["link"]["mtu"] == 9216
    assert swp1["link"]["counters"]["carrier-transitions"] == 2
    assert swp1["lldp"]["neighbor"]["cumuluslab-spine01"]["port"]["name"] == "swp17"
    # Admin up without carrier is down, and has no speed; a port never brought up is admin down.
    assert shown["swp2"]["link"]["state"] == {"down": {}} and shown["swp2"]["link"]["admin-status"] == "up"
    assert "speed" not in shown["swp2"]["link"] and shown["swp3"]["link"]["admin-status"] == "down"
    assert shown["eth0"]["ip"]["vrf"] == "mgmt" and shown["lo"]["type"] == "loopback"
    assert nv_cli.main(["show", "interface", "swp1", "link", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["oper-status"] == "up"
    assert nv_cli.main(["show", "interface", "swp9", "-o", "json"]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_nv_show_bgp_neighbors_answers_from_frr(live, capsys):
    assert nv_cli.main(["show", "vrf", "default", "router", "bgp", "neighbor", "-o", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["10.0.0.0"]["state"] == "established" and shown["10.0.0.0"]["remote-as"] == 64600
    assert shown["10.0.0.0"]["peer-group"] == "FABRIC" and shown["10.0.0.0"]["up-time"] == 65
    assert shown["10.0.0.0"]["address-family"]["ipv4-unicast"] == {"rx-prefix": 7, "tx-prefix": 3}
    assert shown["10.0.0.4"]["state"] == "active" and "up-time" not in shown["10.0.0.4"]
    assert nv_cli.main(["show", "vrf", "default", "router", "bgp", "neighbor", "10.0.0.4", "state", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == "active"


def test_nv_show_bgp_neighbors_through_the_netns_connection_asks_plain_vtysh(live, tmp_path, monkeypatch, capsys):
    # Through the netns connection /etc/frr is the switch's own pathspace: no /etc/frr/<host>, plain vtysh reaches it.
    monkeypatch.setattr(oper_live, "FRR_ETC", str(tmp_path / "switch-etc-frr"))
    monkeypatch.setattr(oper_live, "_run", lambda argv: json.dumps(SUMMARY) if argv[:2] == ["vtysh", "-c"] else "")
    assert nv_cli.main(["show", "vrf", "default", "router", "bgp", "neighbor", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["10.0.0.0"]["state"] == "established"


@pytest.mark.parametrize("mbps, words", [("10000", "10G"), ("400000", "400G"), ("100", "100M"), ("-1", None),
                                         (None, None)])
def test_speeds_read_as_nvue_writes_them(mbps, words):
    assert oper_live.speed_text(mbps) == words


@pytest.mark.skipif("5.14" not in model_releases(), reason="nvueschema (NVIDIA's NVUE models) is not installed")
def test_the_factory_configuration_and_its_filled_form_are_valid_for_nvidias_model():
    valid = schema_validator("5.14")
    config = factory.factory_config()
    assert valid("sw", config) == []
    assert config["system"]["hostname"] == "cumulus"
    assert config["interface"]["eth0"] == {"type": "eth", "ip": {"address": {"dhcp": {}}, "vrf": "mgmt"}}
    assert config["system"]["aaa"]["user"]["cumulus"]["role"] == "system-admin"
    config["interface"]["swp1"] = {"type": "swp", "link": {"mtu": 9000}}
    config["mlag"] = {"enable": "on", "priority": 1000}
    full = factory.filled(config)
    assert valid("sw", full) == []
    assert full["interface"]["swp1"]["link"] == {"mtu": 9000, "state": {"up": {}}, "duplex": "full"}   # set is kept
    assert full["mlag"] == {"enable": "on", "priority": 1000, "init-delay": 180, "debug": "off"}
    assert full["system"]["security"]["password-hardening"]["len-min"] == 8
    assert "link" not in full["interface"]["eth0"] and config["interface"]["swp1"]["link"] == {"mtu": 9000}


def test_the_factory_startup_yaml_is_what_the_switch_reads_back():
    import yaml

    docs = yaml.safe_load(factory.factory_startup("5.14"))
    assert docs[0]["header"]["version"] == "Cumulus Linux 5.14.0" and docs[1]["set"] == factory.factory_config()
