"""Cumulus Linux rendering (nos/cumulus): NVUE documents from the structured config, and the NVUE
object model as a gate that accepts them and rejects what NVIDIA's model does not allow."""
import copy
import functools

import pytest
import yaml

pytest.importorskip("nvueschema", reason="the NVUE models come with requirements.txt (nvueschema)")

from conftest import load_example  # noqa: E402
from gpufabric.errors import SpecError  # noqa: E402
from gpufabric.nos import cumulus  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402
from gpufabric.structured import FabricContext, structured_configs  # noqa: E402
from gpufabric.structured.server_roce import roce_settings  # noqa: E402


def _as_cumulus(cfg):
    """The lab's structured config with its ports named the Cumulus way (swp<n>) on an SN5600."""
    cfg = copy.deepcopy(cfg)
    names = {i["name"]: "swp%d" % (k + 1) for k, i in enumerate(cfg["ethernet_interfaces"])}
    for entry in cfg["ethernet_interfaces"]:
        entry["name"] = names[entry["name"]]
    for n in cfg["bgp"]["neighbors"]:
        n["interface"] = names[n["interface"]]
    cfg["qos"]["interfaces"] = [names[p] for p in cfg["qos"]["interfaces"]]
    ti = cfg.get("tenant_isolation") or {}
    for group in ti.get("acls", []) + ti.get("vrfs", []):
        group["ports"] = [names[p] for p in group["ports"]]
    cfg["loopback"]["name"] = "lo"
    cfg["model"] = "SN5600"
    cfg["nos"] = "cumulus"
    return cfg


@functools.lru_cache(maxsize=None)
def _lab():
    plan = build_plan(load_example("lab"))
    return plan, structured_configs(plan)


def _backend():
    plan, cfgs = _lab()
    return {h: _as_cumulus(c) for h, c in cfgs.items() if c["role"] in ("backend_leaf", "backend_spine")}


def _set(docs):
    return next(d["set"] for d in docs if "set" in d)


def test_every_backend_switch_is_valid_in_strict_mode():
    docs = {h: cumulus.documents(c) for h, c in _backend().items()}
    assert len(docs) == 18
    assert cumulus.validate_many(docs) == []


def test_startup_holds_the_plans_addresses_and_neighbours():
    cfg = _backend()["lab-r0-leaf01"]
    tree = _set(cumulus.documents(cfg))
    assert tree["system"]["hostname"] == "lab-r0-leaf01"
    assert tree["interface"]["lo"]["ip"]["address"] == {cfg["loopback"]["ipv4"]: {}}
    for entry in cfg["ethernet_interfaces"]:
        iface = tree["interface"][entry["name"]]
        assert iface["description"] == entry["description"]
        assert iface["link"]["mtu"] == entry["mtu"]
        assert ("ipv4" in entry) == ("ip" in iface)
        if "ipv4" in entry:
            assert iface["ip"]["address"] == {entry["ipv4"]: {}}
    bgp = tree["vrf"]["default"]["router"]["bgp"]
    assert tree["router"]["bgp"]["autonomous-system"] == cfg["bgp"]["asn"]
    assert tree["router"]["bgp"]["router-id"] == cfg["bgp"]["router_id"]
    assert {ip: n["remote-as"] for ip, n in bgp["neighbor"].items()} == {
        n["ip"]: n["remote_as"] for n in cfg["bgp"]["neighbors"]}
    af = bgp["address-family"]["ipv4-unicast"]
    assert af["multipaths"]["ebgp"] == cfg["bgp"]["max_paths"]
    assert set(af["aggregate-route"]) == set(cfg["bgp"]["summaries"]) != set()
    assert all(a["summary-only"] == "on" for a in af["aggregate-route"].values())
    assert bgp["path-selection"]["multipath"]["aspath-ignore"] == "on"


