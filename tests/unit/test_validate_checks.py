"""Checks against the lab plan: a healthy cluster passes; each injected fault fails with device and port."""
import copy
import os
import xml.etree.ElementTree as ET

import pytest
import yaml
from conftest import load_example
from validate_helpers import collector_of, healthy_states

from gpufabric.plan import build_plan
from gpufabric.validate import report as reports
from gpufabric.validate.runner import validate
from gpufabric.validate.state import DeviceState


@pytest.fixture(scope="module")
def lab():
    plan = build_plan(load_example("lab"))
    return plan, healthy_states(plan)


def run(plan, states, **kw):
    return validate(plan, collector_of(states), **kw)


def failures(report):
    return [r for r in report["results"] if r.status in ("FAIL", "ERROR")]


def test_healthy_lab_has_no_failures(lab):
    plan, states = lab
    report = run(plan, states)
    assert failures(report) == []
    assert report["devices"] == 22 and report["counts"]["PASS"] > 600
    checks = {r.check for r in report["results"] if r.status == "PASS"}
    assert {"cabling", "link_state", "mtu", "bgp_sessions", "ecmp_width", "qos_backend_links", "qos_nic_leaf",
            "server_addressing", "server_policy_routing"} <= checks


def test_two_swapped_cables_are_one_swap(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    leaf = states["lab-r3-leaf01"].lldp
    leaf["Ethernet0"], leaf["Ethernet8"] = leaf["Ethernet8"], leaf["Ethernet0"]
    states["lab-gpu0001"].lldp["ens4np0"] = [{"system": "lab-r3-leaf01", "port": "Ethernet8"}]
    states["lab-gpu0002"].lldp["ens4np0"] = [{"system": "lab-r3-leaf01", "port": "Ethernet0"}]
    got = failures(run(plan, states))
    assert [(r.device, r.check, r.object) for r in got] == [("lab-r3-leaf01", "cabling", "Ethernet0<->Ethernet8")]
    assert got[0].message.startswith("swap: lab-r3-leaf01 Ethernet0 and Ethernet8 see each other's planned peers "
                                     "(lab-gpu0001 ens4np0 / lab-gpu0002 ens4np0)")


def test_cable_in_the_wrong_leaf_names_rail_and_planned_port(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-gpu0001"].lldp["ens4np0"] = [{"system": "lab-r4-leaf01", "port": "Ethernet0"}]
    msgs = [r.message for r in failures(run(plan, states))]
    assert msgs == ["lab-gpu0001 ens4np0 (rail 3) is cabled to lab-r4-leaf01 Ethernet0, planned lab-r3-leaf01 Ethernet0"]


def test_missing_neighbour_and_link_down(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    del states["lab-r0-leaf01"].lldp["Ethernet16"]
    states["lab-r0-leaf01"].interfaces["Ethernet16"].update(admin_up=False, oper_up=False)
    states["lab-spine01"].interfaces["Ethernet0"]["oper_up"] = False
    got = {(r.device, r.check, r.object): r.message for r in failures(run(plan, states))}
    assert "administratively down here" in got[("lab-r0-leaf01", "link_state", "Ethernet16")]
    assert "far end lab-r0-leaf01 Ethernet16 is administratively down" in got[("lab-spine01", "link_state", "Ethernet0")]
    assert "has no LLDP neighbour, planned lab-spine01 Ethernet0" in got[("lab-r0-leaf01", "cabling", "Ethernet16")]


def test_one_sided_neighbour_not_learned_yet_or_transmit_off(lab):
    """The far end sees the port, this end does not: just learned there (a link that came up) is "not learned
    yet"; learned long ago is LLDP transmit off or filtered."""
    plan, healthy = lab
    for age, why in ((3, "not learned yet: lab-spine01 Ethernet0 learned this port 3 s ago"),
                     (600, "lab-spine01 Ethernet0 does see it: LLDP transmit is off or filtered here")):
        states = copy.deepcopy(healthy)
        del states["lab-r0-leaf01"].lldp["Ethernet16"]
        states["lab-spine01"].lldp["Ethernet0"][0]["age_s"] = age
        got = {(r.device, r.object): r.message for r in failures(run(plan, states)) if r.check == "cabling"}
        assert list(got) == [("lab-r0-leaf01", "Ethernet16")]
        assert why in got[("lab-r0-leaf01", "Ethernet16")]


def test_bgp_shutdown_wrong_asn_and_unplanned_session(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-spine01"].bgp["peers"]["10.16.0.1"]["state"] = "Idle (Admin)"
    states["lab-r0-leaf01"].bgp["peers"]["10.16.0.0"]["state"] = "Active"
    states["lab-spine02"].bgp["peers"]["10.16.0.3"].update(remote_as=65000, state="Active")
    states["lab-r0-leaf01"].bgp["peers"]["10.16.0.2"]["state"] = "Active"
    states["lab-r1-leaf01"].bgp["peers"]["10.99.0.1"] = {"state": "Active", "remote_as": 1, "prefixes_received": 0,
                                                         "hostname": None}
    got = {(r.device, r.object): r.message for r in failures(run(plan, states))}
    assert set(got) == {("lab-spine01", "10.16.0.1"), ("lab-r0-leaf01", "10.16.0.0"), ("lab-spine02", "10.16.0.3"),
                        ("lab-r0-leaf01", "10.16.0.2"), ("lab-r1-leaf01", "10.99.0.1")}
    assert "lab-spine01 has neighbour 10.16.0.1 shut down" in got[("lab-r0-leaf01", "10.16.0.0")]
    assert "peer AS 65000 configured, planned AS 64514" in got[("lab-spine02", "10.16.0.3")]
    assert "lab-spine02 expects AS 65000 for neighbour 10.16.0.3" in got[("lab-r0-leaf01", "10.16.0.2")]
    assert "unplanned BGP session to 10.99.0.1" in got[("lab-r1-leaf01", "10.99.0.1")]


def test_wrong_local_asn(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-spine01"].bgp["local_as"] = 64999
    got = [(r.device, r.object) for r in failures(run(plan, states))]
    assert got == [("lab-spine01", "local AS")]


def test_mtu_mismatch_fails_only_the_wrong_end(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-r1-leaf01"].interfaces["Ethernet16"]["mtu"] = 1500
    got = failures(run(plan, states))
    assert [(r.device, r.object) for r in got] == [("lab-r1-leaf01", "Ethernet16")]
    assert got[0].message == "lab-r1-leaf01 Ethernet16 MTU 1500, planned 9216 (far end lab-spine01 Ethernet4 has 9216)"


def test_error_counters_and_flaps_over_thresholds(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-r5-leaf02"].interfaces["Ethernet8"].update(rx_errors=5000, flaps=40)
    got = failures(run(plan, states))
    assert [(r.device, r.check, r.object) for r in got] == [("lab-r5-leaf02", "interface_errors", "Ethernet8")]
    assert "rx_errors 5000 > 100, flaps 40 > 10" in got[0].message
    assert failures(run(plan, states, thresholds={"errors": 10000, "flaps": 100})) == []


def test_ecmp_width_names_missing_uplink(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    for route in states["lab-r6-leaf02"].routes.values():
        route["nexthops"] = route["nexthops"][:1]
    got = failures(run(plan, states))
    assert [(r.device, r.check) for r in got] == [("lab-r6-leaf02", "ecmp_width")]
    assert "reaches 15 remote leaf summaries over fewer paths than its working uplinks give" in got[0].message
    assert "missing Ethernet24 (to lab-spine02)" in got[0].message


def test_pfc_off_on_one_end_and_on_a_nic(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-r2-leaf01"].qos["Ethernet16"]["pfc"] = []
    states["lab-gpu0004"].nic_qos["ens8np0"]["ecn"] = []
    got = {(r.device, r.check, r.object): r.message for r in failures(run(plan, states))}
    assert set(got) == {("lab-r2-leaf01", "qos_backend_links", "Ethernet16"), ("lab-gpu0004", "qos_nic_leaf", "ens8np0")}
    assert "has PFC priorities [], planned PFC priorities [3] (link lab-spine01 Ethernet8 -- lab-r2-leaf01 Ethernet16)" \
        in got[("lab-r2-leaf01", "qos_backend_links", "Ethernet16")]


def test_wrong_dscp_map_names_the_code_points_that_differ(lab):
    # RoCE moved off DSCP 26 on one leaf port: the message names the code points that differ, not a fixed one.
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    wrong = dict(states["lab-r2-leaf01"].qos["Ethernet16"]["dscp_to_tc"])
    roce_dscp = next(p for p, tc in wrong.items() if tc == 3)
    wrong[roce_dscp], wrong[24] = 0, 3
    states["lab-r2-leaf01"].qos["Ethernet16"]["dscp_to_tc"] = wrong
    got = {(r.device, r.check, r.object): r.message for r in failures(run(plan, states))}
    message = got[("lab-r2-leaf01", "qos_backend_links", "Ethernet16")]
    assert "has DSCP map DSCP 24->TC 3, DSCP %s->TC 0, planned DSCP map DSCP 24->TC 0, DSCP %s->TC 3" % (
        roce_dscp, roce_dscp) in message


def test_server_wrong_address_and_missing_rule(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-gpu0003"].addrs["ens2np0"]["ipv4"] = ["10.0.0.99/31"]
    states["lab-gpu0002"].rules = [r for r in states["lab-gpu0002"].rules if r["table"] != "105"]
    got = {(r.device, r.check, r.object): r.message for r in failures(run(plan, states))}
    assert got[("lab-gpu0003", "server_addressing", "ens2np0")] == (
        "lab-gpu0003 ens2np0 (rail 1) has 10.0.0.99/31, planned 10.0.0.37/31 (leaf lab-r1-leaf02 Ethernet0): fix the address")
    assert "no `ip rule from" in got[("lab-gpu0002", "server_policy_routing", "ens5np0")]
    assert len(got) == 2


def test_collection_errors_and_unavailable_sources(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    broken = DeviceState("lab-spine02", "backend_spine")
    broken.errors = {s: "ssh: connect to host lab-spine02 port 22: Connection refused"
                     for s in ("lldp", "bgp", "links", "sysfs", "qos", "routes")}
    states["lab-spine02"] = broken
    states["lab-gpu0001"].nic_qos = None
    states["lab-gpu0001"].unavailable["nic_qos"] = "mlnx_qos is not installed"
    report = run(plan, states)
    errors = [r for r in report["results"] if r.status == "ERROR"]
    assert {r.device for r in errors} == {"lab-spine02"} and "Connection refused" in errors[0].message
    assert any(r.device == "lab-gpu0001" and r.check == "qos_nic_leaf" and r.status == "SKIP" for r in report["results"])


def test_rail_isolation_in_rail_planes():
    spec = load_example("lab")
    spec["backend"]["design"] = "rail_planes"
    plan = build_plan(spec)
    states = healthy_states(plan)
    assert failures(run(plan, states)) == []
    states["lab-r0-leaf01"].routes["10.0.0.4/30"] = {"protocol": "bgp", "nexthops": [{"ip": None, "interface": "Ethernet16"}]}
    got = failures(run(plan, states))
    assert [(r.device, r.check) for r in got] == [("lab-r0-leaf01", "rail_isolation")]
    assert "lab-r0-leaf01 (rail 0) has routes to other rails: lab-r1-leaf01 10.0.0.4/30 (rail 1)" in got[0].message


def test_include_exclude_and_unknown_check(lab):
    plan, states = lab
    report = run(plan, states, include=["mtu"])
    assert {r.check for r in report["results"]} == {"mtu"}
    assert "mtu" not in {r.check for r in run(plan, states, exclude=["mtu"])["results"]}
    with pytest.raises(ValueError, match="unknown check 'nope'"):
        run(plan, states, include=["nope"])


def test_reports_json_markdown_junit(lab, tmp_path):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-r1-leaf01"].interfaces["Ethernet16"]["mtu"] = 1500
    report = run(plan, states)
    paths = reports.write_reports(report, str(tmp_path))
    assert paths["json"] == str(tmp_path / "validation" / "lab" / "report.json")
    data = yaml.safe_load(open(paths["json"]))
    assert data["counts"]["FAIL"] == 1 and data["results"][0]["device"] == "lab-r1-leaf01"
    md = open(paths["markdown"]).read()
    assert "| FAIL | lab-r1-leaf01 | mtu | Ethernet16 |" in md
    root = ET.parse(paths["junit"]).getroot()
    assert root.get("failures") == "1"
    failed = [tc for tc in root.iter("testcase") if tc.find("failure") is not None]
    assert [(tc.get("classname"), tc.get("name")) for tc in failed] == [("mtu.lab-r1-leaf01", "Ethernet16")]
    assert reports.summary(report).splitlines()[1].startswith("FAIL mtu lab-r1-leaf01 Ethernet16: ")


def test_a_rail_nic_that_does_not_reach_its_rail_fails_naming_both_ends(lab):
    plan, states = lab
    states = copy.deepcopy(states)
    gpu = states["lab-gpu0001"]
    dead = next(key for key, wanted in gpu.reach.items() if wanted)
    gpu.reach[dead] = False
    got = [(r.device, r.object, r.message) for r in failures(run(plan, states)) if r.check == "rail_reachability"]
    assert len(got) == 1 and got[0][0] == "lab-gpu0001" and got[0][2].endswith(": unreachable")
    assert "lab-gpu0001 rail" in got[0][1] and "-> lab-gpu" in got[0][1]


def test_a_path_that_drops_full_size_frames_fails_path_mtu_only(lab):
    plan, states = lab
    states = copy.deepcopy(states)
    from gpufabric.validate.expect import Expectation
    probes = Expectation(plan).mtu_probes("lab-gpu0001")
    # One per rail NIC, at the NIC's MTU, to the same rail under another leaf (through a spine).
    assert len(probes) == 8 and {size for _s, _d, size, _l in probes} == {9000}
    src, dst, size, label = probes[2]
    assert label.startswith("lab-gpu0001 rail 2 -> lab-gpu") and label.endswith(", 9000 bytes, DF")
    states["lab-gpu0001"].reach["%s>%s/%d" % (src, dst, size)] = False
    got = [(r.check, r.device, r.object, r.message) for r in failures(run(plan, states))]
    assert got == [("path_mtu", "lab-gpu0001", label, label + ": no answer, while a small echo on the same path is "
                    "answered: a port on the path (this NIC, a switch port or the far NIC) has an MTU below 9000; "
                    "see the mtu check")]


def test_reach_probes_cover_the_same_rail_of_every_other_server(lab):
    from gpufabric.validate.expect import Expectation
    probes = Expectation(lab[0]).reach_probes("lab-gpu0001")
    assert len(probes) == 8 * 3 and all(wanted for _s, _d, wanted, _l in probes)


def test_validate_playbook_runs_for_any_check_tag_and_the_action_picks_the_checks():
    """`--tags <check>` runs that check and `--skip-tags <check>` all but it: the play itself must run for
    both (tagged always; a check name among its tags would let --skip-tags skip the whole validation), and
    the action selects the checks from the tags."""
    import os
    from conftest import ROOT
    from gpufabric.progress import selected_stages
    from gpufabric.validate.checks import CHECKS
    with open(os.path.join(ROOT, "playbooks", "validate.yml")) as f:
        plays = yaml.safe_load(f)
    tags = next(p["tags"] for p in plays if p.get("name") == "Validate the fabric against the plan")
    assert "always" in tags and not set(tags) & {c.name for c in CHECKS}
    names = [c.name for c in CHECKS]
    assert selected_stages(names, ["cabling"], None) == ["cabling"]
    assert selected_stages(names, ["all"], ["cabling"]) == [n for n in names if n != "cabling"]
    assert selected_stages(names, ["validate"], None) == names


def _break_uplink(plan, states, leaf, spine):
    """The session leaf--spine down on both ends, and every route through it gone, as FRR would show it."""
    from gpufabric.validate.expect import Expectation
    expect = Expectation(plan)
    for me, other in ((leaf, spine), (spine, leaf)):
        for ip, want in expect.bgp_neighbors(me).items():
            if want["peer"] == other:
                states[me].bgp["peers"][ip]["state"] = "Active"
    port = next(p.name for p in expect.uplinks(leaf) if p.peer == spine)
    summary = expect.leaf_summaries()[leaf]
    for name, state in states.items():
        if state.role != "backend_leaf":
            continue
        for prefix, route in state.routes.items():
            if name == leaf or prefix == summary:
                drop = port if name == leaf else next(p.name for p in expect.uplinks(name) if p.peer == spine)
                route["nexthops"] = [h for h in route["nexthops"] if h["interface"] != drop]


def test_one_bad_uplink_fails_one_check_naming_it(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    _break_uplink(plan, states, "lab-r3-leaf02", "lab-spine01")
    got = failures(run(plan, states))
    assert {(r.device, r.check) for r in got} == {("lab-r3-leaf02", "bgp_sessions"), ("lab-spine01", "bgp_sessions")}
    passed = [r for r in run(plan, states)["results"] if r.check == "ecmp_width" and r.device == "lab-r0-leaf01"]
    assert "lab-r3-leaf02 Ethernet16 -- lab-spine01" in passed[0].message


def test_ecmp_still_fails_the_leaf_that_lost_a_path_on_its_own(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    _break_uplink(plan, states, "lab-r3-leaf02", "lab-spine01")
    states["lab-r0-leaf01"].routes["10.0.0.8/30"]["nexthops"] = []   # lab-r2-leaf01: 2 working paths
    got = {(r.device, r.check) for r in failures(run(plan, states))}
    assert ("lab-r0-leaf01", "ecmp_width") in got and len(got) == 3


def test_a_leaf_missing_its_aggregate_is_named_alone(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    summary = "10.0.0.20/30"
    assert healthy["lab-r0-leaf01"].routes[summary]
    for state in states.values():
        if state.routes:
            state.routes.pop(summary, None)
    got = failures(run(plan, states))
    owner = [r for r in got if r.object == "summary " + summary]
    assert [(r.device, r.check) for r in got] == [(owner[0].device, "leaf_summaries")]
    assert "does not announce its server summary %s: none of the 15 leaves" % summary in got[0].message


def test_leaked_server_links_are_blamed_on_their_leaf(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    for name in ("lab-r0-leaf01", "lab-r1-leaf01"):
        states[name].routes["10.0.0.12/31"] = {"protocol": "bgp", "nexthops": [{"ip": None, "interface": "Ethernet16"}]}
    states["lab-r4-leaf01"].routes["10.0.0.0/31"] = {"protocol": "connected", "nexthops": []}   # not via BGP
    got = failures(run(plan, states))
    assert [(r.check, r.object) for r in got] == [("leaf_summaries", "more-specifics of 10.0.0.12/30")]
    assert got[0].message.endswith("leaks 1 routes past its summary 10.0.0.12/30: 10.0.0.12/31 (seen on 2 leaves): "
                                   "the aggregate must be summary-only")


def test_server_links_announced_by_tenant_vrfs_are_no_leak(lab):
    """In tenant VRF mode every server /31 travels with its tenant's community (docs/tenancy.md)."""
    from gpufabric.tenants import attach, parse_assignment, plan_servers
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    for name in ("lab-r0-leaf01", "lab-r1-leaf01"):
        states[name].routes["10.0.0.12/31"] = {"protocol": "bgp", "nexthops": [{"ip": None, "interface": "Ethernet16"}]}
    attach(plan, parse_assignment({"isolation": "vrf", "tenants": {"a": {"id": 1, "servers": ["lab-gpu0001"]}}},
                                  plan_servers(plan)))
    try:
        got = [r for r in failures(run(plan, states)) if r.check == "leaf_summaries"]
    finally:
        attach(plan, None)
    assert got == []


def test_leaf_pfc_off_on_a_server_port_fails_when_the_nic_cannot_be_read(lab):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-gpu0001"].nic_qos = None
    states["lab-gpu0001"].unavailable["nic_qos"] = "mlnx_qos is not installed"
    states["lab-r0-leaf01"].qos["Ethernet0"]["pfc"] = []
    report = run(plan, states)
    got = failures(report)
    assert [(r.device, r.check, r.object) for r in got] == [("lab-r0-leaf01", "qos_nic_leaf", "Ethernet0")]
    assert "NIC side not checked" in got[0].message and "PFC priorities []" in got[0].message
    skips = [r for r in report["results"] if r.device == "lab-gpu0001" and r.check == "qos_nic_leaf"]
    assert [r.status for r in skips] == ["SKIP"]


def test_a_leaf_side_that_cannot_be_read_is_never_a_pass(lab):
    # The NIC is read and as planned, its leaf's QoS cannot be read: the link is the leaf's ERROR (or SKIP), named,
    # and the NIC alone is no PASS; a NIC that deviates still FAILs on its own.
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-r0-leaf01"].qos = None
    states["lab-r0-leaf01"].errors["qos"] = "sonic-cfggen: redis is down"
    server = next(n for n in plan.devices if n.role == "gpu_server" and any(
        e.peer.name == "lab-r0-leaf01" for e in n.ends()))
    nic = next(e for e in server.ends() if e.peer.name == "lab-r0-leaf01")
    report = run(plan, states)
    on_link = [r for r in report["results"] if r.check == "qos_nic_leaf"
               and (r.device, r.object) in ((server.name, nic.port), ("lab-r0-leaf01", nic.peer_port))]
    assert sorted(r.status for r in on_link) == ["ERROR", "SKIP"]
    error = next(r for r in on_link if r.status == "ERROR")
    assert (error.device, error.object) == ("lab-r0-leaf01", nic.peer_port) and "redis is down" in error.message
    assert not [r for r in report["results"] if r.check == "qos_nic_leaf" and r.status == "PASS"
                and "lab-r0-leaf01" in (r.device, r.message)]
    states[server.name].nic_qos[nic.port]["pfc"] = []
    got = [r for r in failures(run(plan, states)) if r.check == "qos_nic_leaf" and r.status == "FAIL"]
    assert [(r.device, r.object) for r in got] == [(server.name, nic.port)] and "leaf side not checked" in got[0].message


def test_flaps_count_from_the_last_validation_run(lab, tmp_path):
    plan, healthy = lab
    states = copy.deepcopy(healthy)
    states["lab-r5-leaf02"].interfaces["Ethernet8"]["flaps"] = 40
    first = run(plan, states)
    assert [(r.device, r.object) for r in failures(first)] == [("lab-r5-leaf02", "Ethernet8")]
    assert "flaps 40 > 10 (since boot)" in failures(first)[0].message
    reports.write_reports(first, str(tmp_path))
    baseline = reports.read_baseline(str(tmp_path), "lab")
    assert baseline["lab-r5-leaf02"]["Ethernet8"] == 40
    assert failures(run(plan, states, baseline=baseline)) == []
    states["lab-r5-leaf02"].interfaces["Ethernet8"]["flaps"] = 52
    got = failures(run(plan, states, baseline=baseline))
    assert "flaps 12 > 10 (since the last validation)" in got[0].message
    states["lab-r5-leaf02"].interfaces["Ethernet8"]["flaps"] = 3      # rebooted: counts from zero
    assert failures(run(plan, states, baseline=baseline)) == []


def test_reports_live_outside_the_cluster_build(lab, tmp_path):
    from gpufabric import build
    plan, healthy = lab
    paths = reports.write_reports(run(plan, healthy), str(tmp_path))
    assert all(p.startswith(str(tmp_path / "validation" / "lab")) for p in paths.values())
    build.write_build(plan, str(tmp_path))
    build.write_build(build_plan(dict(load_example("lab"), servers={"model": "XE9680", "count": 2, "per_rack": 2})),
                      str(tmp_path))
    assert all(os.path.exists(p) for p in paths.values())
