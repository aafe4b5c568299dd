"""The deploy's BGP gate on FRR JSON (frr_linux/bgp.py over bgp_gate.py): sessions, own announcements, leaks, prefixes from each neighbour."""
import json
import os

import pytest
import yaml
from conftest import load_example

from gpufabric.bgp_gate import json_documents
from gpufabric.frr_linux.bgp import deploy_gate, problems
from gpufabric.build import render_all
from gpufabric.plan import build_plan


@pytest.fixture(scope="module")
def configs():
    files = render_all(build_plan(load_example("lab")))
    return {path.split("/")[1]: yaml.safe_load(text) for path, text in files.items()
            if path.startswith("devices/") and path.endswith("/structured.yml")}


def path(peer="(unspec)", best=True, **extra):
    return dict({"valid": True, "bestpath": best, "peerId": peer}, **extra)


def frr_output(cfg, configs, drop=(), state="Established", extra_routes=None):
    """What vtysh prints for a healthy switch (FRR 8.4 JSON shapes), minus the routes in ``drop``."""
    peers, routes = {}, {}
    for prefix in cfg["bgp"]["networks"] + cfg["bgp"]["summaries"]:
        routes[prefix] = [path()]
    for n in cfg["bgp"]["neighbors"]:
        sent = configs[n["peer"]]["bgp"]
        own = sent["networks"] + sent["summaries"]
        for prefix in own:
            routes.setdefault(prefix, []).append(path(n["ip"], best=False))
        peers[n["ip"]] = {"state": state, "pfxRcd": len(own), "pfxSnt": 2}
    for prefix in drop:
        routes.pop(prefix, None)
    routes.update(extra_routes or {})
    return json.dumps({"peers": peers}) + "\n" + json.dumps({"routes": routes}) + "\n"


def test_healthy_leaf_passes(configs):
    cfg = configs["lab-r0-leaf01"]
    ips = [n["ip"] for n in cfg["bgp"]["neighbors"]]
    peers = [configs[n["peer"]] for n in cfg["bgp"]["neighbors"]]
    assert problems(frr_output(cfg, configs), cfg, ips, peers) == []


def test_lost_summary_and_leaked_links_are_named(configs):
    cfg = configs["lab-r0-leaf01"]
    ips = [n["ip"] for n in cfg["bgp"]["neighbors"]]
    summary = cfg["bgp"]["summaries"][0]
    text = frr_output(cfg, configs, drop=[summary], extra_routes={"10.0.0.0/31": [path()], "10.0.0.2/31": [path()]})
    got = problems(text, cfg, ips, [configs[n["peer"]] for n in cfg["bgp"]["neighbors"]])
    assert got == ["summary %s is not announced (not in the BGP table)" % summary,
                   "10.0.0.0/31 leaks past summary %s (not suppressed)" % summary,
                   "10.0.0.2/31 leaks past summary %s (not suppressed)" % summary]
    suppressed = {"10.0.0.0/31": [path(suppressed=True)]}
    assert problems(frr_output(cfg, configs, extra_routes=suppressed), cfg, ips, []) == []


def test_down_session_and_missing_prefixes_from_a_spine(configs):
    cfg = configs["lab-spine01"]
    first, second = cfg["bgp"]["neighbors"][:2]
    text = frr_output(cfg, configs)
    docs = json_documents(text)
    docs[0]["peers"][first["ip"]]["state"] = "Active"
    lost = configs[second["peer"]]["bgp"]["summaries"][0]
    docs[1]["routes"][lost] = [p for p in docs[1]["routes"][lost] if p["peerId"] != second["ip"]]
    docs[0]["peers"][second["ip"]]["pfxRcd"] = 1
    text = "\n".join(json.dumps(d) for d in docs)
    got = problems(text, cfg, [first["ip"], second["ip"]], [configs[n["peer"]] for n in cfg["bgp"]["neighbors"]])
    assert got == ["session %s (%s) is Active" % (first["ip"], first["description"]),
                   "%s (%s) sent 1 prefixes, the plan needs at least 2; missing %s"
                   % (second["ip"], second["description"], lost)]


def test_no_output_is_a_problem_not_a_pass(configs):
    assert problems("", configs["lab-r0-leaf01"], []) == ["no BGP state: the switch printed none the gate can read"]
    first_bring_up = problems(json.dumps({"peers": {}}), configs["lab-r0-leaf01"], [], [], own=False)
    assert first_bring_up == []


