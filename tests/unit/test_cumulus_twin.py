"""The Cumulus switch of the twin, without namespaces: what an applied NVUE revision becomes (FRR
configuration, kernel changes, nftables), what the twin refuses to model, the Cumulus collectors' facts
against the plan, and the twin's `nv`. The namespace side runs in tests/twin/test_cumulus_twin.py."""
import copy
import json
import os

import pytest

from conftest import ROOT, load_example
from gpufabric.nos.cumulus import collectors, schema
from gpufabric.twin.emulators.cumulus import frr, nv_cli, plane, switch
from gpufabric.plan import build_plan
from gpufabric.validate.expect import Expectation

GOLDEN = os.path.join(ROOT, "tests", "golden", "cumulus-lab", "rendered", "devices")


def startup_text(host):
    with open(os.path.join(GOLDEN, host, "startup.yaml"), encoding="utf-8") as f:
        return f.read()


def applied(host):
    return schema.load_startup(startup_text(host))[1]["set"]


def link(name, kind="veth", mtu=1500, addrs=(), up=False):
    return {"ifname": name, "mtu": mtu, "flags": ["BROADCAST", "UP"] if up else ["BROADCAST"],
            "linkinfo": {"info_kind": kind} if kind else {},
            "addr_info": [{"family": "inet", "local": a.split("/")[0], "prefixlen": int(a.split("/")[1])} for a in addrs]}


def test_frr_conf_of_a_leaf_carries_the_nvue_bgp():
    text = frr.frr_conf(applied("cumuluslab-r0-leaf01"), "cumuluslab-r0-leaf01")
    lines = text.splitlines()
    assert "router bgp 64514" in lines and " bgp router-id 10.32.0.1" in lines
    assert " bgp bestpath as-path multipath-relax" in lines
    # The members state their ASN, so FRR gets it per member and the group none (FRR refuses both at once).
    assert " neighbor FABRIC remote-as external" not in lines
    assert " neighbor 10.16.0.0 remote-as 64513" in lines and " neighbor 10.16.0.0 peer-group FABRIC" in lines
    # BFD as FRR 8.4 with bfdd shows it (no timers): a reload of the same configuration then changes nothing, where
    # `bfd 3 300 300` is taken away and given back by every frr-reload, and every session over it goes down.
    assert " neighbor FABRIC timers 3 9" in lines and " neighbor FABRIC bfd" in lines
    assert not [ln for ln in lines if " bfd " in ln]
    assert "  aggregate-address 10.0.0.0/30 summary-only" in lines
    assert "  redistribute connected route-map SERVER_LINKS" in lines and "  maximum-paths 2" in lines
    assert "ip prefix-list SERVER_LINKS seq 5 permit 10.0.0.0/30 le 31" in lines
    assert frr.daemons(applied("cumuluslab-r0-leaf01")) == ["zebra", "bgpd", "bfdd"]


def test_a_peer_group_remote_as_stays_on_the_group_when_no_member_states_one():
    config = applied("cumuluslab-spine01")
    for neighbor in config["vrf"]["default"]["router"]["bgp"]["neighbor"].values():
        neighbor.pop("remote-as")
    lines = frr.frr_conf(config, "s").splitlines()
    assert " neighbor FABRIC remote-as external" in lines
    assert not [ln for ln in lines if ln.startswith(" neighbor 10.") and " remote-as " in ln]


def test_an_empty_configuration_runs_no_bgp():
    assert "router bgp" not in frr.frr_conf({}, "s") and frr.daemons({}) == ["zebra"]


