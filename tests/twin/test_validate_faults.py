"""Fault injection on the virtual twin: each fault is detected with the right device and port; a clean twin
gives zero failures. Root only (network namespaces, FRR, lldpd). Validation reads each switch as a real one: a
QoS fault is written into a SONiC switch's live CONFIG_DB (its redis), never into the build, and a switch whose
CONFIG_DB cannot be read is no QoS pass.

The twin here is the lab plan renamed to cluster ``vt`` (hosts vt-gpu0001, vt-r3-leaf01, ...) so it never
collides with a lab twin another test or a person has up. Each test injects one fault, validates, and
undoes it before the next.
"""
import json
import os
import subprocess
import sys
import time

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

from gpufabric.build import render_all  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402
from gpufabric.validate.runner import command_collector, validate  # noqa: E402
from gpufabric.twin import NetnsTransport, twin_lldp_socket  # noqa: E402

CLUSTER = "vt"

TWIN_IMPORT_ERROR = None
try:
    from gpufabric import twin as twin_lib
except ImportError as exc:   # the twin (issue 4) is not in this tree
    twin_lib = None
    TWIN_IMPORT_ERROR = str(exc)

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or twin_lib is None or twin_lib.preflight() is not None,
                                reason="the twin needs root, FRR and lldpd (%s)"
                                % (twin_lib.preflight() if twin_lib else TWIN_IMPORT_ERROR))


def sh(*argv):
    subprocess.run(argv, check=True, capture_output=True, text=True)


