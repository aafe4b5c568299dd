"""Arista EOS (nos/eos): the catalog's EOS models and port names, the structured config mapped to the input of
AVD's eos_cli_config_gen, pyavd's own schema as the gate (one line per problem naming switch and key), and what the
renderer refuses (docs/eos.md)."""
import copy
import functools
import os

import pytest

pyavd = pytest.importorskip("pyavd", reason="EOS configs are rendered by pyavd (requirements.txt)")

from conftest import ROOT, load_example  # noqa: E402
from gpufabric import tenants  # noqa: E402
from gpufabric.catalog import Catalog  # noqa: E402
from gpufabric.errors import SpecError  # noqa: E402
from gpufabric.nos import eos  # noqa: E402
from gpufabric.nos.eos import avd_input, avd_qos, render  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402
from gpufabric.structured import structured_configs  # noqa: E402

LEAF, SPINE = "eoslab-r0-leaf01", "eoslab-spine01"


@functools.lru_cache(maxsize=None)
def _lab():
    plan = build_plan(load_example("eos-lab"))
    return plan, structured_configs(plan)


def _cfg(host=LEAF):
    return copy.deepcopy(_lab()[1][host])


def _input(cfg):
    return eos.eos_input(cfg, _lab()[0].spec)


def _port(data, name):
    return next(p for p in data["ethernet_interfaces"] if p["name"] == name)


# --- catalog ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model,speed,form_factor", [("7060X6-64PE", 800, "OSFP"), ("7060DX5-64S", 400, "QSFP-DD")])
def test_arista_models_name_their_cages_the_eos_way(model, speed, form_factor):
    m = Catalog().switch(model, "models.switches", "eos")
    assert m.runs == ("eos",) and m.mgmt_port == "Management1"
    assert [p[0] for p in m.ports] == ["Ethernet%d/1" % n for n in range(1, 65)]
    assert {(p[1], p[3]) for p in m.ports} == {(speed, form_factor)}
    assert m.rack_units == 2 and m.power_typical_w < m.power_max_w


def test_a_broken_out_cage_names_each_sub_port_by_its_first_lane():
    m = Catalog().switch("7060X6-64PE", "models.switches", "eos")
    view = m.broken_out({0: "2x400G", 1: "4x200G", 2: "8x100G"})
    names = [p[0] for p in view.ports]
    assert names[:2] == ["Ethernet1/1", "Ethernet1/5"]
    assert names[2:6] == ["Ethernet2/1", "Ethernet2/3", "Ethernet2/5", "Ethernet2/7"]
    assert names[6:14] == ["Ethernet3/%d" % lane for lane in range(1, 9)]
    assert names[14] == "Ethernet4/1"


def test_the_lab_leaf_breaks_its_server_cages_out_and_speaks_eos_speeds():
    data = _input(_cfg())
    assert _port(data, "Ethernet1/1")["speed"] == "400g-4" and _port(data, "Ethernet1/5")["speed"] == "400g-4"
    assert _port(data, "Ethernet2/1")["speed"] == "800g-8"
    assert _port(data, "Ethernet1/1")["switchport"] == {"enabled": False}


def test_a_400g_qsfp_dd_cage_runs_400g_over_8_lanes():
    cfg = _cfg(SPINE)
    cfg["model"] = "7060DX5-64S"
    for entry in cfg["ethernet_interfaces"]:
        entry["speed_gbps"] = 400
    assert {p["speed"] for p in _input(cfg)["ethernet_interfaces"]} == {"400g-8"}


# --- the mapping ---------------------------------------------------------------------------------------------------


def test_the_plans_addresses_and_bgp_are_eos_input():
    cfg = _cfg()
    data = _input(cfg)
    for entry in (e for e in cfg["ethernet_interfaces"] if "ipv4" in e):
        assert _port(data, entry["name"])["ip_address"] == entry["ipv4"]
    assert data["loopback_interfaces"][0] == {"name": "Loopback0", "description": "router ID, BGP",
                                              "ip_address": cfg["loopback"]["ipv4"]}
    bgp = data["router_bgp"]
    assert bgp["as"] == str(cfg["bgp"]["asn"]) and bgp["router_id"] == cfg["bgp"]["router_id"]
    assert bgp["maximum_paths"] == {"paths": cfg["bgp"]["max_paths"], "ecmp": cfg["bgp"]["max_paths"]}
    assert [(n["ip_address"], n["remote_as"]) for n in bgp["neighbors"]] == [
        (n["ip"], str(n["remote_as"])) for n in cfg["bgp"]["neighbors"]]
    group = bgp["peer_groups"][0]
    assert group["bfd"] and group["bfd_timers"] == {"interval": 300, "min_rx": 300, "multiplier": 3}
    assert bgp["aggregate_addresses"] == [{"prefix": s, "summary_only": True} for s in cfg["bgp"]["summaries"]]
    assert data["management_interfaces"][0]["vrf"] == "MGMT"
    assert data["static_routes"] == [{"vrf": "MGMT", "prefix": "0.0.0.0/0",
                                      "next_hop": cfg["management"]["gateway"]}]