def test_roce_is_lossless_and_agrees_with_the_servers_nics():
    plan, _cfgs = _lab()
    cfg = _backend()["lab-r0-leaf01"]
    qos = _set(cumulus.documents(cfg))["qos"]
    nic = roce_settings(FabricContext(plan).qos)
    assert qos["roce"] == {"enable": "on", "mode": "lossless"}
    mapping = qos["mapping"][cumulus.nvue_qos.QOS_PROFILE]
    assert mapping["trust"] == "l3"
    assert len(mapping["dscp"]) == 64
    assert mapping["dscp"][str(nic["dscp"])]["switch-priority"] == nic["lossless_priority"]
    assert mapping["dscp"][str(nic["cnp_dscp"])]["switch-priority"] == nic["cnp_priority"]
    assert mapping["dscp"]["24"]["switch-priority"] == 0  # Cumulus' own default would say 3
    assert list(qos["pfc"][cumulus.nvue_qos.QOS_PROFILE]["switch-priority"]) == [str(p) for p in nic["pfc_priorities"]]
    ecn = qos["congestion-control"][cumulus.nvue_qos.QOS_PROFILE]["traffic-class"]
    assert list(ecn) == [str(p) for p in nic["ecn_priorities"]]
    sched = qos["egress-scheduler"][cumulus.nvue_qos.QOS_PROFILE]["traffic-class"]
    assert sched[str(nic["cnp_priority"])] == {"mode": "strict"}
    assert qos["pfc-watchdog"] == {"polling-interval": 100, "robustness": 2}
    backend_ports = set(cfg["qos"]["interfaces"])
    tree = _set(cumulus.documents(cfg))
    for name in backend_ports:
        assert tree["interface"][name]["qos"]["pfc-watchdog"] == {"state": "enable"}


def test_text_reads_back_the_same_in_yaml_1_1_and_1_2():
    cfg = _backend()["lab-spine01"]
    text = cumulus.render_device(cfg)["startup.yaml"]
    docs = cumulus.documents(cfg)
    assert cumulus.load_startup(text) == docs
    assert yaml.safe_load(text) == docs  # "on" is quoted: PyYAML (YAML 1.1) does not read it as true
    assert "enable: \"on\"" in text


def test_drain_and_tenants_render_as_nvue_objects():
    plan, _cfgs = _lab()
    cfg = _backend()["lab-spine01"]
    cfg["bgp"]["drain"] = {"route_map": "GPUFABRIC_DRAIN", "prepend": [cfg["bgp"]["asn"]] * 3,
                           "community": "graceful-shutdown"}
    tree = _set(cumulus.documents(cfg))
    rule = tree["router"]["policy"]["route-map"]["GPUFABRIC_DRAIN"]["rule"]["10"]
    assert rule["set"]["as-path-prepend"]["as"] == ",".join([str(cfg["bgp"]["asn"])] * 3)
    group = tree["vrf"]["default"]["router"]["bgp"]["peer-group"]["FABRIC"]
    assert group["address-family"]["ipv4-unicast"]["policy"]["outbound"]["route-map"] == "GPUFABRIC_DRAIN"
    assert cumulus.problems(cumulus.documents(cfg), "lab-spine01") == []


@pytest.mark.parametrize("mode,tenants", [("acl", "lab.tenants.yml"), ("vrf", "lab-vrf.tenants.yml")])
def test_tenant_isolation_modes_are_valid(mode, tenants):
    from tenant_helpers import example, rendered

    plan = build_plan(load_example("lab"))
    cfg = _as_cumulus(rendered(plan, example(plan, tenants), ["lab-r0-leaf01"])["lab-r0-leaf01"])
    assert cfg["tenant_isolation"]["mode"] == mode
    docs = cumulus.documents(cfg)
    assert cumulus.problems(docs, "lab-r0-leaf01") == []
    tree = _set(docs)
    for acl in cfg["tenant_isolation"]["acls"]:
        assert tree["acl"][acl["name"]]["rule"]["%d" % (10 * len(acl["rules"]))]["action"] == {"deny": {}}
        for port in acl["ports"]:
            assert tree["interface"][port]["acl"][acl["name"]] == {"inbound": {}}
    for vrf in cfg["tenant_isolation"].get("vrfs", ()):
        assert all(tree["interface"][p]["ip"]["vrf"] == vrf["name"] for p in vrf["ports"])
        assert tree["vrf"][vrf["name"]]["router"]["bgp"]["autonomous-system"] == cfg["bgp"]["asn"]


# --- the gate rejects what NVIDIA's model does not allow --------------------------------------------


def _one_problem(docs):
    found = cumulus.problems(docs, "sw1")
    assert len(found) == 1, found
    return found[0]