def vtysh(ns, *lines):
    sh("vtysh", "-N", ns, "-c", "configure terminal", *sum((["-c", line] for line in lines), []))


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    with open(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")) as f:
        spec = {k: v for k, v in yaml.safe_load(f).items() if k != "plugin"}
    spec["cluster"]["name"] = CLUSTER
    plan = build_plan(spec)
    files = render_all(plan)
    build = tmp_path_factory.mktemp("build")
    for rel, text in files.items():
        if rel.endswith("config_db.json"):
            path = build / CLUSTER / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    desired = twin_lib.build_twin(plan, files)
    twin_lib.up(desired, timeout=180)
    spec_path = build / "vt.topology.yml"
    spec_path.write_text(yaml.safe_dump(spec))
    transport = NetnsTransport(lambda host: twin_lldp_socket(CLUSTER, host))
    handle = {"plan": plan, "desired": desired, "build": build, "spec": spec_path, "transport": transport}
    # Sessions are Established before every ECMP path is installed: wait for routing to settle.
    until(handle, lambda f: not f, timeout=60)
    yield handle
    twin_lib.down(CLUSTER)


def run(twin, **kw):
    return validate(twin["plan"], command_collector(lambda host: twin["transport"]), **kw)


def failing(report):
    return {(r.device, r.check, r.object): r.message for r in report["results"] if r.status in ("FAIL", "ERROR")}


def until(twin, predicate, timeout=40, **kw):
    """Validate until ``predicate(failures)`` holds (LLDP and BGP need a few seconds to notice a change)."""
    deadline = time.monotonic() + timeout
    while True:
        got = failing(run(twin, **kw))
        if predicate(got) or time.monotonic() > deadline:
            return got
        time.sleep(1)


def settle(twin):
    """Back to a clean twin after undoing a fault: every BGP session up, no failure left."""
    twin_lib.wait_converged(twin["desired"], 90)
    got = until(twin, lambda f: not f, timeout=60)
    assert got == {}


def test_clean_twin_has_zero_failures(twin):
    report = run(twin)
    assert failing(report) == {}
    assert report["devices"] == 22
    assert report["counts"]["PASS"] > 600


def test_two_swapped_cables_are_one_swap(twin):
    ns = "vt-r3-leaf01"
    # Swapping the names of the two veths moves each cable to the other port.
    for old, new in (("Ethernet0", "swaptmp"), ("Ethernet8", "Ethernet0"), ("swaptmp", "Ethernet8")):
        sh("ip", "-n", ns, "link", "set", old, "down")
        sh("ip", "-n", ns, "link", "set", old, "name", new)
    sh("ip", "-n", ns, "link", "set", "Ethernet0", "up")
    sh("ip", "-n", ns, "link", "set", "Ethernet8", "up")
    try:
        got = until(twin, lambda f: (ns, "cabling", "Ethernet0<->Ethernet8") in f and len(f) == 1,
                    include=["cabling"])
        assert list(got) == [(ns, "cabling", "Ethernet0<->Ethernet8")]
        assert got[(ns, "cabling", "Ethernet0<->Ethernet8")].startswith(
            "swap: vt-r3-leaf01 Ethernet0 and Ethernet8 see each other's planned peers (vt-gpu0001 ens4np0 / vt-gpu0002 ens4np0)")
    finally:
        for old, new in (("Ethernet0", "swaptmp"), ("Ethernet8", "Ethernet0"), ("swaptmp", "Ethernet8")):
            sh("ip", "-n", ns, "link", "set", old, "down")
            sh("ip", "-n", ns, "link", "set", old, "name", new)
        sh("ip", "-n", ns, "link", "set", "Ethernet0", "up")
        sh("ip", "-n", ns, "link", "set", "Ethernet8", "up")
    settle(twin)


def test_link_down(twin):
    sh("ip", "-n", "vt-r0-leaf01", "link", "set", "Ethernet16", "down")
    try:
        got = failing(run(twin, include=["link_state", "bgp_sessions"]))
        assert "administratively down here" in got[("vt-r0-leaf01", "link_state", "Ethernet16")]
        assert "far end vt-r0-leaf01 Ethernet16 is administratively down" in got[("vt-spine01", "link_state", "Ethernet0")]
        assert {k[0] for k in got if k[1] == "link_state"} == {"vt-r0-leaf01", "vt-spine01"}
    finally:
        sh("ip", "-n", "vt-r0-leaf01", "link", "set", "Ethernet16", "up")
    settle(twin)


def test_mtu_mismatch(twin):
    sh("ip", "-n", "vt-r1-leaf01", "link", "set", "Ethernet16", "mtu", "1500")
    try:
        got = failing(run(twin, include=["mtu"]))
        assert got == {("vt-r1-leaf01", "mtu", "Ethernet16"):
                       "vt-r1-leaf01 Ethernet16 MTU 1500, planned 9216 (far end vt-spine01 Ethernet4 has 9216)"}
    finally:
        sh("ip", "-n", "vt-r1-leaf01", "link", "set", "Ethernet16", "mtu", "9216")
    settle(twin)


def test_bgp_neighbour_shut_down(twin):
    vtysh("vt-spine01", "router bgp 64513", "neighbor 10.16.0.1 shutdown")
    try:
        got = until(twin, lambda f: ("vt-r0-leaf01", "bgp_sessions", "10.16.0.0") in f, include=["bgp_sessions"])
        assert "is Idle (Admin), planned Established" in got[("vt-spine01", "bgp_sessions", "10.16.0.1")]
        assert "vt-spine01 has neighbour 10.16.0.1 shut down" in got[("vt-r0-leaf01", "bgp_sessions", "10.16.0.0")]
        assert set(got) == {("vt-spine01", "bgp_sessions", "10.16.0.1"), ("vt-r0-leaf01", "bgp_sessions", "10.16.0.0")}
    finally:
        vtysh("vt-spine01", "router bgp 64513", "no neighbor 10.16.0.1 shutdown")
    settle(twin)


def test_wrong_asn(twin):
    vtysh("vt-spine02", "router bgp 64513", "neighbor 10.16.0.3 remote-as 65000")
    try:
        got = until(twin, lambda f: ("vt-r0-leaf01", "bgp_sessions", "10.16.0.2") in f, include=["bgp_sessions"])
        assert "peer AS 65000 configured, planned AS 64514" in got[("vt-spine02", "bgp_sessions", "10.16.0.3")]
        assert "vt-spine02 expects AS 65000 for neighbour 10.16.0.3" in got[("vt-r0-leaf01", "bgp_sessions", "10.16.0.2")]
    finally:
        vtysh("vt-spine02", "router bgp 64513", "neighbor 10.16.0.3 remote-as 64514")
    settle(twin)


def configdb(host):
    """The live CONFIG_DB of twin switch ``host`` (its redis; docs/twin.md), where a fault is written as by hand."""
    from gpufabric.twin.emulators.sonic.configdb import RedisConfigDb
    return RedisConfigDb(os.path.join(twin_lib.state_dir(CLUSTER), host, "redis.sock"))


class pfc_off:
    """PFC taken off one port in the switch's live CONFIG_DB (not in the build), and put back."""

    def __init__(self, host, port):
        self.db, self.port = configdb(host), port

    def __enter__(self):
        self.row = self.db.get_config()["PORT_QOS_MAP"][self.port]
        self.db.set_entry("PORT_QOS_MAP", self.port, dict(self.row, pfc_enable=""))

    def __exit__(self, *_exc):
        self.db.set_entry("PORT_QOS_MAP", self.port, self.row)


def test_pfc_off_on_one_end(twin):
    build = (twin["build"] / CLUSTER / "devices" / "vt-r2-leaf01" / "config_db.json").read_text()
    with pfc_off("vt-r2-leaf01", "Ethernet16"):
        got = failing(run(twin, include=["qos_backend_links", "qos_nic_leaf"]))
        assert list(got) == [("vt-r2-leaf01", "qos_backend_links", "Ethernet16")]
        assert ("has PFC priorities [], planned PFC priorities [3] (link vt-spine01 Ethernet8 -- vt-r2-leaf01 Ethernet16)"
                in got[("vt-r2-leaf01", "qos_backend_links", "Ethernet16")])
    assert (twin["build"] / CLUSTER / "devices" / "vt-r2-leaf01" / "config_db.json").read_text() == build
    settle(twin)


def test_validate_playbook_names_a_qos_fault_in_live_configdb(twin):
    with pfc_off("vt-r2-leaf01", "Ethernet16"):
        proc, report = validate_playbook(twin)
    assert proc.returncode != 0, proc.stdout[-3000:]      # fail_on_failure
    got = [(r["device"], r["check"], r["object"]) for r in report["results"] if r["status"] in ("FAIL", "ERROR")]
    assert got == [("vt-r2-leaf01", "qos_backend_links", "Ethernet16")], proc.stdout[-3000:]
    settle(twin)


def test_a_leaf_whose_configdb_cannot_be_read_is_no_qos_pass(twin):
    from gpufabric.twin.emulators.sonic import redis_db
    leaf = "vt-r0-leaf01"
    served = {e.port for e in twin["plan"].device(leaf).ends() if e.peer.role == "gpu_server"}
    assert redis_db.stop([os.path.join(twin_lib.state_dir(CLUSTER), leaf)])
    try:
        results = [r for r in run(twin, include=["qos_nic_leaf", "qos_backend_links"])["results"]
                   if r.device == leaf or leaf in r.message]
    finally:
        twin_lib.up(twin["desired"], timeout=90)      # redis again, CONFIG_DB from /etc/sonic/<leaf>/config_db.json
    assert results and not [r for r in results if r.status == "PASS"]
    errors = {(r.check, r.object) for r in results if r.device == leaf and r.status == "ERROR"}
    assert {port for check, port in errors if check == "qos_nic_leaf"} == served
    settle(twin)


def test_server_nic_wrong_address(twin):
    sh("ip", "-n", "vt-gpu0003", "addr", "replace", "10.0.0.99/31", "dev", "ens2np0")
    sh("ip", "-n", "vt-gpu0003", "addr", "del", "10.0.0.37/31", "dev", "ens2np0")
    try:
        got = failing(run(twin, include=["server_addressing", "server_policy_routing"]))
        assert got[("vt-gpu0003", "server_addressing", "ens2np0")] == (
            "vt-gpu0003 ens2np0 (rail 1) has 10.0.0.99/31, planned 10.0.0.37/31 (leaf vt-r1-leaf02 Ethernet0): fix the address")
        assert {k[0] for k in got} == {"vt-gpu0003"}
    finally:
        sh("ip", "-n", "vt-gpu0003", "addr", "del", "10.0.0.99/31", "dev", "ens2np0")
        twin_lib.up(twin["desired"], timeout=90)   # the twin restores the address, its routes and its rule
    settle(twin)


def validate_playbook(twin):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,",
                           os.path.join(ROOT, "playbooks", "validate.yml"), "-e", "transport=netns",
                           "-e", "spec=%s" % twin["spec"], "-e", "build_dir=%s" % twin["build"]],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    return proc, json.loads((twin["build"] / "validation" / CLUSTER / "report.json").read_text())