@pytest.mark.parametrize("change, path", [
    ({"vrf": {"Vrf-alpha": {"router": {"bgp": {"neighbor": {"10.9.9.9": {"remote-as": 65000}}}}}}},
     "vrf.Vrf-alpha.router.bgp.neighbor"),
    ({"vrf": {"default": {"router": {"bgp": {"address-family": {"ipv4-unicast": {"route-import": {"from-vrf": {
        "enable": "on", "list": {"Vrf-nowhere": {}}}}}}}}}}},
     "vrf.default.router.bgp.address-family.ipv4-unicast.route-import.from-vrf.list.Vrf-nowhere"),
    ({"vrf": {"default": {"router": {"bgp": {"neighbor": {"10.16.0.0": {"type": "unnumbered"}}}}}}},
     "vrf.default.router.bgp.neighbor.10.16.0.0.type"),
    ({"router": {"policy": {"route-map": {"X": {"rule": {"10": {"match": {"tag": 5}, "action": {"permit": {}}}}}}}}},
     "router.policy.route-map.X.rule.10.match.tag"),
    ({"vrf": {"default": {"router": {"bgp": {"peer-group": {"FABRIC": {"bfd": {"min-rx-interval": 100}}}}}}}},
     "vrf.default.router.bgp.peer-group.FABRIC.bfd"),
])
def test_what_the_twin_cannot_render_is_refused_naming_the_path(change, path):
    from gpufabric.twin.emulators.cumulus.merge_patch import apply as merge

    with pytest.raises(frr.Unsupported, match=path.replace(".", r"\.")):
        frr.frr_conf(merge(applied("cumuluslab-r0-leaf01"), change), "s")


def with_tenant_vrfs(host):
    """The rendered NVUE configuration of ``host`` with the cumulus-lab tenants in VRF mode (examples/tenants)."""
    from gpufabric import build, specfile, tenants
    from gpufabric.nos.cumulus.nvue import nvue_set

    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "cumulus-lab", "cumulus-lab.topology.yml")))
    tenants.attach(plan, tenants.load_assignment(os.path.join(ROOT, "examples", "tenants", "cumulus-lab-vrf.tenants.yml"),
                                                 tenants.plan_servers(plan)))
    return nvue_set(build.structured_configs(plan, names=[host])[host])


def test_tenant_vrfs_are_rendered_as_frr_shows_them_and_translate_for_the_twin():
    from gpufabric.twin import vrf

    text = frr.frr_conf(with_tenant_vrfs("cumuluslab-r0-leaf01"), "cumuluslab-r0-leaf01")
    blocks = text.split("\n!\n")
    default = next(b for b in blocks if b.startswith("router bgp 64514\n"))
    # FRR shows VRF leaking last in the address family: the route-map, then the VRFs.
    assert default.splitlines()[-5:] == ["  import vrf route-map TENANT_EXPORT", "  import vrf Vrf-alpha",
                                         "  import vrf Vrf-beta", " exit-address-family", "exit"]
    alpha = next(b for b in blocks if b.startswith("router bgp 64514 vrf Vrf-alpha\n"))
    assert alpha.splitlines() == ["router bgp 64514 vrf Vrf-alpha", " bgp router-id 10.32.0.1", " !",
                                  " address-family ipv4 unicast", "  redistribute connected", "  maximum-paths 2",
                                  "  import vrf route-map TENANT_ALPHA_IMPORT", "  import vrf default",
                                  " exit-address-family", "exit"]
    # The twin's translation (twin/vrf.py) finds each VRF's tenant id in the export route-map, as on SONiC.
    ids = vrf.tenant_ids(text)
    assert ids == {"Vrf-alpha": 1, "Vrf-beta": 2}
    leaf, vrfs = vrf.translate("cumuluslab-r0-leaf01", text, ids)
    assert " vrf " not in "".join(ln for ln in leaf.splitlines() if ln.startswith("router bgp"))
    assert "  neighbor 169.254.0.3 route-map TWIN_FROM_Vrf-alpha in" in leaf.splitlines()
    assert "  neighbor 169.254.0.2 route-map TENANT_ALPHA_IMPORT in" in vrfs["Vrf-alpha"].splitlines()


