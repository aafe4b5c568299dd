"""The twin's EOS emulator without root (twin/emulators/eos/): the CLI's modes and lines, configuration sessions and the
commit timer, eAPI's JSON-RPC envelope and errors as pyeapi reads them, the translation to links and FRR."""
import json
import os

import pytest

from gpufabric.twin.emulators.eos import eapi, http, namespace, plane, show, translate
from gpufabric.twin.emulators.eos.cli import CliError, Config, Editor, FACTORY_CONFIG, diff

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

LEAF = """\
hostname leaf1
!
interface Ethernet1/1
   description gpu1
   no shutdown
   mtu 9216
   speed 400g-4
   no switchport
   ip address 10.0.0.0/31
   priority-flow-control priority 3 no-drop
!
interface Ethernet2/1
   shutdown
   no switchport
   ip address 10.16.0.1/31
!
interface Loopback0
   ip address 10.32.0.1/32
!
interface Management1
   vrf MGMT
   ip address 192.168.0.1/22
!
ip routing
no ip routing vrf MGMT
!
ip prefix-list SERVER_LINKS
   seq 10 permit 10.0.0.0/30 le 31
!
route-map SERVER_LINKS permit 10
   match ip address prefix-list SERVER_LINKS
!
route-map DRAIN permit 10
   set as-path prepend 64514 64514 64514
!
router bgp 64514
   router-id 10.32.0.1
   no bgp default ipv4-unicast
   maximum-paths 2 ecmp 2
   bgp bestpath as-path multipath-relax
   neighbor FABRIC peer group
   neighbor FABRIC bfd
   neighbor FABRIC bfd interval 300 min-rx 300 multiplier 3
   neighbor FABRIC timers 3 9
   neighbor FABRIC send-community
   neighbor FABRIC route-map DRAIN out
   neighbor 10.16.0.0 peer group FABRIC
   neighbor 10.16.0.0 remote-as 64513
   aggregate-address 10.0.0.0/30 summary-only
   redistribute connected route-map SERVER_LINKS
   !
   address-family ipv4
      neighbor FABRIC activate
      network 10.32.0.1/32
!
ntp server vrf MGMT 192.168.3.254
logging host 192.168.3.254
"""


def _flat(text):
    """What napalm's eos driver sends of a config: every line stripped, comments left out."""
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("!")]


def test_indented_and_flat_config_make_the_same_tree():
    flat = Config()
    editor = Editor(flat)
    for line in _flat(LEAF):
        editor.feed(line)
    assert flat.text() == Config.parse(LEAF).text()
    assert Config.parse(Config.parse(LEAF).text()).text() == Config.parse(LEAF).text()


def test_a_line_no_mode_knows_is_refused_in_eos_words():
    with pytest.raises(CliError, match=r"Invalid input \(at token 0: 'frobnicate'\)"):
        Config.parse("interface Ethernet1/1\n   frobnicate 3\n")
    with pytest.raises(CliError):
        Config.parse("router bgp 65000\n   neighbor 10.0.0.1 remote-as notanumber\n")


def test_setting_replaces_and_no_removes():
    config = Config.parse(LEAF)
    editor = Editor(config)
    for line in ("interface Ethernet1/1", "mtu 1500", "no description", "router bgp 64514", "no neighbor FABRIC bfd"):
        editor.feed(line)
    block = config.find("interface Ethernet1/1")
    assert "mtu 1500" in [c.line for c in block.children] and "mtu 9216" not in [c.line for c in block.children]
    assert not any(c.line.startswith("description") for c in block.children)
    assert "neighbor FABRIC bfd" not in [c.line for c in config.find("router bgp 64514").children]


def test_session_diff_is_a_unified_diff():
    text = diff(Config.parse(FACTORY_CONFIG), Config.parse(LEAF))
    assert text.startswith("--- system:/running-config\n+++ session-config\n@@ ")  # cli.diff; show names the session
    assert "+hostname leaf1" in text and "-no ip routing" in text


def test_translation_to_links_and_frr():
    config = Config.parse(LEAF)
    ports = translate.interfaces(config)
    assert ports["Ethernet1/1"] == {"mtu": 9216, "addrs": ["10.0.0.0/31"], "up": True, "routed": True,
                                    "description": "gpu1", "dhcp": False, "vrf": None,
                                    "speed": "400g-4"}
    assert ports["Ethernet2/1"]["up"] is False
    frr = translate.frr_conf(config, "x")
    for line in ("hostname x", "ip prefix-list SERVER_LINKS seq 10 permit 10.0.0.0/30 le 31",
                 " set as-path prepend 64514 64514 64514", "router bgp 64514", " neighbor FABRIC peer-group",
                 " neighbor FABRIC bfd", " neighbor 10.16.0.0 peer-group FABRIC", "  maximum-paths 2",
                 "  aggregate-address 10.0.0.0/30 summary-only", "  neighbor FABRIC route-map DRAIN out",
                 "  neighbor FABRIC activate", "  network 10.32.0.1/32"):
        assert line in frr.splitlines(), line
    assert "ntp" not in frr and "logging" not in frr