def _valid_docs():
    return cumulus.documents(_backend()["lab-spine01"])


def test_gate_rejects_a_string_where_nvidia_wants_an_integer():
    docs = _valid_docs()
    _set(docs)["interface"]["swp1"]["link"]["mtu"] = "9216"
    line = _one_problem(docs)
    assert line.startswith("sw1: startup.yaml set.interface.swp1.link.mtu = \"9216\": ")
    assert "/interface/{interface-id}/link field 'mtu' is integer 552..9216" in line


def test_preload_builds_the_strict_models_once_for_the_forks_to_come():
    # The deploy action preloads in Ansible's controller; each forked worker's gate then reuses the built models.
    from gpufabric.nos.cumulus import schema

    assert schema.preload("4.0") is False                 # no model of that release: nothing built, no error
    assert schema.preload() is True
    built = schema._models.cache_info()
    assert schema._models(schema.DEFAULT_RELEASE)[1].model_config["extra"] == "forbid"
    assert schema._models.cache_info().hits == built.hits + 1 and schema._models.cache_info().misses == built.misses


def test_gate_rejects_a_key_the_model_does_not_have():
    docs = _valid_docs()
    _set(docs)["qos"]["roce"]["lossless"] = "on"
    line = _one_problem(docs)
    assert "set.qos.roce.lossless" in line and "/qos/roce field 'lossless' is not in the model" in line


def test_gate_rejects_a_yaml_1_1_boolean():
    text = cumulus.render_device(_backend()["lab-spine01"])["startup.yaml"].replace('enable: "on"', "enable: on")
    assert cumulus.problems(cumulus.load_startup(text), "sw1") == []  # YAML 1.2: on is a string
    line = cumulus.problems(yaml.safe_load(text), "sw1")[0]  # YAML 1.1 made it true
    assert "= true: NVUE 5.14" in line and "is one of 'on', 'off'" in line


def test_gate_rejects_a_value_out_of_range_and_a_bad_enum():
    docs = _valid_docs()
    tree = _set(docs)
    tree["qos"]["roce"]["mode"] = "lossles"
    tree["qos"]["pfc-watchdog"]["polling-interval"] = 50
    found = cumulus.problems(docs, "sw1")
    assert len(found) == 2
    assert any("set.qos.roce.mode = \"lossles\"" in p and "one of 'lossy', 'lossless'" in p for p in found)
    assert any("polling-interval = 50" in p and "integer 100..5000" in p for p in found)


def test_gate_rejects_a_document_that_is_not_a_header_or_a_set():
    assert cumulus.problems({"set": {}}, "sw1") == [
        "sw1: startup.yaml: a list of `- header:` / `- set:` documents expected, got dict"]
    assert cumulus.problems([{"unset": {}}], "sw1") == [
        "sw1: startup.yaml document 1: one key, `header` or `set`, expected"]


def test_build_refuses_an_invalid_document_before_writing(monkeypatch):
    from gpufabric import build

    plan, cfgs = _lab()
    fake = {h: _as_cumulus(c) for h, c in cfgs.items() if h == "lab-spine01"}
    fake["lab-spine01"]["hostname"] = "lab.spine01"  # NVUE's hostname has no dots
    monkeypatch.setattr(build, "_structured_of", lambda plan, devices: fake)
    with pytest.raises(cumulus.NvueSchemaError) as info:
        build.render_switches(plan)
    assert "set.system.hostname = \"lab.spine01\"" in str(info.value)
    assert "/system field 'hostname' is string matching ^[^.]*$" in str(info.value)


# --- bad input ------------------------------------------------------------------------------------------


def test_a_release_the_models_do_not_cover_is_refused_with_the_key():
    with pytest.raises(SpecError) as info:
        cumulus.check_release("4.4")
    assert str(info.value).startswith("switch_config.cumulus_release: no NVUE object model for Cumulus Linux '4.4'")
    assert "5.14" in str(info.value)
    assert "5.14" in cumulus.releases() and "5.18" in cumulus.releases()