def test_kernel_plan_keeps_a_tenant_vrf_port_s_address_for_its_vrf_and_takes_a_port_out_of_one():
    config = with_tenant_vrfs("cumuluslab-r0-leaf01")
    links = {"swp1s0": link("swp1s0", mtu=9216, addrs=["10.0.0.0/31"], up=True),
             "swp1s1": dict(link("swp1s1", mtu=9216, up=True), master="bswp1s1"), "vswp1s1": link("vswp1s1")}
    assert switch.vrf_ports(config, links) == {"Vrf-alpha": {"swp1s0": (9216, ["10.0.0.0/31"], True)},
                                               "Vrf-beta": {"swp1s1": (9216, ["10.0.0.2/31"], True)}}
    lines, _changes = switch.kernel_plan(config, links)
    # In its VRF, the port's /31 is the VRF namespace's (twin/vrf.py): the leaf's end holds none.
    assert lines == ["addr del 10.0.0.0/31 dev swp1s0"]
    config["interface"]["swp1s1"]["ip"].pop("vrf")
    lines, changes = switch.kernel_plan(config, links)
    assert lines == ["addr del 10.0.0.0/31 dev swp1s0", "link set swp1s1 nomaster", "link del bswp1s1",
                     "link del vswp1s1", "addr add 10.0.0.2/31 dev swp1s1"]
    assert "swp1s1 out of its tenant VRF" in changes


def test_kernel_plan_sets_ports_as_configured_and_downs_the_rest():
    links = {"lo": link("lo", kind=None, mtu=65536, addrs=["127.0.0.1/8"], up=True),
             "swp2": link("swp2"), "swp3": link("swp3", mtu=9216, addrs=["10.9.9.9/31"], up=True),
             "swp64": link("swp64", up=True), "eth0": link("eth0", addrs=["192.168.0.1/22"], up=True)}
    lines, changes = switch.kernel_plan(applied("cumuluslab-r0-leaf01"), links)
    assert lines == ["addr add 10.32.0.1/32 dev lo",
                     "link set swp2 mtu 9216", "addr add 10.16.0.1/31 dev swp2", "link set swp2 up",
                     "addr del 10.9.9.9/31 dev swp3", "addr add 10.16.0.3/31 dev swp3",
                     "link set swp64 mtu 9216", "link set swp64 down"]
    assert "lo address 10.32.0.1/32" in changes
    # eth0 is the twin's (its management address, as DHCP gave it): untouched.
    assert not [ln for ln in lines if "eth0" in ln]


def test_kernel_plan_of_the_same_configuration_changes_nothing():
    config = applied("cumuluslab-r0-leaf01")
    links = {"lo": link("lo", kind=None, addrs=["127.0.0.1/8", "10.32.0.1/32"], up=True),
             "swp2": link("swp2", mtu=9216, addrs=["10.16.0.1/31"], up=True),
             "swp4": link("swp4", mtu=9216, up=False)}
    assert switch.kernel_plan(config, links) == ([], [])


@pytest.mark.parametrize("change, message", [
    ({"interface": {"swp2": {"ip": {"vrf": "Vrf-alpha"}}}}, "interface.swp2.ip.vrf Vrf-alpha"),
    ({"interface": {"swp2s0": {"type": "sub"}}}, "interface.swp2s0.type sub"),
    ({"interface": {"bond1": {"type": "bond"}}}, "interface.bond1.bond.member: a bond needs member ports"),
    ({"bridge": {"domain": {"br_default": {"vlan": {"100": {}, "200": {}}}}},
      "interface": {"bond1": {"type": "bond", "bond": {"member": {"swp30": {}}}, "bridge": {"domain": {"br_default": {}}}}}},
     "carries VLANs 100, 200"),
    ({"interface": {"vlan100": {"type": "svi", "vlan": 100}}}, "interface.vlan100.vlan 100: not a VLAN of any bridge"),
    ({"interface": {"swp2": {"ip": {"address": {"2001:db8::1/64": {}}}}}}, "IPv6"),
])
def test_kernel_plan_refuses_what_the_twin_does_not_model(change, message):
    from gpufabric.twin.emulators.cumulus.merge_patch import apply as merge

    with pytest.raises(frr.Unsupported, match=message):
        switch.kernel_plan(merge(applied("cumuluslab-r0-leaf01"), change), {"swp2": link("swp2")})