def test_playbook_on_clean_twin(twin):
    proc, report = validate_playbook(twin)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert report["counts"]["FAIL"] == 0 and report["counts"]["ERROR"] == 0 and report["devices"] == 22
    assert (twin["build"] / "validation" / CLUSTER / "junit.xml").exists()


# Issue 17: checks that blame the culprit. Each fault below is injected, found and undone on the same twin.

def _summary_of(twin, leaf):
    from gpufabric.validate.expect import Expectation
    return Expectation(twin["plan"]).leaf_summaries()[leaf]


def test_leaf_without_its_aggregate_is_blamed_alone(twin):
    leaf = twin["plan"].device("vt-r1-leaf01")
    summary = _summary_of(twin, leaf.name)
    vtysh(leaf.name, "router bgp %d" % leaf.asn, "address-family ipv4 unicast",
          "no aggregate-address %s summary-only" % summary)
    try:
        got = until(twin, lambda f: len(f) == 2, include=["leaf_summaries", "ecmp_width"])
        assert set(got) == {(leaf.name, "leaf_summaries", "summary " + summary),
                            (leaf.name, "leaf_summaries", "more-specifics of " + summary)}
        assert ("does not announce its server summary %s: none of the 15 leaves" % summary
                in got[(leaf.name, "leaf_summaries", "summary " + summary)])
        assert "leaks 2 routes past its summary" in got[(leaf.name, "leaf_summaries", "more-specifics of " + summary)]
    finally:
        vtysh(leaf.name, "router bgp %d" % leaf.asn, "address-family ipv4 unicast",
              "aggregate-address %s summary-only" % summary)
    settle(twin)


