"""A two-plane fabric as a virtual twin (inventories/planes-lab renamed to cluster ``mpt``): 4 servers whose NICs
run as 2 x 400G, port 0 in plane 1 and port 1 in plane 2, each plane 4 leaves and 2 spines of its own.

Clean, it validates with no FAIL, planes checked not to touch. A dead spine of plane 1 (every port down) and then
the whole of plane 1 leave every GPU pair reachable over plane 2; validation names what is down (plane_health, the
BGP sessions and links of the switches concerned). One bring-up for the whole file; each fault is undone and the
twin converged again before the next. Root only (network namespaces, FRR, lldpd); run it under
``flock /tmp/gpufabric-twin.lock``, as every twin test, since /run/gpufabric-sonic/bin is machine-wide.
"""
import os
import subprocess
import sys
import time

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

from gpufabric import twin as twin_lib  # noqa: E402
from gpufabric.build import render_all  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402
from gpufabric.twin import NetnsTransport, twin_lldp_socket  # noqa: E402
from gpufabric.validate.runner import command_collector, validate  # noqa: E402

CLUSTER = "mpt"
REASON = twin_lib.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="the twin needs root, FRR and lldpd (%s)" % REASON)
CHECKS = ("cabling", "link_state", "bgp_sessions", "rail_reachability", "plane_isolation", "plane_health")


def sh(*argv):
    subprocess.run(argv, check=True, capture_output=True, text=True)


@pytest.fixture(scope="module")
def twin():
    with open(os.path.join(ROOT, "inventories", "planes-lab", "planes-lab.topology.yml")) as f:
        spec = {k: v for k, v in yaml.safe_load(f).items() if k != "plugin"}
    spec["cluster"]["name"] = CLUSTER
    plan = build_plan(spec)
    desired = twin_lib.build_twin(plan, render_all(plan))
    twin_lib.up(desired, timeout=180)
    handle = {"plan": plan, "desired": desired,
              "transport": NetnsTransport(lambda host: twin_lldp_socket(CLUSTER, host))}
    try:
        # Sessions come up before every ECMP path is installed and LLDP learns every port: wait (bounded).
        got = until(handle, lambda f: not f, timeout=90)
        handle["clean"] = got
        yield handle
    finally:
        twin_lib.down(CLUSTER)


def run(twin, include=CHECKS):
    return validate(twin["plan"], command_collector(lambda host: twin["transport"]), include=list(include))


def failing(report):
    return {(r.device, r.check, r.object): r.message for r in report["results"] if r.status in ("FAIL", "ERROR")}


def until(twin, predicate, timeout=60, include=CHECKS):
    """Validate until ``predicate(failures)`` holds or ``timeout`` s pass; the last failures either way."""
    deadline = time.monotonic() + timeout
    while True:
        got = failing(run(twin, include))
        if predicate(got) or time.monotonic() > deadline:
            return got
        time.sleep(1)


def ports(ns):
    """The front-panel ports of a twin switch's namespace (Ethernet*), as `ip` lists them."""
    out = subprocess.run(["ip", "-n", ns, "-o", "link", "show"], check=True, capture_output=True, text=True).stdout
    return sorted(line.split(":")[1].strip().split("@")[0] for line in out.splitlines()
                  if line.split(":")[1].strip().startswith("Ethernet"))


class ports_down:
    """Every front-panel port of ``switches`` down (a dead switch, as its neighbours see it), then up again."""

    def __init__(self, switches):
        self.switches = {ns: ports(ns) for ns in switches}

    def __enter__(self):
        for ns, names in self.switches.items():
            for name in names:
                sh("ip", "-n", ns, "link", "set", name, "down")

    def __exit__(self, *_exc):
        for ns, names in self.switches.items():
            for name in names:
                sh("ip", "-n", ns, "link", "set", name, "up")


def settle(twin):
    twin_lib.wait_converged(twin["desired"], 120)
    assert until(twin, lambda f: not f, timeout=90) == {}


def plane_switches(plan, plane):
    return [d.name for d in plan.devices if d.fabric_plane == plane]


def plane2_reach(report):
    """The rail_reachability results of plane-2 probes: (passed, all)."""
    rows = [r for r in report["results"] if r.check == "rail_reachability" and r.object.endswith("plane 2")
            and " plane 2 -> " in r.object]
    return sum(r.status == "PASS" for r in rows), len(rows)


def test_clean_two_plane_twin_validates_with_no_fail(twin):
    assert twin["clean"] == {}
    report = validate(twin["plan"], command_collector(lambda host: twin["transport"]))
    assert report["counts"]["FAIL"] == 0 and report["counts"]["ERROR"] == 0, failing(report)
    checks = {(r.check, r.status) for r in report["results"]}
    assert ("plane_isolation", "PASS") in checks and ("plane_health", "PASS") in checks
    # every probe between the planes stays unanswered: the planes do not touch
    across = [r for r in report["results"] if r.check == "rail_reachability" and "plane 1 -> " in r.object
              and r.object.endswith("plane 2")]
    assert across and all(r.status == "PASS" and "unreachable, as planned" in r.message for r in across)


def test_a_dead_spine_of_one_plane_is_named_and_every_pair_still_reaches(twin):
    plan = twin["plan"]
    spine = "%s-p1-spine01" % CLUSTER
    with ports_down([spine]):
        got = until(twin, lambda f: (("plane 1", "plane_health", "switches") in f
                                     and not any(k[1] == "rail_reachability" for k in f)), timeout=90)
        assert "down: %s" % spine in got[("plane 1", "plane_health", "switches")]
        assert ("plane 2", "plane_health", "switches") not in got
        # the other spine of plane 1 carries it: no reach probe fails, no server loses a GPU pair
        assert not [k for k in got if k[1] in ("rail_reachability",) or k[2] == "pairs"]
        assert {k[0] for k in got if k[1] == "bgp_sessions"} >= {spine}
        assert {k[0] for k in got if k[1] == "bgp_sessions"} <= set(plane_switches(plan, 0))
    settle(twin)


def test_a_whole_plane_down_leaves_every_gpu_pair_reachable_over_the_other(twin):
    plan = twin["plan"]
    plane1 = plane_switches(plan, 0)
    with ports_down(plane1):
        got = until(twin, lambda f: ("plane 1", "plane_health", "switches") in f and all(
            ("plane 1 -> " in k[2]) for k in f if k[1] == "rail_reachability"), timeout=90)
        down = got[("plane 1", "plane_health", "switches")]
        assert all(name in down for name in plane1), down
        # every failing reach probe is a plane-1 one; every server still reaches every probed GPU over plane 2
        reach = [k for k in got if k[1] == "rail_reachability"]
        assert reach and all(" plane 1 -> " in k[2] for k in reach)
        assert not [k for k in got if k[2] == "pairs"]
        assert ("plane 2", "plane_health", "switches") not in got
        report = run(twin)
        passed, probes = plane2_reach(report)
        assert probes and passed == probes
        assert {r.device for r in report["results"] if r.check == "plane_health" and r.object == "pairs"
                and r.status == "PASS"} == {d.name for d in plan.servers}
    settle(twin)
