"""Traffic through a spine change on the lab twin, with and without the drain (issue 15, docs/operations.md).

A flow of ICMP echoes at 20 per second on every rail between servers of different scalable units
(twin/traffic.py) runs while lab-spine01 gets a change that resets every one of its BGP sessions: a new
router-id (FRR's bgpd sends each peer a NOTIFICATION, Cease / configuration change, and the sessions start
again; a cosmetic change resets nothing since frr-reload applies only the lines that differ). Four runs,
alternating the router-id between the build's and another one:
  1. frr-reload of the changed frr.conf, not drained;
  2. drain.yml, frr-reload of the changed frr.conf, undrain.yml;
  3. deploy.yml --limit lab-spine01 back to the build, not drained (-e sonic_deploy_drain=false), applied as
     SONiC's `config reload` would (sonic_deploy_frr_reload_command): the spine stops forwarding for
     DATAPLANE_OUTAGE_S seconds, then its bgpd restarts;
  4. the same deploy drained first (the default).
Each run prints what the flow sent and lost. The drained runs must lose at most DRAINED_LOSS_MAX echoes each; the
deploy not drained must lose at least one second of some pair's echoes, or the test has shown nothing.

Needs root, FRR and lldpd; skipped otherwise. Slow: about 2.5 minutes on 2 cores (five playbook runs).
"""
import json
import os
import re
import subprocess
import sys
import time

import pytest

from gpufabric import build, plan as planning, specfile, twin
from gpufabric.twin import daemons
from gpufabric.twin.run import run_many
from gpufabric.twin.traffic import cross_su_pairs, loss_flow

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
SPINE = "lab-spine01"
RATE = 20
# An address no switch of the lab uses (TEST-NET-1, RFC 5737): a router-id only has to be unique.
OTHER_ROUTER_ID = "192.0.2.1"
# Echoes a drained run may lose, of 8 pairs x 20/s x the run's length: the drain keeps the flow off the spine.
DRAINED_LOSS_MAX = 1
# Seconds the spine forwards nothing before its bgpd restarts, as when SONiC's `config reload` restarts swss and
# syncd: the data plane goes before the peers hear anything. The twin's kernel reroutes the instant a session
# closes, so a bare bgpd restart loses 0 to 3 echoes (measured); this outage is what a drain protects against.
DATAPLANE_OUTAGE_S = 2
# deploy's apply step as such a restart of the spine with the installed frr.conf (inside the twin's netns
# connection /etc/frr and /run/frr are the spine's pathspace and sysctl is the spine's): forwarding off,
# SIGTERM bgpd, wait for it to exit, start it, load, forwarding on.
RESTART_BGPD = ("/bin/sh -c 'sysctl -qw net.ipv4.ip_forward=0; sleep %d; pid=$(cat /run/frr/bgpd.pid); kill $pid; "
                "while kill -0 $pid 2>/dev/null; do sleep 0.1; done; /usr/lib/frr/bgpd -d -P 0 && vtysh -b; "
                "rc=$?; sysctl -qw net.ipv4.ip_forward=1; exit $rc'" % DATAPLANE_OUTAGE_S)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    rendered = build.render_all(plan)
    wanted = twin.build_twin(plan, rendered)
    twin.down(wanted.cluster, wanted.namespaces)
    # Switches seeded from the build (not factory state): this file needs a running fabric, and a first
    # deploy of every switch would cost minutes; tests/twin/test_deploy_twin.py deploys from factory state.
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


def dropped(plan):
    """Sessions toward the spine its neighbours have dropped so far, all together (counted on the neighbours,
    as a restarted bgpd starts its own counters again)."""
    toward = [(link.b.name, link.end(link.b).peer_ipv4) for link in plan.links
              if link.tier == "leaf-spine" and link.a.name == SPINE]
    procs = run_many([(["vtysh", "-N", leaf, "-c", "show bgp neighbors %s json" % peer], None) for leaf, peer in toward])
    return sum(json.loads(proc.stdout).get(peer, {}).get("connectionsDropped", 0)
               for (_leaf, peer), proc in zip(toward, procs))


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
    for _step in ("install", "after the reload"):
        # FRR 8.4's frr-reload with --pathspace ends with `write`, as it compares the file with
        # <confdir>/frr.conf without the pathspace: put the text back, as deploy.yml leaves it.
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.rename(path + ".tmp", path)
        if _step == "install":
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


def reset_by(plan, action):
    """Run ``action``; assert it reset every BGP session of the spine (the change is disruptive)."""
    before = dropped(plan)
    result = action()
    assert dropped(plan) >= before + 16, "the change did not reset the spine's 16 sessions"
    return result