def test_leaked_server_links_past_an_announced_summary(twin):
    leaf = twin["plan"].device("vt-r5-leaf02")
    summary = _summary_of(twin, leaf.name)
    # The aggregate without summary-only: the summary is announced and both /31s leak with it.
    vtysh(leaf.name, "router bgp %d" % leaf.asn, "address-family ipv4 unicast",
          "aggregate-address %s" % summary)
    try:
        got = until(twin, lambda f: len(f) == 1, include=["leaf_summaries", "ecmp_width"])
        assert list(got) == [(leaf.name, "leaf_summaries", "more-specifics of " + summary)]
        assert "leaks 2 routes past its summary %s" % summary in got[list(got)[0]]
    finally:
        vtysh(leaf.name, "router bgp %d" % leaf.asn, "address-family ipv4 unicast",
              "aggregate-address %s summary-only" % summary)
    settle(twin)


def test_one_bad_uplink_fails_only_its_sessions(twin):
    leaf = twin["plan"].device("vt-r3-leaf02")
    uplink = next(e for e in leaf.bgp_ends() if e.peer.name == "vt-spine01")
    sh("ip", "-n", leaf.name, "link", "set", uplink.port, "down")
    try:
        got = until(twin, lambda f: len(f) == 2, include=["bgp_sessions", "leaf_summaries", "ecmp_width"])
        assert {(k[0], k[1]) for k in got} == {(leaf.name, "bgp_sessions"), ("vt-spine01", "bgp_sessions")}
    finally:
        sh("ip", "-n", leaf.name, "link", "set", uplink.port, "up")
    settle(twin)


def test_leaf_pfc_off_on_a_server_port_without_nic_data(twin):
    # The twin's servers have no mlnx_qos: the NIC side is unavailable, the leaf side is still compared.
    with pfc_off("vt-r0-leaf01", "Ethernet0"):
        got = failing(run(twin, include=["qos_nic_leaf"]))
        assert list(got) == [("vt-r0-leaf01", "qos_nic_leaf", "Ethernet0")]
        assert "NIC side not checked" in got[("vt-r0-leaf01", "qos_nic_leaf", "Ethernet0")]
    assert failing(run(twin, include=["qos_nic_leaf"])) == {}


def test_flaps_count_since_the_last_run(twin):
    from gpufabric.validate import report as reports
    server = twin["plan"].device("vt-gpu0002")
    nic = next(e for e in server.ends() if e.link.network == "backend")
    baseline = reports.baseline_of(run(twin, include=["interface_errors"]))
    # Flapped from the leaf's side: a server NIC taken down would lose its policy routes with it.
    for _i in range(6):
        sh("ip", "-n", nic.peer.name, "link", "set", nic.peer_port, "down")
        sh("ip", "-n", nic.peer.name, "link", "set", nic.peer_port, "up")
    first = run(twin, include=["interface_errors"], baseline=baseline)
    got = failing(first)
    assert set(got) == {(server.name, "interface_errors", nic.port), (nic.peer.name, "interface_errors", nic.peer_port)}
    assert "since the last validation" in got[(server.name, "interface_errors", nic.port)]
    # The next run counts from this one: the same counters, no new flap, no failure.
    assert failing(run(twin, include=["interface_errors"], baseline=reports.baseline_of(first, baseline))) == {}
    # Not settle(): without a baseline these counters count since boot and stay over the threshold.
    twin_lib.wait_converged(twin["desired"], 90)
