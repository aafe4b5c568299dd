"""The lab's virtual twin, end to end: one twin for the module, always torn down.

Needs root, FRR and lldpd (`make setup`); skipped with the reason otherwise. About 30 s.
"""
import os
import time

import pytest

from gpufabric import build, plan as planning, specfile, twin
from gpufabric.twin import kernel, network

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
BEFORE = {}


@pytest.fixture(scope="module")
def lab():
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    BEFORE["neigh"] = kernel.current()
    # Switches seeded from the build (not factory state): this file needs a running fabric, and a first
    # deploy of every switch would cost minutes; tests/twin/test_deploy_twin.py deploys from factory state.
    report = twin.up(wanted, timeout=60)
    yield plan, wanted, report
    twin.down(wanted.cluster, wanted.namespaces)


def failed(report, check=None):
    return [r for r in report["results"] if r.status in ("FAIL", "ERROR") and (check is None or r.check == check)]


def verified(plan, check=None, settle_s=0):
    """The validation runner over the twin; retried up to ``settle_s`` while results still fail
    (lldpd's first frames may still be in flight)."""
    deadline = time.monotonic() + settle_s
    report = twin.verify(plan)
    while failed(report, check) and time.monotonic() < deadline:
        time.sleep(1)
        report = twin.verify(plan)
    return report


def test_lab_up_and_converged_within_60_s(lab):
    _plan, wanted, report = lab
    assert report["changed"]
    assert report["namespaces"] == len(wanted.namespaces) == 27
    assert report["seconds"] <= 60, report


def test_the_twin_passes_every_check_of_the_validation(lab):
    plan = lab[0]
    report = verified(plan, settle_s=20)
    assert failed(report) == []
    passed = {}
    for r in report["results"]:
        if r.status == "PASS":
            passed[r.check] = passed.get(r.check, 0) + 1
    routed = sum(1 for link in plan.links if link.ipv4 is not None and link.tier != "server")
    leaves = len(plan.by_role("backend_leaf"))
    servers, rails = plan.summary["servers"], plan.summary["rails"]
    assert passed["bgp_sessions"] == 2 * routed
    assert passed["ecmp_width"] == leaves              # one result per leaf, over every remote summary
    assert passed["rail_reachability"] == servers * (servers - 1) * rails
    assert passed["path_mtu"] == servers * rails             # a 9000-byte echo, DF, from every rail NIC
    assert passed["cabling"] >= 2 * sum(1 for link in plan.links if link.network == "backend")


def test_neighbour_tables_hold_the_twin_while_it_runs(lab):
    wanted = kernel.wanted(2 * len(lab[1].veths))
    now = kernel.current()
    assert all(now["%s/%d" % (fam, i)] >= wanted[i] for fam in kernel.FAMILIES for i in (1, 2, 3))


def test_second_apply_changes_nothing(lab):
    report = twin.up(lab[1], timeout=30)
    assert report["changed"] is False, report["changes"]
    assert report["changes"] == []


def test_checks_fail_on_a_broken_cable_and_apply_repairs_it(lab):
    plan, wanted, _report = lab
    network.run(["ip", "-n", "lab-gpu0002", "addr", "flush", "dev", "ens3np0"])
    broken = failed(twin.verify(plan), "rail_reachability")
    assert broken and all("rail 2" in r.object for r in broken)
    assert any(r.object.startswith("lab-gpu0002 rail 2 ") for r in broken)
    report = twin.up(wanted, timeout=30)
    assert "lab-gpu0002: ens3np0 address 10.0.0.11/31" in report["changes"]
    assert failed(twin.verify(plan), "rail_reachability") == []


def test_teardown_leaves_nothing(lab):
    _plan, wanted, _report = lab
    report = twin.down(wanted.cluster, wanted.namespaces)
    assert report["changed"]
    assert twin.leftovers(wanted.cluster, wanted.namespaces) == []
    if not os.path.isdir(twin.STATE_ROOT):     # no other twin on the machine: the kernel is as before
        assert kernel.current() == BEFORE["neigh"]
    assert twin.down(wanted.cluster, wanted.namespaces)["changed"] is False