def test_a_neighbour_shut_down_is_shut_in_frr_and_idle_for_reason_admin_in_the_summary():
    config = Config.parse(LEAF.replace("   neighbor 10.16.0.0 peer group FABRIC\n",
                                       "   neighbor 10.16.0.0 peer group FABRIC\n   neighbor 10.16.0.0 shutdown\n"))
    assert " neighbor 10.16.0.0 shutdown" in translate.frr_conf(config, "x").splitlines()

    class Oper(eapi.Oper):
        def bgp(self):
            return {"as": 64514, "routerId": "10.32.0.1", "peers": {
                "10.16.0.0": {"remoteAs": 64513, "state": "Idle (Admin)"},
                "10.16.0.2": {"remoteAs": 64513, "state": "Established"}}}

    sw = eapi.EosSwitch("leaf1", "7060X6-64PE", "JPE1", "00:1c:73:00:00:01", oper=Oper())
    peers = sw.run_cmds(["show ip bgp summary"])[0][0]["vrfs"]["default"]["peers"]
    assert peers["10.16.0.0"]["peerState"] == "Idle" and peers["10.16.0.0"]["peerStateIdleReason"] == "Admin"
    assert peers["10.16.0.2"]["peerState"] == "Established" and "peerStateIdleReason" not in peers["10.16.0.2"]


def test_bfd_timers_other_than_bfdds_are_refused():
    config = Config.parse(LEAF.replace("bfd interval 300 min-rx 300 multiplier 3", "bfd interval 100 min-rx 100 multiplier 3"))
    with pytest.raises(translate.Unsupported, match="bfd"):
        translate.frr_conf(config, "x")