def test_roce_follows_the_plans_qos_profile():
    cfg = _cfg()
    q = cfg["qos"]
    data = _input(cfg)
    lossless = [d for d, tc in q["dscp_to_traffic_class"].items() if tc == q["pfc_priorities"][0]]
    assert lossless == [26]
    assert "26 to traffic-class 3" in data["qos"]["map"]["dscp"]
    assert "48 to traffic-class 6" in data["qos"]["map"]["dscp"]
    queues = {t["id"]: t for t in data["qos_profiles"][0]["tx_queues"]}
    assert queues[6]["priority"] == "priority strict"
    ecn = queues[3]["random_detect"]["ecn"]["threshold"]
    assert (ecn["min"] * 1024, ecn["max"] * 1024) == (q["ecn"]["min_threshold_bytes"], q["ecn"]["max_threshold_bytes"])
    for name in q["interfaces"]:
        port = _port(data, name)
        assert port["priority_flow_control"] == {"enabled": True, "priorities": [{"priority": 3, "no_drop": True}]}
        assert port["qos"] == {"trust": "dscp"} and port["service_profile"] == avd_qos.QOS_PROFILE
    assert data["priority_flow_control"]["watchdog"] == {"action": "drop", "timeout": "0.2",
                                                         "polling_interval": "0.1", "recovery_time": "0.2"}


def test_the_drain_route_map_goes_out_on_the_peer_group():
    cfg = _cfg(SPINE)
    cfg["bgp"]["drain"] = {"route_map": "GPUFABRIC_DRAIN", "prepend": [cfg["bgp"]["asn"]] * 2,
                           "community": "graceful-shutdown"}
    data = _input(cfg)
    assert data["router_bgp"]["address_family_ipv4"]["peer_groups"][0]["route_map_out"] == "GPUFABRIC_DRAIN"
    drain = next(r for r in data["route_maps"] if r["name"] == "GPUFABRIC_DRAIN")["sequence_numbers"][0]
    assert drain["set"] == ["as-path prepend %d %d" % ((cfg["bgp"]["asn"],) * 2), "community graceful-shutdown additive"]
    text = eos.render_device(cfg, _lab()[0].spec)["startup-config"]
    assert "route-map GPUFABRIC_DRAIN permit 10" in text and "neighbor FABRIC route-map GPUFABRIC_DRAIN out" in text


def _with_tenants(name):
    plan = _lab()[0]
    assignment = tenants.load_assignment(os.path.join(ROOT, "examples", "tenants", name), tenants.plan_servers(plan),
                                         "eoslab")
    tenants.attach(plan, assignment)
    try:
        return structured_configs(plan, [LEAF])[LEAF]
    finally:
        tenants.attach(plan, None)


def test_tenants_in_acl_mode_are_inbound_acls_on_the_server_ports():
    cfg = _with_tenants("eos-lab.tenants.yml")
    text = eos.render_device(cfg, _lab()[0].spec)["startup-config"]
    for acl in cfg["tenant_isolation"]["acls"]:
        assert "ip access-list %s" % acl["name"] in text
        assert "%d deny ip any any" % (10 * len(acl["rules"])) in text
        for port in acl["ports"]:
            block = text.split("interface %s\n" % port, 1)[1].split("!", 1)[0]
            assert "ip access-group %s in" % acl["name"] in block


def test_tenants_in_vrf_mode_are_vrfs_leaking_by_community():
    cfg = _with_tenants("eos-lab-vrf.tenants.yml")
    data = _input(cfg)
    vrfs = cfg["tenant_isolation"]["vrfs"]
    assert {v["name"] for v in data["vrfs"]} == {"MGMT"} | {v["name"] for v in vrfs}
    for vrf in vrfs:
        assert all(_port(data, p)["vrf"] == vrf["name"] for p in vrf["ports"])
    general = {v["name"]: v["leak_routes"] for v in data["router_general"]["vrfs"]}
    assert general[vrfs[0]["name"]] == [{"source_vrf": "default", "subscribe_policy": vrfs[0]["import_route_map"]}]
    assert data["router_bgp"]["redistribute"]["connected"]["include_leaked"] is True
    assert render.validate(LEAF, data)[1] == []