def test_a_qos_profile_cumulus_cannot_express_is_refused():
    cfg = _backend()["lab-spine01"]
    cfg["qos"]["pfc_watchdog"]["action"] = "forward"
    with pytest.raises(SpecError) as info:
        cumulus.documents(cfg)
    assert str(info.value).startswith("switch_config.qos_overrides.pfc_watchdog.action: lab-spine01 runs Cumulus")
    cfg["qos"]["pfc_watchdog"].update(action="drop", detection_time_ms=250)
    with pytest.raises(SpecError, match="multiple of poll_interval_ms"):
        cumulus.documents(cfg)


def test_a_port_speed_nvue_does_not_know_is_refused():
    cfg = _backend()["lab-spine01"]
    cfg["ethernet_interfaces"][0]["speed_gbps"] = 300
    with pytest.raises(SpecError) as info:
        cumulus.documents(cfg)
    assert str(info.value).startswith("models.switches.SN5600.port_groups: lab-spine01 swp1: NVUE has no link speed "
                                      "of 300 Gb/s")
    assert "\n" not in str(info.value) and str(info.value).endswith("give the port a speed NVUE names, or a breakout to one")


def test_a_breakout_nvue_cannot_name_is_refused():
    cfg = _backend()["lab-spine01"]
    cfg["breakouts"] = {"swp1": "3x200G"}
    with pytest.raises(SpecError) as info:
        cumulus.documents(cfg)
    assert str(info.value).startswith("models.switches.SN5600.breakouts: lab-spine01 swp1: NVUE breaks a port out "
                                      "1, 2, 4, 8 ways, not as '3x200G'")
    cfg["breakouts"] = {"swp1": "8x100G"}
    assert _set(cumulus.documents(cfg))["interface"]["swp1"]["type"] == "swp"  # a count NVUE names passes


def _spec_refusal(spec):
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    return str(info.value)


def test_a_speed_the_port_cannot_run_is_refused_by_the_plan():
    spec = load_example("cumulus-lab")
    spec["backend"]["leaf"]["model"] = "SN4600C"  # 100G cages, 400G ConnectX-7 NICs
    text = _spec_refusal(spec)
    assert text.startswith("backend.leaf.model: ") and "faster than SN4600C's 100G ports" in text
    assert "\n" not in text and "choose a model with 400G ports" in text


def test_a_breakout_the_platform_does_not_offer_is_refused_by_the_plan():
    spec = load_example("cumulus-lab")
    spec["backend"]["leaf"]["downlink_breakout"] = "4x100G"  # SN5600 lists 2x400G, 4x200G, 8x100G
    text = _spec_refusal(spec)
    assert text.startswith("backend.leaf.downlink_breakout: '4x100G' is not a breakout SN5600 lists")
    assert "\n" not in text and text.endswith("use one of them, or none")


@pytest.mark.parametrize("change, key", [
    (lambda spec: spec["switch_config"].update(cumulus_release="5.99"), "switch_config.cumulus_release"),
    (lambda spec: spec["switch_config"].update(cumulus_release="5.16"), "switch_config.cumulus_release"),
    (lambda spec: spec["switch_config"].update(qos_overrides={"pfc_watchdog": {"action": "forward"}}),
     "switch_config.qos_overrides.pfc_watchdog.action"),
    (lambda spec: spec["oob"]["switch"].update(nos="cumulus"), "oob.provisioning_host"),
])
def test_bad_cumulus_input_is_refused_before_anything_is_written(tmp_path, change, key):
    from gpufabric.build import write_build

    spec = load_example("cumulus-lab")
    change(spec)
    with pytest.raises(SpecError) as info:
        write_build(build_plan(spec), str(tmp_path / "build"))
    text = str(info.value)
    assert text.startswith(key + ": ") and "\n" not in text and ": " in text[len(key) + 2:]
    assert not (tmp_path / "build").exists() or not any((tmp_path / "build").rglob("*.*"))


# --- frontend leaves (MLAG) and the OOB switch ---------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _cumulus_lab(oob_on_cumulus=False):
    spec = load_example("cumulus-lab")
    if oob_on_cumulus:
        spec["oob"]["switch"]["nos"] = "cumulus"
        del spec["oob"]["provisioning_host"]  # see test_bad_cumulus_input_is_refused_before_anything_is_written
    return structured_configs(build_plan(spec))