def test_kernel_lines_use_linux_names():
    assert plane.kernel_port("Ethernet1/5") == "Ethernet1_5" and namespace.eos_port("Ethernet1_5") == "Ethernet1/5"
    links = {"Ethernet1_1": {"mtu": 1500, "flags": [], "addr_info": [], "linkinfo": {"info_kind": "veth"}},
             "Ethernet2_1": {"mtu": 1500, "flags": ["UP"], "addr_info": [], "linkinfo": {"info_kind": "veth"}},
             "lo": {"mtu": 65536, "flags": ["UP"], "addr_info": [{"family": "inet", "local": "127.0.0.1", "prefixlen": 8}]}}
    lines = namespace.kernel_lines(translate.interfaces(Config.parse(LEAF)), links)
    assert "link set Ethernet1_1 mtu 9216" in lines and "addr add 10.0.0.0/31 dev Ethernet1_1" in lines
    assert "link set Ethernet1_1 up" in lines and "link set Ethernet2_1 down" in lines
    assert "addr add 10.32.0.1/32 dev lo" in lines


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def switch(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(eapi.time, "monotonic", clock)
    applied = []
    sw = eapi.EosSwitch("leaf1", "7060X6-64PE", "JPE1", "00:1c:73:00:00:01", applier=applied.append)
    sw.clock, sw.applied = clock, applied
    return sw


def _load(sw, name="s1"):
    return sw.run_cmds(["enable", "configure session %s" % name, "rollback clean-config"] + _flat(LEAF) + ["end"])


def test_factory_boot_and_show_version(switch):
    results, error = switch.run_cmds(["enable", "show version", "show hostname"])
    assert error is None
    assert results[1]["modelName"] == "DCS-7060X6-64PE" and results[1]["version"] == show.EOS_VERSION
    assert results[2] == {"hostname": "localhost", "fqdn": "localhost"}
    assert "interface Management1\n   ip address dhcp" in switch.running.text()


def test_session_commit_timer_reverts_unless_confirmed(switch):
    assert _load(switch)[1] is None
    results, _error = switch.run_cmds(["enable", "show session-config named s1 diffs"], "text")
    assert results[1]["output"].startswith("--- system:/running-config\n+++ session:/s1-session-config\n@@ ")
    assert "+hostname leaf1" in results[1]["output"]
    assert switch.run_cmds(["enable", "show hostname"])[0][1]["hostname"] == "localhost"   # not committed yet
    switch.run_cmds(["enable", "copy startup-config flash:rollback-0", "configure session s1 commit timer 00:00:10"])
    assert switch.run_cmds(["show hostname"])[0][0]["hostname"] == "leaf1"
    sessions = switch.run_cmds(["show configuration sessions detail", "show version"])[0]
    assert sessions[0]["commitTimerSessionName"] == "s1" and sessions[0]["sessions"]["s1"]["state"] == "pendingCommitTimer"
    assert 0 < sessions[0]["commitTimerExpireTime"] - sessions[1]["uptime"] <= 10
    switch.clock.now += 11
    switch.tick()
    assert switch.run_cmds(["show hostname"])[0][0]["hostname"] == "localhost"
    assert "commitTimerSessionName" not in switch.run_cmds(["show configuration sessions detail"])[0][0]
    # again, confirmed this time: it stays
    _load(switch, "s2")
    switch.run_cmds(["enable", "configure session s2 commit timer 00:00:10"])
    switch.run_cmds(["enable", "configure session s2 commit", "write memory"])
    switch.clock.now += 11
    switch.tick()
    assert switch.run_cmds(["show hostname"])[0][0]["hostname"] == "leaf1"
    assert "hostname leaf1" in switch.startup.text()


def test_abort_drops_the_session_and_a_pending_timer(switch):
    _load(switch)
    switch.run_cmds(["enable", "configure session s1 abort"])
    assert switch.run_cmds(["show configuration sessions"])[0][0]["sessions"] == {}
    _load(switch, "s3")
    switch.run_cmds(["configure session s3 commit timer 00:05:00"])
    switch.run_cmds(["configure session s3 abort"])
    assert switch.run_cmds(["show hostname"])[0][0]["hostname"] == "localhost"


def test_unknown_command_is_refused_as_eos_refuses_it(switch):
    _results, error = switch.run_cmds(["enable", "show version", "show frobnicate"])
    assert error["code"] == 1002
    assert error["message"] == "CLI command 3 of 3 'show frobnicate' failed: invalid command"
    assert error["data"][-1] == {"errors": ["Invalid input (at token 1: 'frobnicate')"]} and len(error["data"]) == 3
    _results, error = switch.run_cmds(["enable", "configure session bad", "interface Ethernet1/1", "frobnicate"])
    assert error["message"] == "CLI command 4 of 4 'frobnicate' failed: invalid command"


def test_jsonrpc_envelope_and_pyeapi_reads_the_error(switch):
    from pyeapi.eapilib import CommandError, EapiConnection
    ok = http.answer(switch, json.dumps({"jsonrpc": "2.0", "method": "runCmds", "id": 7,
                                         "params": {"version": 1, "cmds": ["enable", "show hostname"], "format": "json"}}))
    assert ok == {"jsonrpc": "2.0", "id": 7, "result": [{}, {"hostname": "localhost", "fqdn": "localhost"}]}
    bad = http.answer(switch, json.dumps({"jsonrpc": "2.0", "method": "runCmds", "id": 8,
                                          "params": {"version": 1, "cmds": ["enable", "shw version"], "format": "json"}}))
    code, message, err, _out = EapiConnection()._parse_error_message(bad)
    assert code == 1002 and "invalid command" in message and "Invalid input" in err
    assert isinstance(CommandError(code, message, command_error=err), Exception)
    assert http.answer(switch, b"{")["error"]["code"] == -32700
    assert http.answer(switch, json.dumps({"jsonrpc": "2.0", "method": "other", "id": 1, "params": {}}))["error"]["code"] == -32601


def test_built_startup_configs_load(tmp_path):
    """Every EOS startup-config of the eos-lab golden build loads and translates."""
    golden = os.path.join(ROOT, "tests", "golden", "eos-lab", "rendered", "devices")
    if not os.path.isdir(golden):
        pytest.skip("no golden build of eos-lab")
    found = 0
    for host in sorted(os.listdir(golden)):
        path = os.path.join(golden, host, "startup-config")
        if os.path.exists(path):
            with open(path) as f:
                config = Config.parse(f.read())
            assert "router bgp" in translate.frr_conf(config, host)
            found += 1
    assert found


ACL = """\
ip access-list TENANT_ALPHA
   counters per-entry
   5 remark tenant alpha
   10 permit ip any 10.0.0.0/31
   20 permit ip any host 10.32.0.1
   30 deny ip any any
!
interface Ethernet1/1
   no switchport
   ip address 10.0.0.0/31
   ip access-group TENANT_ALPHA in
"""


def test_port_acls_as_nftables_with_eos_implicit_deny():
    from gpufabric.twin.emulators.eos import acl
    rules = acl.port_rules(Config.parse(ACL), plane.kernel_port)
    assert rules == {"Ethernet1_1": ["meta protocol ip ip daddr 10.0.0.0/31 accept",
                                     "meta protocol ip ip daddr 10.32.0.1 accept",
                                     "meta protocol ip drop", "meta protocol ip drop"]}
    with pytest.raises(translate.Unsupported, match="tcp any any eq 22"):
        acl.port_rules(Config.parse(ACL.replace("30 deny ip any any", "30 permit tcp any any eq 22")), plane.kernel_port)


def test_configure_terminal_and_napalm_rollback(switch):
    """``configure`` changes the running-config line by line; napalm's rollback is ``configure replace
    flash:rollback-0`` of the copy it made before its commit."""
    switch.run_cmds(["enable", "copy running-config flash:rollback-0"])
    _results, error = switch.run_cmds(["enable", "configure", "hostname direct", "end"])
    assert error is None and switch.run_cmds(["show hostname"])[0][0]["hostname"] == "direct"
    switch.run_cmds(["enable", "configure replace flash:rollback-0", "write memory"])
    assert switch.run_cmds(["show hostname"])[0][0]["hostname"] == "localhost"
    _results, error = switch.run_cmds(["configure replace flash:nothing"])
    assert error["message"] == "CLI command 1 of 1 'configure replace flash:nothing' failed: could not run command"
