"""Traffic through a spine change on the lab twin, with and without the drain (issue 15, docs/operations.md).

A flow of ICMP echoes at 20 per second on every rail between two servers of different scalable units runs
while lab-spine01 gets a change that resets all of its BGP sessions: its router-id changes (FRR's bgpd sends
every peer a NOTIFICATION, Cease / configuration change, and the sessions start again; a cosmetic change no
longer resets anything since frr-reload applies only the lines that differ). Four runs, alternating the
router-id between the build's and another one:
  1. frr-reload of the changed frr.conf, no drain;
  2. deploy.yml --limit lab-spine01 (back to the build's router-id), which drains first (the default);
  3. drain.yml, frr-reload of the changed frr.conf, undrain.yml;
  4. deploy.yml --limit lab-spine01 -e sonic_deploy_drain=false.
Each run prints what the flow sent and lost (twin/traffic.py). The drained runs (2, 3) must lose at most DRAINED_LOSS_MAX echoes;
the undrained ones (1, 4) must lose more than the drained ones together, or the test has shown nothing.

Needs root, FRR and lldpd; skipped otherwise. Slow: about 3 minutes on 2 cores (four playbook runs).
"""
import json
import os
import subprocess
import sys
import time

import pytest

from gpufabric import build, plan as planning, specfile, twin
from gpufabric.twin import daemons
from gpufabric.twin.traffic import cross_su_pairs, loss_flow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
SPINE = "lab-spine01"
RATE = 20
# An address no switch of the lab uses (TEST-NET-1, RFC 5737): a router-id only has to be unique.
OTHER_ROUTER_ID = "192.0.2.1"
# Echoes a drained run may lose, of about 8 rails x 20/s x the run's length.
DRAINED_LOSS_MAX = 2


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    rendered = build.render_all(plan)
    wanted = twin.build_twin(plan, rendered)
    twin.down(wanted.cluster, wanted.namespaces)
    twin.up(wanted, timeout=60)
    yield {"plan": plan, "twin": wanted, "frr_conf": wanted.namespaces[SPINE].frr_conf,
           "build_dir": str(tmp_path_factory.mktemp("build"))}
    twin.down(wanted.cluster, wanted.namespaces)


def under_flow(plan, action):
    """Run ``action`` under the cross-SU flow (twin/traffic.py: one pair per rail, rail r to rail r+1 between
    servers of different scalable units, RATE echoes per second each); returns (flow, seconds, its result)."""
    started = time.monotonic()
    with loss_flow(cross_su_pairs(plan), rate=RATE) as flow:
        result = action()
        time.sleep(1)          # echoes sent just before the end of the action get their answer counted
    return flow, round(time.monotonic() - started, 1), result


def dropped(ns):
    """Connections the switch's BGP sessions have dropped so far, all peers together."""
    out = subprocess.run(["vtysh", "-N", ns, "-c", "show bgp neighbors json"], capture_output=True, text=True,
                         check=True).stdout
    return sum(peer.get("connectionsDropped", 0) for peer in json.loads(out).values())


def with_router_id(text, router_id):
    lines = [" bgp router-id %s" % router_id if line.startswith(" bgp router-id ") else line
             for line in text.splitlines()]
    assert lines != text.splitlines()
    return "\n".join(lines) + "\n"


def installed(ns):
    with open(os.path.join(daemons.frr_dir(ns), "frr.conf")) as f:
        return f.read()


def reload_with(lab, text):
    """Install ``text`` as the spine's frr.conf and apply it with frr-reload, then wait until the fabric has
    converged again (every session Established, prefixes steady)."""
    path = os.path.join(daemons.frr_dir(SPINE), "frr.conf")
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)
    daemons.frr_reload([SPINE])
    time.sleep(2)      # the NOTIFICATIONs go out at once; let the sessions drop before waiting for them
    twin.wait_converged(lab["twin"], timeout=60)


def playbook(lab, name, *extra):
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                           os.path.join(ROOT, "inventories", "lab-twin"), os.path.join(ROOT, "playbooks", name),
                           "-e", "build_dir=" + lab["build_dir"], "-e", "traffic_shift_build_dir=" + lab["build_dir"]]
                          + list(extra), cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    return proc.stdout


def reset_by(action):
    """Run ``action``; assert it reset every BGP session of the spine (the change is disruptive)."""
    before = dropped(SPINE)
    result = action()
    assert dropped(SPINE) >= before + 16, "the change did not reset the spine's 16 sessions"
    return result


def test_spine_change_loses_nothing_drained_and_some_undrained(lab):
    plan, build_text = lab["plan"], lab["frr_conf"]
    assert installed(SPINE) == build_text
    other = with_router_id(build_text, OTHER_ROUTER_ID)
    runs = {}

    runs["reload, not drained"] = under_flow(plan, lambda: reset_by(lambda: reload_with(lab, other)))

    out = under_flow(plan, lambda: reset_by(lambda: playbook(lab, "deploy.yml", "--limit", SPINE)))
    runs["deploy.yml, drained (default)"] = out
    assert "Drain before the change" in out[2] and "Undrain after the change is verified" in out[2]
    assert installed(SPINE) == build_text

    def drain_reload_undrain():
        playbook(lab, "drain.yml", "-e", "switch=" + SPINE)
        drained_text = installed(SPINE)          # drain.yml wrote the build's drained form
        assert "GPUFABRIC_DRAIN" in drained_text
        reset_by(lambda: reload_with(lab, with_router_id(drained_text, OTHER_ROUTER_ID)))
        playbook(lab, "undrain.yml", "-e", "switch=" + SPINE)
    runs["drain.yml, reload, undrain.yml"] = under_flow(plan, drain_reload_undrain)
    # undrain.yml leaves an frr.conf that is not the build alone (it says so): put the undrained text with the
    # other router-id there, which is what runs now, for the last run to change back.
    with open(os.path.join(daemons.frr_dir(SPINE), "frr.conf"), "w") as f:
        f.write(other)

    runs["deploy.yml, not drained"] = under_flow(
        plan, lambda: reset_by(lambda: playbook(lab, "deploy.yml", "--limit", SPINE, "-e", "sonic_deploy_drain=false")))
    assert installed(SPINE) == build_text

    print("\n%s router-id change, %d rail pairs x %d echoes/s between scalable units:"
          % (SPINE, len(cross_su_pairs(plan)), RATE))
    for name, (flow, seconds, _out) in runs.items():
        print("  %-32s lost %3d of %5d in %5.1f s" % (name, flow.lost, flow.sent, seconds))
        if flow.lost:
            print("    " + flow.report().replace("\n", "\n    "))
    drained = [runs["deploy.yml, drained (default)"][0], runs["drain.yml, reload, undrain.yml"][0]]
    undrained = [runs["reload, not drained"][0], runs["deploy.yml, not drained"][0]]
    assert all(flow.sent > 8 * RATE * 5 for flow, _s, _o in runs.values())
    assert all(flow.lost <= DRAINED_LOSS_MAX for flow in drained)
    assert sum(flow.lost for flow in undrained) > sum(flow.lost for flow in drained)