def test_deploy_gate_takes_what_it_requires_from_the_state_before(configs):
    cfg = configs["lab-r0-leaf01"]
    summary = cfg["bgp"]["summaries"][0]
    first, second = [n["ip"] for n in cfg["bgp"]["neighbors"]][:2]
    peers = [configs[n["peer"]] for n in cfg["bgp"]["neighbors"]]
    running = json.dumps({"ipv4Unicast": {"peers": {first: {"state": "Established"}, second: {"state": "Active"}}}})
    broken = frr_output(cfg, configs, drop=[summary])
    assert deploy_gate(broken, cfg, running, "auto", peers) == [
        "summary %s is not announced (not in the BGP table)" % summary]
    # A first bring-up (nothing was up): neither the sessions nor the server summary are required yet.
    assert deploy_gate(broken, cfg, "", "auto", peers) == []
    # A neighbour without a build (None) is only required to be Established.
    docs = json_documents(frr_output(cfg, configs))
    docs[1]["routes"] = {p: r for p, r in docs[1]["routes"].items() if all(x["peerId"] != second for x in r)}
    text = "\n".join(json.dumps(d) for d in docs)
    assert len(deploy_gate(text, cfg, running, "auto", peers)) == 1
    assert deploy_gate(text, cfg, running, "auto", [p if p["hostname"] != cfg["bgp"]["neighbors"][1]["peer"]
                                                    else None for p in peers]) == []
    # Growth: a session the change adds (not in the summary before) is left to validation, not required.
    grown = json.dumps({"ipv4Unicast": {"peers": {first: {"state": "Established"}}}})
    assert deploy_gate(text, cfg, grown, "auto", peers) == []
    assert len(deploy_gate(text, cfg, grown, "all", peers)) == 1


def test_deploy_gate_refuses_an_unknown_gate_by_name(configs):
    with pytest.raises(ValueError, match="sonic_deploy_bgp_gate: 'most'"):
        deploy_gate("", configs["lab-r0-leaf01"], "", "most")


# Real FRR output: the gate's vtysh call on the lab twin (FRR 8.4 from Debian), captured healthy, with
# lab-r1-leaf01's aggregate-address removed (on the leaf and as lab-spine01 then sees it), and with
# lab-spine01 shutting its session to lab-r1-leaf01.
REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "bgp_gate")


def real(name):
    with open(os.path.join(REAL, name)) as f:
        return f.read()


def gate_on(configs, host, state):
    cfg = configs[host]
    before = json.dumps(json_documents(real(host + ".healthy.txt"))[0])   # a running switch, all sessions up
    return deploy_gate(real("%s.%s.txt" % (host, state)), cfg, before, "auto",
                       [configs[n["peer"]] for n in cfg["bgp"]["neighbors"]])


def test_real_healthy_switches_pass(configs):
    assert gate_on(configs, "lab-r1-leaf01", "healthy") == []
    assert gate_on(configs, "lab-spine01", "healthy") == []


def test_real_leaf_without_its_aggregate_names_the_summary_and_the_leaked_links(configs):
    assert gate_on(configs, "lab-r1-leaf01", "no_aggregate") == [
        "summary 10.0.0.4/30 is not announced (not in the BGP table)",
        "10.0.0.4/31 leaks past summary 10.0.0.4/30 (not suppressed)",
        "10.0.0.6/31 leaks past summary 10.0.0.4/30 (not suppressed)"]


def test_real_spine_names_the_summary_a_leaf_stopped_sending(configs):
    assert gate_on(configs, "lab-spine01", "leaf_without_aggregate") == [
        "10.16.0.5 (lab-r1-leaf01 Ethernet16) sent 3 prefixes, the plan needs at least 2; missing 10.0.0.4/30"]


def test_real_session_down_is_named_and_other_neighbours_still_checked(configs):
    assert gate_on(configs, "lab-r1-leaf01", "spine_session_down") == [
        "session 10.16.0.4 (lab-spine01 Ethernet4) is Active"]


def test_real_summary_before_the_change_selects_the_sessions(configs):
    cfg = configs["lab-r1-leaf01"]
    # `show bgp summary json` (the role's "before" command) nests the peers under ipv4Unicast.
    text = real("lab-r1-leaf01.spine_session_down.txt")
    assert deploy_gate(text, cfg, real("lab-r1-leaf01.summary_before.txt")) == [
        "session 10.16.0.4 (lab-spine01 Ethernet4) is Active"]
    assert deploy_gate(text, cfg, "") == []          # a first bring-up requires nothing that was not up


def test_tenant_vrf_mode_announces_the_links_with_the_summary_on_purpose(configs):
    cfg = dict(configs["lab-r1-leaf01"])
    cfg["bgp"] = dict(cfg["bgp"], summary_only=False)        # structured/tenant_vrf.py
    routes = json_documents(real("lab-r1-leaf01.no_aggregate.txt"))
    routes[1]["routes"]["10.0.0.4/30"] = [path()]             # the summary announced, the /31s beside it
    text = "\n".join(json.dumps(d) for d in routes)
    before = json.dumps(json_documents(real("lab-r1-leaf01.healthy.txt"))[0])
    peers = [configs[n["peer"]] for n in cfg["bgp"]["neighbors"]]
    assert deploy_gate(text, cfg, before, "auto", peers) == []
    assert deploy_gate(text, configs["lab-r1-leaf01"], before, "auto", peers) == [
        "10.0.0.4/31 leaks past summary 10.0.0.4/30 (not suppressed)",
        "10.0.0.6/31 leaks past summary 10.0.0.4/30 (not suppressed)"]
