"""The lab's virtual twin, end to end: one twin for the module, always torn down.

Needs root, FRR and lldpd (`make setup`); skipped with the reason otherwise. About 30 s.
"""
import os
import time

import pytest

from gpufabric import build, plan as planning, specfile, twin
from gpufabric.twin import checks, network

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)


@pytest.fixture(scope="module")
def lab():
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    report = twin.up(wanted, timeout=60)
    yield plan, wanted, report
    twin.down(wanted.cluster, wanted.namespaces)


def failed(results, check=None):
    return [r for r in checks.failures(results) if check is None or r["check"] == check]


def test_lab_up_and_converged_within_60_s(lab):
    _plan, wanted, report = lab
    assert report["changed"]
    assert report["namespaces"] == len(wanted.namespaces) == 27
    assert report["seconds"] <= 60, report


def test_every_planned_bgp_session_is_established(lab):
    plan = lab[0]
    results = checks.check_bgp(plan)
    assert len(results) == 2 * sum(1 for link in plan.links if link.ipv4 is not None and link.tier != "server")
    assert failed(results) == []


def test_ecmp_toward_every_remote_leaf_summary_has_the_planned_width(lab):
    plan = lab[0]
    results = checks.check_ecmp(plan)
    leaves = len(plan.by_role("backend_leaf"))
    assert len(results) == leaves * (leaves - 1)
    assert failed(results) == []


def test_every_server_reaches_every_other_server_on_every_rail(lab):
    plan = lab[0]
    results = checks.check_reachability(plan)
    servers, rails = plan.summary["servers"], plan.summary["rails"]
    assert len(results) == servers * (servers - 1) * rails
    assert failed(results) == []


def test_lldp_neighbours_match_the_plan(lab):
    plan, wanted, _report = lab
    results = checks.check_lldp(plan, wanted.cluster)
    assert len(results) == 2 * sum(1 for link in plan.links if link.network in ("backend", "frontend"))
    deadline = time.monotonic() + 20
    while failed(results) and time.monotonic() < deadline:   # lldpd's first frames may still be in flight
        time.sleep(1)
        results = checks.check_lldp(plan, wanted.cluster)
    assert failed(results) == []


def test_second_apply_changes_nothing(lab):
    report = twin.up(lab[1], timeout=30)
    assert report["changed"] is False, report["changes"]
    assert report["changes"] == []


def test_checks_fail_on_a_broken_cable_and_apply_repairs_it(lab):
    plan, wanted, _report = lab
    network.run(["ip", "-n", "lab-gpu0002", "addr", "flush", "dev", "ens3np0"])
    broken = failed(checks.check_reachability(plan, timeout=1.0))
    assert broken and all("rail 2" in r["object"] for r in broken)
    assert any(r["object"].startswith("lab-gpu0002 rail 2 ") for r in broken)
    report = twin.up(wanted, timeout=30)
    assert "lab-gpu0002: ens3np0 address 10.0.0.11/31" in report["changes"]
    assert failed(checks.check_reachability(plan)) == []


def test_teardown_leaves_nothing(lab):
    _plan, wanted, _report = lab
    report = twin.down(wanted.cluster, wanted.namespaces)
    assert report["changed"]
    assert twin.leftovers(wanted.cluster, wanted.namespaces) == []
    assert twin.down(wanted.cluster, wanted.namespaces)["changed"] is False