def test_frontend_leaf_pair_is_rendered_as_mlag():
    cfgs = _cumulus_lab()
    a, b = cfgs["cumuluslab-fe-leaf01a"], cfgs["cumuluslab-fe-leaf01b"]
    trees = {}
    for cfg in (a, b):
        for release in cumulus.RENDERED_RELEASES:
            assert cumulus.problems(cumulus.documents(cfg, release), cfg["hostname"], release) == []
        trees[cfg["hostname"]] = _set(cumulus.documents(cfg))
    ta, tb = trees[a["hostname"]], trees[b["hostname"]]
    # peer link: the bond named peerlink over the ports cabled to the partner
    peer_ports = {i["name"] for i in a["ethernet_interfaces"] if i["peer"] == b["hostname"]}
    assert len(peer_ports) >= 2
    assert ta["interface"]["peerlink"]["type"] == "peerlink"
    assert set(ta["interface"]["peerlink"]["bond"]["member"]) == peer_ports
    # one bond per server with the same MLAG id on both leaves, its member the port towards that server
    for cfg, tree in ((a, ta), (b, tb)):
        servers = {i["name"]: i["peer"] for i in cfg["ethernet_interfaces"] if i["tier"] == "server"}
        bonds = {n: i for n, i in tree["interface"].items() if i.get("type") == "bond"}
        assert len(bonds) == len(servers) == 4
        for bond in bonds.values():
            (member,) = bond["bond"]["member"]
            assert bond["description"].startswith(servers[member])
            assert bond["bridge"]["domain"]["br_default"] == {"access": 100}
    bonds = [name for name, i in tb["interface"].items() if i.get("type") == "bond"]
    ids_a = [ta["interface"][name]["bond"]["mlag"]["id"] for name in bonds]
    ids_b = [tb["interface"][name]["bond"]["mlag"]["id"] for name in bonds]
    assert ids_a == ids_b and len(set(ids_a)) == 4
    # the pair: same system MAC, different priorities (a is primary), each backing up to the other's loopback
    assert ta["mlag"]["mac-address"] == tb["mlag"]["mac-address"]
    assert ta["mlag"]["mac-address"].startswith("44:38:39:ff:")
    assert ta["mlag"]["priority"] < tb["mlag"]["priority"]
    assert ta["mlag"]["backup"] == {b["loopback"]["ipv4"].split("/")[0]: {"vrf": "default"}}
    assert tb["mlag"]["backup"] == {a["loopback"]["ipv4"].split("/")[0]: {"vrf": "default"}}
    # the server gateway: each leaf its own SVI address, both the same VRR address and MAC
    vlan = a["vlans"][0]
    sa, sb = ta["interface"]["vlan%d" % vlan["id"]], tb["interface"]["vlan%d" % vlan["id"]]
    assert sa["ip"]["address"] != sb["ip"]["address"]
    assert sa["ip"]["vrr"] == sb["ip"]["vrr"]
    assert sa["ip"]["vrr"]["address"] == {vlan["virtual_gateway"]: {}}
    assert ta["bridge"]["domain"]["br_default"]["vlan"] == {str(vlan["id"]): {}}
    # the leaf still routes: eBGP to the spines announcing the server subnet
    assert "10.64.0.0/28" in ta["vrf"]["default"]["router"]["bgp"]["address-family"]["ipv4-unicast"]["network"]


def test_oob_switch_is_rendered_as_one_bridge_managed_on_its_svi():
    cfgs = _cumulus_lab(oob_on_cumulus=True)
    oob = [c for c in cfgs.values() if c["role"] == "oob_switch"]
    assert oob and all(c["nos"] == "cumulus" for c in oob)
    for cfg in oob:
        docs = cumulus.documents(cfg)
        assert cumulus.problems(docs, cfg["hostname"]) == []
        tree = _set(docs)
        vlan = cfg["vlans"][0]
        svi = tree["interface"]["vlan%d" % vlan["id"]]
        assert svi["type"] == "svi" and svi["ip"]["address"] == {cfg["management"]["ipv4"]: {}}
        assert cfg["management"]["interface"] == "vlan%d" % vlan["id"]
        enabled = [i["name"] for i in cfg["ethernet_interfaces"] if i["enabled"]]
        assert enabled and sorted(enabled) == sorted(vlan["untagged"])
        for name in enabled:
            assert tree["interface"][name]["bridge"] == {"domain": {"br_default": {"access": vlan["id"]}}}
        for entry in cfg["ethernet_interfaces"]:
            if not entry["enabled"]:
                assert "bridge" not in tree["interface"][entry["name"]]
        assert tree["vrf"]["default"]["router"]["static"]["0.0.0.0/0"]["via"] == {
            cfg["static_routes"][0]["next_hop"]: {"type": "ipv4-address"}}
        assert "mlag" not in tree and "eth0" not in tree["interface"]