def test_nft_script_control_plane_acl_in_rule_order():
    text = switch.nft_script(applied("cumuluslab-r0-leaf01"), {"swp2"})
    rules = [ln.strip() for ln in text.splitlines() if "counter" in ln]
    assert rules == [
        'meta nfproto ipv4 ip saddr 192.168.0.0/22 ip protocol tcp tcp dport { 22 } counter accept comment "GPUFABRIC_MGMT rule 10"',
        'meta nfproto ipv4 ip protocol tcp tcp dport { 22 } counter drop comment "GPUFABRIC_MGMT rule 20"',
        'meta nfproto ipv4 ip saddr 192.168.0.0/22 ip protocol udp udp dport { 161 } counter accept comment "GPUFABRIC_MGMT rule 30"',
        'meta nfproto ipv4 ip protocol udp udp dport { 161 } counter drop comment "GPUFABRIC_MGMT rule 40"']
    # One transaction replacing both tables, whatever was there.
    assert text.startswith("table inet gpufabric_cp {}\ndelete table inet gpufabric_cp\n")


def test_nft_script_port_acl_on_the_ingress_of_cabled_ports_only():
    config = applied("cumuluslab-r0-leaf01")
    config["acl"]["TENANT_A"] = {"type": "ipv4", "rule": {
        "10": {"match": {"ip": {"dest-ip": "10.0.0.0/31"}}, "action": {"permit": {}}},
        "20": {"match": {"ip": {"dest-ip": "ANY"}}, "action": {"deny": {}}}}}
    config["interface"]["swp1s0"]["acl"] = {"TENANT_A": {"inbound": {}}}
    config["interface"]["swp1s1"]["acl"] = {"TENANT_A": {"inbound": {}}}
    text = switch.nft_script(config, {"swp1s0"})
    assert 'type filter hook ingress device "swp1s0" priority 0; policy accept;' in text
    assert "swp1s1" not in text
    assert 'meta protocol ip ip daddr 10.0.0.0/31 counter accept comment "TENANT_A rule 10"' in text
    assert 'meta protocol ip counter drop comment "TENANT_A rule 20"' in text
    config["interface"]["swp1s0"]["acl"] = {"TENANT_A": {"outbound": {}}}
    with pytest.raises(frr.Unsupported, match="interface.swp1s0.acl.TENANT_A: inbound only"):
        switch.nft_script(config, {"swp1s0"})


def test_boot_facts_of_a_rendered_startup():
    assert plane.boot_facts(startup_text("cumuluslab-r0-leaf01")) == ("5.14", {"eth0": ["192.168.0.1/22"]})


def test_collector_qos_facts_are_the_plans_on_every_backend_port():
    plan = build_plan(load_example("cumulus-lab"))
    want = Expectation(plan).qos("cumuluslab-r0-leaf01")
    docs = [{"header": {}}, {"set": applied("cumuluslab-r0-leaf01")}]
    facts = collectors.PARSERS["qos"][1](json.dumps(docs))
    for port in ("swp1s0", "swp1s1", "swp2", "swp3"):
        assert facts[port] == want, port
    assert facts["swp4"] == {"trust": None, "dscp_to_tc": None, "pfc": [], "ecn": []}


def test_collector_follows_an_egress_queue_mapping():
    config = copy.deepcopy(applied("cumuluslab-r0-leaf01"))
    config["qos"]["egress-queue-mapping"] = {"q": {"switch-priority": {"3": {"traffic-class": 4}}}}
    config["interface"]["swp2"]["qos"]["egress-queue-mapping"] = {"profile": "q"}
    facts = collectors.port_qos(config)
    assert facts["swp2"]["dscp_to_tc"][26] == 4 and facts["swp3"]["dscp_to_tc"][26] == 3


@pytest.fixture
def nv_switch(tmp_path, monkeypatch):
    directory = tmp_path / "nvue"
    directory.mkdir()
    (directory / "applied.json").write_text(json.dumps(applied("cumuluslab-r0-leaf01")))
    (directory / "startup.yaml").write_text(startup_text("cumuluslab-r0-leaf01"))
    monkeypatch.setattr(nv_cli, "_switch_dir", lambda: ("cumuluslab-r0-leaf01", str(directory)))
    return directory