# --- the gate: pyavd's schema --------------------------------------------------------------------------------------


def test_every_eos_switch_of_the_lab_passes_pyavds_schema():
    plan, cfgs = _lab()
    eos_cfgs = {h: c for h, c in cfgs.items() if c["nos"] == "eos"}
    assert len(eos_cfgs) == 18
    files = eos.render_switches(eos_cfgs, plan.spec)
    assert all(list(f) == ["startup-config"] and f["startup-config"].startswith("!") for f in files.values())


def test_a_key_pyavds_schema_does_not_know_fails_in_one_line_naming_switch_and_key(monkeypatch):
    real = avd_input.structured

    def with_typo(cfg, lanes):
        data = real(cfg, lanes)
        data["router_bgp"]["maximum_path"] = data["router_bgp"].pop("maximum_paths")
        _port(data, "Ethernet1/1")["priority_flow_control"]["enabeld"] = True
        return data

    monkeypatch.setattr(avd_input, "structured", with_typo)
    with pytest.raises(eos.AvdSchemaError) as info:
        eos.render_switches({LEAF: _cfg()}, _lab()[0].spec)
    assert isinstance(info.value, SpecError)
    assert sorted(info.value.problems) == [
        "%s: ethernet_interfaces.0.priority_flow_control.enabeld: Invalid key." % LEAF,
        "%s: router_bgp.maximum_path: Invalid key." % LEAF]
    assert "Traceback" not in str(info.value)


def test_a_wrong_value_is_named_too():
    data = _input(_cfg())
    data["qos_profiles"][0]["tx_queues"][1]["random_detect"]["ecn"]["threshold"]["units"] = "furlongs"
    _validated, problems = render.validate(LEAF, data)
    assert len(problems) == 1 and problems[0].startswith(
        "%s: qos_profiles.0.tx_queues.1.random_detect.ecn.threshold.units: " % LEAF)


def test_many_problems_are_shown_up_to_a_limit():
    error = eos.AvdSchemaError(["s%d: k: Invalid key." % n for n in range(render.SHOWN + 5)])
    assert str(error).count("Invalid key.") == render.SHOWN and "... and 5 more" in str(error)


# --- what the renderer refuses -------------------------------------------------------------------------------------


def test_a_role_the_renderer_does_not_write_is_refused_naming_the_key():
    cfg = _cfg()
    cfg["role"] = "frontend_leaf"
    with pytest.raises(SpecError, match=r"^nos: eoslab-r0-leaf01 \(frontend_leaf\) would run Arista EOS"):
        _input(cfg)


@pytest.mark.parametrize("key,value,message", [
    ("trust", "cos", "switch_config.qos_overrides.trust"),
    ("pfc_watchdog", {"detection_time_ms": 200, "restoration_time_ms": 200, "action": "forward",
                      "poll_interval_ms": 100}, "switch_config.qos_overrides.pfc_watchdog.action"),
])
def test_a_qos_profile_eos_cannot_express_is_refused(key, value, message):
    cfg = _cfg()
    cfg["qos"][key] = value
    with pytest.raises(SpecError, match="^%s: " % message.replace(".", r"\.")):
        _input(cfg)


def test_a_speed_eos_cannot_name_is_refused():
    cfg = _cfg(SPINE)
    cfg["ethernet_interfaces"][0]["speed_gbps"] = 300
    with pytest.raises(SpecError, match="EOS has no speed of 300 Gb/s"):
        _input(cfg)


# --- the twin ------------------------------------------------------------------------------------------------------


def test_the_twins_eos_plane_keeps_the_contract_and_leaves_other_twins_alone(tmp_path):
    """The EOS emulator (docs/twin.md, "The eAPI stand-in") answers the twin as every NOS's plane does; a twin without
    EOS switches starts nothing of it; a rendered startup-config it cannot load is refused in one line."""
    from gpufabric.twin import emulators

    plane = emulators.plane("eos")
    assert emulators.problems("eos") == []
    assert plane.SELF_APPLYING and plane.CONFIG_FILE == "startup-config"
    assert plane.apply(str(tmp_path), []) == [] and plane.leftovers(["x"]) == [] and plane.remove(str(tmp_path), []) == []
    assert not os.listdir(tmp_path)
    with pytest.raises(plane.PlaneError, match=r"^the rendered startup-config does not load: line 1 'frobnicate'"):
        plane.boot_facts("frobnicate\n")