def test_breakout_parent_gets_the_mode_and_sub_ports_the_speed():
    cfg = _backend()["lab-spine01"]
    first = cfg["ethernet_interfaces"][0]
    second = dict(first, name="swp1s1", description="unused", enabled=False, peer=None)
    second.pop("ipv4")
    first["name"] = "swp1s0"
    cfg["ethernet_interfaces"].insert(1, second)
    cfg["qos"]["interfaces"] = ["swp1s0" if p == "swp1" else p for p in cfg["qos"]["interfaces"]]
    cfg["breakouts"] = {"swp1": "2x400G", "swp2": "1x400G"}
    docs = cumulus.documents(cfg)
    tree = _set(docs)
    assert tree["interface"]["swp1"]["link"] == {"breakout": {"2x": {}}}
    assert "breakout" not in tree["interface"]["swp2"]["link"]
    assert tree["interface"]["swp1s0"]["link"]["speed"] == "400G"
    assert tree["interface"]["swp1s1"]["link"]["state"] == {"down": {}}
    assert cumulus.problems(docs, "lab-spine01") == []


# --- the example fabrics --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cumulus-lab", "mixed-lab"])
def test_example_builds_startup_yaml_for_cumulus_switches_and_sonic_files_for_the_others(name):
    from gpufabric.build import render_all

    plan = build_plan(load_example(name))
    files = render_all(plan, stages=["configs"])
    cfgs = structured_configs(plan)
    kinds = {}
    for host, cfg in cfgs.items():
        own = sorted(p.split("/")[-1] for p in files if p.split("/")[1] == host)
        kinds.setdefault(cfg["nos"], set()).add(tuple(own))
        if cfg["nos"] != "cumulus":
            assert own == ["config_db.json", "frr.conf"], host
            continue
        assert own == ["startup.yaml"], host
        docs = cumulus.load_startup(files["devices/%s/startup.yaml" % host])
        assert cumulus.problems(docs, host, "5.14") == []
        tree = _set(docs)
        if "bgp" in cfg:
            neighbors = tree["vrf"]["default"]["router"]["bgp"]["neighbor"]
            assert {ip: n["remote-as"] for ip, n in neighbors.items()} == {
                n["ip"]: n["remote_as"] for n in cfg["bgp"]["neighbors"]}
        for entry in cfg["ethernet_interfaces"]:
            assert entry["name"].startswith("swp")
            if "ipv4" in entry:
                assert tree["interface"][entry["name"]]["ip"]["address"] == {entry["ipv4"]: {}}
        if cfg["network"] == "backend":
            assert tree["qos"]["roce"] == {"enable": "on", "mode": "lossless"}
    assert set(kinds) == {"cumulus", "sonic"}
    backend = {cfg["nos"] for cfg in cfgs.values() if cfg["network"] == "backend"}
    assert backend == {"cumulus"}


def test_a_model_that_cannot_run_the_roles_nos_is_refused():
    spec = load_example("lab")
    spec["backend"]["leaf"]["nos"] = "cumulus"
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    text = str(info.value)
    assert text.startswith("backend.leaf.nos: Z9332F-ON runs sonic, not cumulus")
    assert "choose a model that runs cumulus" in text and "or set nos: sonic" in text


def test_a_release_in_the_spec_the_models_do_not_cover_stops_the_build():
    from gpufabric.build import render_all

    spec = load_example("cumulus-lab")
    spec["switch_config"]["cumulus_release"] = "5.99"
    with pytest.raises(SpecError, match=r"^switch_config.cumulus_release: no NVUE object model for Cumulus Linux '5.99'"):
        render_all(build_plan(spec), stages=["configs"])