def test_nv_show_applied_and_config_show(nv_switch, capsys):
    assert nv_cli.main(["show", "interface", "swp2", "link", "--applied", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["mtu"] == 9216
    assert nv_cli.main(["config", "show", "-o", "json"]) == 0
    docs = json.loads(capsys.readouterr().out)
    assert docs[1]["set"]["router"]["bgp"]["autonomous-system"] == 64514
    assert nv_cli.main(["config", "show", "--all", "-o", "json"]) == 0
    filled = json.loads(capsys.readouterr().out)[1]["set"]
    assert filled["interface"]["swp2"]["link"]["duplex"] == "full" and "duplex" not in docs[1]["set"]["interface"][
        "swp2"]["link"]
    assert nv_cli.main(["show", "router", "bgp", "--startup", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["router-id"] == "10.32.0.1"


@pytest.mark.parametrize("args, message", [
    (["show", "evpn", "-o", "json"], "operational view is not modelled"),
    (["show", "interface", "swp99", "--applied", "-o", "json"], "does not exist"),
    (["set", "system", "hostname", "x"], "nv set system hostname x is not modelled"),
    (["show", "system", "--applied", "-o", "xml"], "output format xml"),
])
def test_nv_refuses_what_it_does_not_model_in_one_line(nv_switch, capsys, args, message):
    assert nv_cli.main(args) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_nv_config_patch_reads_the_set_documents_of_a_startup_yaml(tmp_path):
    """What a ZTP script gives `nv config patch`: the switch's startup.yaml (header and set documents)."""
    path = tmp_path / "startup.yaml"
    path.write_text(startup_text("cumuluslab-r0-leaf01"))
    assert nv_cli._load_patch(str(path)) == applied("cumuluslab-r0-leaf01")
    path.write_text("- interfaces: {}\n")
    with pytest.raises(ValueError, match="not an NVUE configuration"):
        nv_cli._load_patch(str(path))


def test_nv_config_apply_without_a_switch_or_an_answer_fails_in_one_line(capsys):
    # Outside a switch of the twin, every nv command says so (here: the test's own namespace has no NVUE).
    assert nv_cli.main(["config", "apply", "-y"]) == 1
    assert "not on a Cumulus switch of the twin" in capsys.readouterr().err


def frontend_links(**extra):
    links = {n: link(n) for n in ("swp1s0", "swp1s1", "swp1s2", "swp1s3", "swp2", "swp8", "swp9")}
    links["lo"] = link("lo", kind=None, addrs=["127.0.0.1/8"], up=True)
    links.update(extra)
    return links


def test_kernel_plan_of_an_mlag_leaf_bridges_each_bond_s_first_member_and_makes_vrr_a_macvlan():
    """The frontend leaf's bonds, VLAN-aware bridge, SVI and VRR (twin/emulators/cumulus/l2.py, docs/twin.md): one Linux
    bridge per VLAN named as Cumulus names the SVI, a bond's first cabled member in it, the others up and unbridged,
    VRR a macvlan with the virtual MAC, made after the ports."""
    config = applied("cumuluslab-fe-leaf01a")
    lines, changes = switch.kernel_plan(config, frontend_links())
    assert lines[:4] == ["link add vlan100 type bridge stp_state 0", "link set vlan100 mtu 9216",
                         "addr add 10.64.0.2/28 dev vlan100", "link set vlan100 up"]
    for server_port in ("swp1s0", "swp1s1", "swp1s2", "swp1s3"):
        assert "link set %s master vlan100" % server_port in lines
    # The peer link (bond of swp8, swp9): swp8 bridged, swp9 up and unbridged (no loop between the two peers).
    assert "link set swp8 master vlan100" in lines and "link set swp9 up" in lines
    assert not [ln for ln in lines if ln.startswith("link set swp9 master")]
    assert "addr add 10.68.0.1/31 dev swp2" in lines
    assert lines[-4:] == ["link add link vlan100 name vlan100-v0 address 02:00:00:00:fe:02 type macvlan mode private",
                          "link set vlan100-v0 mtu 9216", "addr add 10.64.0.1/28 dev vlan100-v0",
                          "link set vlan100-v0 up"]
    assert "VRR vlan100-v0 created (02:00:00:00:fe:02)" in changes
    layer2 = switch.l2.plan(config, switch._cabled(frontend_links()))
    assert layer2["bonds"]["bond101"] == {"type": "bond", "members": ["swp1s0"], "active": "swp1s0", "vid": 100,
                                          "mode": "lacp", "mlag_id": 101}
    after = switch.after_commands("h", layer2)
    assert ["ip", "netns", "exec", "h", "bridge", "fdb", "replace", "02:00:00:00:fe:02", "dev", "vlan100", "self",
            "local"] in after


def test_kernel_plan_of_an_mlag_leaf_as_applied_changes_nothing_and_removes_what_went():
    config = applied("cumuluslab-fe-leaf01a")
    members = ("swp1s0", "swp1s1", "swp1s2", "swp1s3", "swp8")
    bridged = {n: dict(link(n, mtu=9216, up=True), master="vlan100") for n in members}
    links = frontend_links(swp2=link("swp2", mtu=9216, addrs=["10.68.0.1/31"], up=True),
                           swp9=link("swp9", mtu=9216, up=True),
                           vlan100=link("vlan100", kind="bridge", mtu=9216, addrs=["10.64.0.2/28"], up=True),
                           **{"vlan100-v0": dict(link("vlan100-v0", kind="macvlan", mtu=9216, addrs=["10.64.0.1/28"],
                                                      up=True), address="02:00:00:00:fe:02")}, **bridged)
    links["lo"] = link("lo", kind=None, addrs=["127.0.0.1/8", "10.72.0.1/32"], up=True)
    assert switch.kernel_plan(config, links) == ([], [])
    # Without the frontend: the bridge goes, its macvlan and its ports' membership with it (the ports stay configured).
    for name in [n for n, c in config["interface"].items() if c.get("type") in ("bond", "peerlink", "svi")]:
        config["interface"].pop(name)
    config.pop("bridge")
    config.pop("mlag")
    lines, _changes = switch.kernel_plan(config, links)
    assert lines == ["link del vlan100"]


def test_nv_show_mlag_and_bond_are_nvue_documents(tmp_path, monkeypatch):
    """`nv show mlag` and `nv show interface <bond> bond` as NVUE's operational view of the twin (twin/emulators/cumulus/
    oper.py): the applied configuration with clagd's view worked out from the switch and its peer."""
    from gpufabric.twin.emulators.cumulus import oper

    mine, peer = applied("cumuluslab-fe-leaf01a"), applied("cumuluslab-fe-leaf01b")
    up = {"swp8": True, "swp9": True, "swp1s0": True, "swp1s1": True, "swp1s2": True, "swp1s3": False}
    view = oper.mlag_view(mine, peer, carrier=up, peer_carrier=dict(up, swp1s3=True), backup_reachable=True,
                          local_id="44:38:39:00:00:01", peer_id="44:38:39:00:00:02")
    assert view["peer-alive"] is True and view["backup-active"] is True
    assert view["local-role"] == "primary" and view["peer-role"] == "secondary"      # priority 4096 < 8192
    assert view["mac-address"] == "44:38:39:ff:00:01" and view["peer-interface"] == "peerlink"
    bond = oper.bond_view(mine, "bond101", peer, up, dict(up))
    assert bond["mlag"] == {"enable": "on", "id": 101, "peer-interface": "bond101", "status": "dual"}
    assert bond["member"] == {"swp1s0": {}} and bond["mode"] == "lacp"
    assert oper.bond_view(mine, "bond104", peer, up, dict(up, swp1s3=True))["mlag"]["status"] == "down"
    assert oper.bond_view(mine, "bond103", peer, up, dict(up, swp1s2=False))["mlag"]["status"] == "single"
    # The peer gone (its ports down: no carrier on the peer link), the backup unreachable: alone, and primary.
    view = oper.mlag_view(peer, None, carrier=dict(up, swp8=False, swp9=False), peer_carrier={},
                          backup_reachable=False, local_id="44:38:39:00:00:02", peer_id=None)
    assert view["peer-alive"] is False and view["backup-active"] is False and view["local-role"] == "primary"
    assert "peer-role" not in view
    assert oper.mlag_consistency(mine, peer)["mac-address"]["conflict"] == ""
    assert oper.mlag_consistency(mine, dict(peer, mlag=dict(peer["mlag"], **{"mac-address": "44:38:39:ff:00:09"})))[
        "mac-address"]["conflict"]


def test_nv_show_mlag_and_bond_take_the_operational_view(tmp_path, monkeypatch, capsys):
    """`nv show mlag` and `nv show interface <bond> bond [mlag]` without --applied: the operational view (oper.py),
    walked down like any other path; on a switch without MLAG, `nv show mlag` is an empty object."""
    from gpufabric.twin.emulators.cumulus import oper

    root = tmp_path / "cfe"
    for host in ("cumuluslab-fe-leaf01a", "cumuluslab-fe-leaf01b"):
        (root / host / "nvue").mkdir(parents=True)
        (root / host / "nvue" / "applied.json").write_text(json.dumps(applied(host)))
    directory = str(root / "cumuluslab-fe-leaf01a" / "nvue")
    monkeypatch.setattr(nv_cli, "_switch_dir", lambda: ("cumuluslab-fe-leaf01a", directory))
    up = {n: link(n, up=True) for n in ("swp1s0", "swp1s1", "swp1s2", "swp1s3", "swp8", "swp9")}
    for each in up.values():
        each["flags"].append("LOWER_UP")
        each["address"] = "44:38:39:00:00:0%d" % (1 + len(each["ifname"]) % 2)
    monkeypatch.setattr(oper, "_links", lambda host=None: up)
    monkeypatch.setattr(oper, "icmp_answered", lambda address, source=None, timeout=1.0: source == "10.72.0.1")
    assert oper.find_peer(directory, applied("cumuluslab-fe-leaf01a"))[0] == "cumuluslab-fe-leaf01b"
    assert nv_cli.main(["show", "mlag", "-o", "json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert (view["peer-alive"], view["backup-active"], view["local-role"]) == (True, True, "primary")
    assert view["backup"] == {"10.72.0.2": {"vrf": "default", "status": "active"}}
    assert nv_cli.main(["show", "interface", "bond102", "bond", "mlag", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "dual"
    assert nv_cli.main(["show", "interface", "swp2", "bond", "-o", "json"]) == 1
    assert "operational view is not modelled" in capsys.readouterr().err


def test_nv_config_diff_and_the_confirm_time_as_nvue_reads_them():
    from gpufabric.twin.emulators.cumulus import nv_cli, nv_config, nvue_confirm

    before = {"system": {"hostname": "a", "message": {"pre-login": "x"}}, "interface": {"lo": {"type": "loopback"}}}
    after = {"system": {"hostname": "b"}, "interface": {"lo": {"type": "loopback"}, "swp1": {"type": "swp"}}}
    assert nv_config.diff_documents(before, after) == [
        {"unset": {"system": {"message": None}}},
        {"set": {"system": {"hostname": "b"}, "interface": {"swp1": {"type": "swp"}}}}]
    assert nv_config.diff_documents(after, after) == []
    assert [nvue_confirm.confirm_seconds(t) for t in ("30s", "5m", "1h", "60")] == [30, 300, 3600, 3600]
    for bad in ("0s", "soon", "-5"):
        with pytest.raises(ValueError, match="--confirm"):
            nvue_confirm.confirm_seconds(bad)
    opts, _which, words = nv_cli._options(["config", "apply", "7", "-y", "--confirm", "30s", "-m", "why"])
    assert words == ["config", "apply", "7"] and opts["confirm"] == "30s" and opts["message"] == "why" and opts["yes"]
    opts, _which, words = nv_cli._options(["config", "apply", "--confirm", "-y"])
    assert opts["confirm"] == "10m" and words == ["config", "apply"]
    assert nv_cli._options(["config", "apply", "7", "--confirm-yes"])[0]["confirm_answer"] == "yes"
