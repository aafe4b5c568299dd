"""Tenant isolation on Arista EOS rail leaves (issue 43, docs/eos.md, docs/tenancy.md): the pyavd input and rendering in
ACL mode (schema-valid, access lists inbound on the GPU-facing ports only), the tenancy read-back from the running
config (nos/eos/tenancy.py), and the twin's EOS emulator on what pyavd renders (its access lists as nftables, the
VRF lines it refuses in EOS's words, Cli's command line)."""
import copy
import functools
import os

import pytest

pytest.importorskip("pyavd", reason="EOS configs are rendered by pyavd (requirements.txt)")

from conftest import ROOT, load_example  # noqa: E402
from gpufabric import nos_registry, tenants  # noqa: E402
from gpufabric.nos import eos  # noqa: E402
from gpufabric.nos.eos import render, tenancy  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402
from gpufabric.structured import structured_configs  # noqa: E402
from gpufabric.twin.emulators.eos import acl, cli_tool, plane, translate  # noqa: E402
from gpufabric.twin.emulators.eos.cli import Config  # noqa: E402
from gpufabric.twin.emulators.eos.eapi import EosSwitch  # noqa: E402

LEAF = "eoslab-r0-leaf01"


@functools.lru_cache(maxsize=None)
def _plan():
    return build_plan(load_example("eos-lab"))


@functools.lru_cache(maxsize=None)
def _leaf(name):
    """(structured config, pyavd input, rendered startup-config) of LEAF under examples/tenants/<name>."""
    plan = _plan()
    assignment = tenants.load_assignment(os.path.join(ROOT, "examples", "tenants", name), tenants.plan_servers(plan),
                                         "eoslab")
    tenants.attach(plan, assignment)
    try:
        cfg = structured_configs(plan, [LEAF])[LEAF]
    finally:
        tenants.attach(plan, None)
    return cfg, eos.eos_input(copy.deepcopy(cfg), plan.spec), eos.render_device(copy.deepcopy(cfg), plan.spec)["startup-config"]


def _gpu_ports(data):
    return {p["name"] for p in data["ethernet_interfaces"] if "-gpu" in p.get("description", "")}


def test_acl_mode_passes_pyavds_schema_with_the_lists_inbound_on_the_gpu_ports_only():
    cfg, data, _text = _leaf("eos-lab.tenants.yml")
    assert render.validate(LEAF, data)[1] == []
    names = {a["name"] for a in data["ip_access_lists"]}
    assert names == {a["name"] for a in cfg["tenant_isolation"]["acls"]} and "TENANT_ALPHA" in names
    bound = {p["name"]: p["access_group_in"] for p in data["ethernet_interfaces"] if p.get("access_group_in")}
    assert bound and set(bound) == _gpu_ports(data)
    assert set(bound.values()) <= names
    # Every list ends in the deny of every other IPv4 packet, after its permits.
    for found in data["ip_access_lists"]:
        rules = [(e["action"], e["protocol"], e["source"], e["destination"]) for e in found["entries"] if "action" in e]
        assert rules[-1] == ("deny", "ip", "any", "any")
        assert all(r[:3] == ("permit", "ip", "any") and r[3] != "any" for r in rules[:-1])


def test_the_running_config_gives_back_each_ports_tenant_in_both_modes():
    cfg, _data, text = _leaf("eos-lab.tenants.yml")
    got = tenancy.bindings(text)
    want = {port: acl_["name"][len("TENANT_"):].lower() for acl_ in cfg["tenant_isolation"]["acls"]
            if acl_["name"].startswith("TENANT_") for port in acl_["ports"]}
    assert got == {"acl": want, "vrf": {}} and set(want.values()) == {"alpha", "beta"}
    cfg, _data, text = _leaf("eos-lab-vrf.tenants.yml")
    got = tenancy.bindings(text)
    assert got["vrf"] == {port: vrf["name"][len("Vrf-"):] for vrf in cfg["tenant_isolation"]["vrfs"] for port in vrf["ports"]}
    assert got["vrf"] and got["acl"] == {}


def test_a_list_applied_but_not_defined_and_other_lists_isolate_nothing():
    text = ("interface Ethernet1/1\n   ip access-group TENANT_ALPHA in\n!\ninterface Ethernet1/5\n"
            "   ip access-group EDGE in\n   vrf MGMT\n!\nip access-list EDGE\n   10 permit ip any any\n!\n"
            "interface Ethernet2/1\n   ip access-group QUARANTINE in\n!\nip access-list QUARANTINE\n   10 deny ip any any\n")
    assert tenancy.bindings(text) == {"acl": {"Ethernet2/1": "free"}, "vrf": {}}
    assert tenancy.bindings("") == {"acl": {}, "vrf": {}}


def test_tenants_yml_reads_eos_leaves_with_the_clis_show_running_config():
    facts = nos_registry.deploy_facts("eos")
    assert "tenants" in facts["plays"] and facts["tenancy_command"] == tenancy.RUNNING_COMMAND
    assert cli_tool._options(["-p", "15", "-c", "show running-config"]) == (15, ["show running-config"])
    assert cli_tool._options(["-c", "show version\nshow hostname | json"])[1] == ["show version", "show hostname | json"]
    with pytest.raises(ValueError):
        cli_tool._options(["-p", "15"])