def test_the_model_of_every_rendered_release_accepts_the_lab():
    from gpufabric.build import render_all

    for release in cumulus.RENDERED_RELEASES:
        spec = load_example("cumulus-lab")
        spec["switch_config"]["cumulus_release"] = release
        files = render_all(build_plan(spec), devices=["cumuluslab-spine01", "cumuluslab-r0-leaf01"], stages=["configs"])
        tree = _set(cumulus.load_startup(files["devices/cumuluslab-spine01/startup.yaml"]))
        assert tree["router"]["adaptive-routing"] == {"enable": "on"}  # SN5600: Spectrum-4
        assert tree["interface"]["swp1"]["router"]["adaptive-routing"] == {"enable": "on"}


@pytest.mark.parametrize("release", ["5.10", "5.15", "5.18"])
def test_a_release_whose_model_differs_is_refused_with_the_key(release):
    cfg = _backend()["lab-spine01"]
    with pytest.raises(SpecError) as info:
        cumulus.documents(cfg, release)
    assert str(info.value).startswith("switch_config.cumulus_release: the collection writes NVUE's object model "
                                      "of Cumulus Linux 5.11, 5.12, 5.13, 5.14, not %s" % release)
    # and the gate would have refused the documents of 5.14 under that release's model
    found = cumulus.problems(cumulus.documents(cfg), "lab-spine01", release)
    assert found and all(p.startswith("lab-spine01: startup.yaml set.") for p in found)


# --- BlueField-3 SuperNICs on the servers ----------------------------------------------------------------


def _with_supernics(spec, nic="BlueField-3"):
    """The spec's server model with BlueField-3 SuperNICs in place of its ConnectX-7s (a site's own model)."""
    from gpufabric.datafiles import load

    model = dict(load("hardware")["servers"][spec["servers"]["model"]], backend_nic_model=nic)
    spec.setdefault("models", {}).setdefault("servers", {})["XE9680-B3140H"] = model
    spec["servers"]["model"] = "XE9680-B3140H"
    return spec


def test_bluefield3_is_a_catalog_nic_with_its_data_sheet_figures():
    from gpufabric.catalog import Catalog

    nics = Catalog().nics
    assert {"ConnectX-7", "BlueField-3"} <= set(nics)
    bf3 = nics["BlueField-3"]
    assert 400 in bf3["speeds"] and bf3["pcie"] == "Gen5 x16" and bf3["form_factor"] == "QSFP112"
    assert "B3140H" in bf3["description"]
    assert Catalog().server("XE9680", "servers.model").backend_nic_model == "ConnectX-7"


def test_bluefield3_servers_get_the_same_roce_settings_as_connectx7_plus_nic_mode():
    from gpufabric.structured.server import server_configs

    plan = build_plan(_with_supernics(load_example("cumulus-lab")))
    reference = server_configs(build_plan(load_example("cumulus-lab")))
    servers = server_configs(plan)
    assert set(servers) == set(reference)
    for host, cfg in servers.items():
        roce, cx7 = cfg["roce"], reference[host]["roce"]
        # one source for both NIC models and the switches: the fabric's QoS profile
        assert {k: v for k, v in roce.items() if k != "mlxconfig"} == {k: v for k, v in cx7.items() if k != "mlxconfig"}
        assert roce["mlxconfig"] == dict(cx7["mlxconfig"], INTERNAL_CPU_OFFLOAD_ENGINE=1)
        assert "INTERNAL_CPU_OFFLOAD_ENGINE" not in cx7["mlxconfig"]
    # and the Cumulus leaves carry what the SuperNICs are set to
    cfgs = structured_configs(plan)
    leaf = next(c for c in cfgs.values() if c["role"] == "backend_leaf")
    mapping = _set(cumulus.documents(leaf))["qos"]["mapping"][cumulus.nvue_qos.QOS_PROFILE]["dscp"]
    roce = next(iter(servers.values()))["roce"]
    assert mapping[str(roce["dscp"])] == {"switch-priority": roce["lossless_priority"]}
    assert mapping[str(roce["cnp_dscp"])] == {"switch-priority": roce["cnp_priority"]}


def test_an_unknown_nic_model_is_refused_with_the_key():
    spec = _with_supernics(load_example("cumulus-lab"), nic="BlueField-4")
    text = _spec_refusal(spec)
    assert text.startswith("models.servers.XE9680-B3140H.backend_nic_model: 'BlueField-4' is not a NIC model of the "
                           "catalog: use one of BlueField-3, ConnectX-7")