def test_spine_change_loses_nothing_drained_and_some_undrained(lab):
    plan, build_text = lab["plan"], lab["frr_conf"]
    assert installed(SPINE) == build_text
    other = with_router_id(build_text, OTHER_ROUTER_ID)
    runs = {}

    runs["frr-reload, not drained"] = under_flow(plan, lambda: reset_by(plan, lambda: reload_with(lab, other)))
    reload_with(lab, build_text)    # back, outside the flow: the next run changes it again, drained

    def drain_reload_undrain():
        playbook(lab, "drain.yml", "-e", "switch=" + SPINE)
        drained_text = installed(SPINE)          # drain.yml wrote the build's drained form
        assert "GPUFABRIC_DRAIN" in drained_text
        reset_by(plan, lambda: reload_with(lab, with_router_id(drained_text, OTHER_ROUTER_ID)))
        playbook(lab, "undrain.yml", "-e", "switch=" + SPINE)
    runs["drain.yml, frr-reload, undrain.yml"] = under_flow(plan, drain_reload_undrain)
    # undrain.yml leaves the drained frr.conf alone, as it is not the build's (it says so): put there the text
    # that runs now, undrained with the other router-id, for deploy.yml to change back.
    with open(os.path.join(daemons.frr_dir(SPINE), "frr.conf"), "w") as f:
        f.write(other)

    restart = json.dumps({"sonic_deploy_frr_reload_command": RESTART_BGPD})
    runs["deploy.yml restart, not drained"] = under_flow(plan, lambda: reset_by(plan, lambda: playbook(
        lab, "deploy.yml", "--limit", SPINE, "-e", restart, "-e", "sonic_deploy_drain=false")))
    assert installed(SPINE) == build_text
    reload_with(lab, other)         # the change for the last run, outside the flow

    out = under_flow(plan, lambda: reset_by(plan, lambda: playbook(lab, "deploy.yml", "--limit", SPINE, "-e", restart)))
    runs["deploy.yml restart, drained"] = out
    assert "Drain before the change" in out[2] and "Undrain after the change is verified" in out[2]
    assert installed(SPINE) == build_text
    # A second deploy finds nothing to change, so drains nothing.
    assert re.search(r"\n%s\s*: ok=\d+\s+changed=0 " % SPINE, playbook(lab, "deploy.yml", "--limit", SPINE))

    print("\n%s router-id change, %d rail pairs x %d echoes/s between scalable units:"
          % (SPINE, len(cross_su_pairs(plan)), RATE))
    for name, (flow, seconds, _out) in runs.items():
        print("  %-36s lost %3d of %5d in %5.1f s" % (name, flow.lost, flow.sent, seconds))
        if flow.lost:
            print("    " + flow.report().replace("\n", "\n    "))
    drained = [flow for name, (flow, _s, _o) in runs.items() if ", drained" in name or name.startswith("drain.yml")]
    undrained = [flow for name, (flow, _s, _o) in runs.items() if "not drained" in name]
    assert len(drained) == len(undrained) == 2
    assert all(flow.sent > 8 * RATE * 5 for flow, _s, _o in runs.values())
    assert all(flow.lost <= DRAINED_LOSS_MAX for flow in drained)
    assert sum(flow.lost for flow in undrained) > sum(flow.lost for flow in drained)
    # The outage without a drain: the pairs the spine carried lost their echoes for its length.
    assert runs["deploy.yml restart, not drained"][0].lost >= RATE


def changed_count(out, host):
    return int(re.search(r"\n%s\s*: ok=\d+\s+changed=(\d+) " % re.escape(host), out).group(1))


def test_drain_and_undrain_run_stateless_and_a_repeat_changes_nothing(lab, tmp_path):
    """As AWX runs them: each job from a build directory that does not exist yet (issue 29). The drain state lives
    on the switch (its running config and frr.conf), so a repeated drain or undrain finds it done."""
    assert installed(SPINE) == lab["frr_conf"]
    for step, name in enumerate(("drain.yml", "drain.yml", "undrain.yml", "undrain.yml")):
        fresh = str(tmp_path / ("job%d" % step))
        assert not os.path.exists(fresh)
        out = playbook(lab, name, "-e", "switch=" + SPINE, "-e", "build_dir=" + fresh,
                       "-e", "traffic_shift_build_dir=" + fresh)
        first = step % 2 == 0
        assert (changed_count(out, SPINE) > 0) == first, "%s, %s run:\n%s" % (name, "first" if first else "second",
                                                                              out[-3000:])
        assert ("GPUFABRIC_DRAIN" in installed(SPINE)) == (name == "drain.yml")
    assert installed(SPINE) == lab["frr_conf"]