def test_the_emulator_runs_pyavds_tenant_acls_as_nftables_on_the_gpu_ports():
    """The emulator (no product code) reads the startup-config pyavd rendered: each GPU port's list as nftables rules in
    the list's order, EOS's implicit deny last; remarks and counters change nothing."""
    _cfg, data, text = _leaf("eos-lab.tenants.yml")
    config = Config.parse(text)
    rules = acl.port_rules(config, plane.kernel_port)
    assert set(rules) == {plane.kernel_port(p) for p in _gpu_ports(data)}
    lists = {a["name"]: a for a in data["ip_access_lists"]}
    for port in data["ethernet_interfaces"]:
        if port.get("access_group_in"):
            entries = [e["destination"] for e in lists[port["access_group_in"]]["entries"] if "action" in e]
            got = rules[plane.kernel_port(port["name"])]
            assert len(got) == len(entries) + 1 and got[-1] == "meta protocol ip drop"
            for destination, rule in zip(entries, got):
                if destination == "any":
                    assert rule == "meta protocol ip drop"
                else:
                    assert rule.endswith(" accept") and destination.split("/")[0] in rule
    assert "router bgp" in translate.frr_conf(config, LEAF)


def test_a_session_with_what_the_emulator_cannot_run_fails_its_commit_naming_it():
    def translation(config):     # what namespace.Applier makes of a commit, without a namespace
        return acl.port_rules(config, plane.kernel_port), translate.frr_conf(config, "leaf1")

    switch = EosSwitch("leaf1", "7060X6-64PE", "SN1", "00:1c:73:00:00:01", applier=translation)
    _results, error = switch.run_cmds(["enable", "configure session s1", "ip access-list TENANT_ALPHA",
                                       "10 permit tcp any any eq 4791", "end", "configure session s1 commit"])
    assert error is not None and "Commit failed" in str(error["data"][-1]["errors"])
    assert "tcp any any eq 4791" in str(error["data"][-1]["errors"])
    _results, error = switch.run_cmds(["enable", "configure session s2", "interface Ethernet1/1", "ip vrf forwarding x"])
    assert error["data"][-1]["errors"][0].startswith("Invalid input")


def test_the_emulator_runs_pyavds_tenant_vrfs_as_the_twins_vrf_namespaces():
    """VRF mode as pyavd renders it (vrf instance, the ports' vrf, router bgp vrf, router general's leak routes) in
    FRR's form, which the twin's VRF model (twin/vrf.py: a namespace per tenant VRF) takes: each VRF's BGP instance
    imports from the default VRF through its subscribe policy, the default VRF imports each tenant VRF with the
    community its subscribe policy sets, and each VRF-bound port's /31 goes to its VRF's namespace."""
    from gpufabric.twin import vrf
    from gpufabric.twin.emulators.eos import namespace, vrfs

    cfg, data, text = _leaf("eos-lab-vrf.tenants.yml")
    config = Config.parse(text)
    conf = translate.frr_conf(config, LEAF)
    assert "router bgp %d vrf Vrf-alpha" % cfg["bgp"]["asn"] in conf
    assert "  import vrf route-map TENANT_ALPHA_IMPORT\n  import vrf default\n" in conf
    assert " match source-vrf Vrf-alpha\n set community 64512:1 additive\n" in conf
    assert "include leaked" not in conf
    ids = {v["name"]: v["id"] if "id" in v else None for v in cfg["tenant_isolation"]["vrfs"]}
    assert vrf.tenant_ids(conf) == {"Vrf-alpha": 1, "Vrf-beta": 2} and set(ids) == {"Vrf-alpha", "Vrf-beta"}
    leaf_conf, vrf_confs = vrf.translate(LEAF, conf, vrf.tenant_ids(conf))
    assert set(vrf_confs) == {"Vrf-alpha", "Vrf-beta"} and "import vrf" not in leaf_conf
    assert "route-map TENANT_ALPHA_IMPORT in" in vrf_confs["Vrf-alpha"]
    configured = translate.interfaces(config)
    links = {plane.kernel_port(p["name"]): {"linkinfo": {"info_kind": "veth"}, "mtu": 9216, "flags": ["UP"],
                                            "addr_info": []} for p in data["ethernet_interfaces"]}
    ports = vrfs.vrf_ports(config, configured, links, plane.kernel_port)
    want = {v["name"]: {plane.kernel_port(p) for p in v["ports"]} for v in cfg["tenant_isolation"]["vrfs"]}
    assert {name: set(found) for name, found in ports.items()} == want
    port = sorted(want["Vrf-alpha"])[0]
    assert ports["Vrf-alpha"][port][1] == configured[namespace.eos_port(port)]["addrs"] != []
    # The leaf's own end of a VRF-bound port carries no address (its VRF's namespace does).
    assert not any(line.startswith("addr add") and line.endswith(" dev " + port)
                   for line in namespace.kernel_lines(configured, links))


def test_vrf_lines_the_twin_does_not_model_are_refused_naming_them():
    _cfg, _data, text = _leaf("eos-lab-vrf.tenants.yml")
    with pytest.raises(translate.Unsupported, match="rd 65000:1"):
        translate.frr_conf(Config.parse(text.replace("   vrf Vrf-alpha\n      router-id",
                                                     "   vrf Vrf-alpha\n      rd 65000:1\n      router-id")), LEAF)
    with pytest.raises(translate.Unsupported, match="vrf Vrf-alpha: leaks from Vrf-beta"):
        translate.frr_conf(Config.parse(text.replace("leak routes source-vrf default subscribe-policy TENANT_ALPHA_IMPORT",
                                                     "leak routes source-vrf Vrf-beta subscribe-policy TENANT_ALPHA_IMPORT")),
                           LEAF)
