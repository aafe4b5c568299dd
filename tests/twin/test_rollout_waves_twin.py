"""Rollout waves under traffic (issue 45), one twin for the module: twin-256 with four spines above every leaf
(backend.leaf.uplinks 4) and maintenance.max_capacity_loss 0.5, so build/<cluster>/rollout.json holds the spines in
two waves of two. A flow of ICMP echoes at 20 per second on every rail between servers of different scalable units
(twin/traffic.py) runs through each deploy.yml. Each spine's change is a cosmetic frr.conf drift applied as a
restart would be (forwarding off for OUTAGE_S seconds, then frr-reload), so a spine that were not drained away from
the flow would lose its echoes: the control run shows it does.
- the waves of two spines lose nothing (a spine at a time, maintenance.max_capacity_loss 0, is the waves the
  planner gives: checked on the plan, not deployed again);
- a rollout that fails at its second wave stops there, the failed spine rolled back and drained, the other spine of
  the wave finished; run again, with no state kept, it changes only the failed spine and the waves after it, and
  nothing twice.

Every deploy is limited to the backend's spines and leaves (the OOB and frontend switches play no part in the waves
under test). Needs root, FRR and lldpd; skipped otherwise.
"""
import datetime
import json
import os
import subprocess
import sys

import pytest
import yaml

from gpufabric import build, specfile, twin
from gpufabric.day2 import rollout
from gpufabric.frr_linux import drain
from gpufabric.plan import build_plan
from gpufabric.twin import daemons
from gpufabric.twin.traffic import cross_su_pairs, loss_flow
from twin_group_vars import copy_twin_group_vars

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
COSMETIC = ("log syslog informational\n", "log syslog warnings\n")
OUTAGE_S = 2
# deploy's reload of a spine as a restart would do it (inside the netns connection sysctl is the spine's).
OUTAGE_RELOAD = ("/bin/sh -c 'sysctl -qw net.ipv4.ip_forward=0; sleep %d; frr-reload.py --reload /etc/frr/frr.conf; "
                 "rc=$?; sysctl -qw net.ipv4.ip_forward=1; exit $rc'" % OUTAGE_S)
SPINE_PLAY = "Deploy backend spines, wave by wave"


def spec_with(max_capacity_loss):
    with open(os.path.join(ROOT, "inventories", "twin-256", "twin-256.topology.yml")) as f:
        raw = yaml.safe_load(f)
    raw["backend"]["leaf"]["uplinks"] = 4
    raw["maintenance"] = {"max_capacity_loss": max_capacity_loss}
    return raw


@pytest.fixture(scope="module")
def t256(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("waves")
    inventory, build_dir = tmp / "inventory", tmp / "build"
    inventory.mkdir()
    (inventory / "t256.topology.yml").write_text(yaml.safe_dump(spec_with(0.5)))
    plan = build_plan(specfile.load_spec(str(inventory / "t256.topology.yml")))
    cluster = plan.summary["cluster"]
    copy_twin_group_vars(str(inventory), cluster)
    (inventory / "group_vars" / "backend_spine.yml").write_text(
        yaml.safe_dump({"sonic_deploy_frr_reload_command": OUTAGE_RELOAD}))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    # Switches seeded from the build (not factory state): this file needs a running fabric, and a first
    # deploy of every switch would cost minutes; tests/twin/test_deploy_twin.py deploys from factory state.
    twin.up(wanted, timeout=300)
    ctx = {"plan": plan, "twin": wanted, "inventory": inventory, "build_dir": str(build_dir)}
    try:
        yield ctx
    finally:
        twin.down(wanted.cluster, wanted.namespaces)


def spines(ctx):
    return sorted(d.name for d in ctx["plan"].by_role("backend_spine"))


def backend(ctx):
    """deploy.yml's --limit for the backend's BGP switches: the twin's OOB and frontend switches, which the waves
    under test do not touch, are left out of every run (each would cost the controller a read)."""
    return ["--limit", ",".join(sorted(d.name for role in ("backend_spine", "backend_leaf")
                                       for d in ctx["plan"].by_role(role)))]


def deploy(ctx, *args):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_STDOUT_CALLBACK="ansible.posix.json",
               ANSIBLE_DEPRECATION_WARNINGS="false")
    return subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", str(ctx["inventory"]),
                           os.path.join(ROOT, "playbooks", "deploy.yml"), "-e", "build_dir=" + ctx["build_dir"]]
                          + list(args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=1500, check=False)


def report(proc):
    out = proc.stdout
    return json.loads(out[out.index("{"):]) if "{" in out else {"plays": [], "stats": {}}


def changed(proc):
    return {h for h, s in report(proc)["stats"].items() if s.get("changed") and h != "localhost"}


def failures(proc):
    """[(host, task, message)] of every failed task result of a deploy.yml JSON report."""
    return [(host, task["task"]["name"], str(res.get("msg", ""))[:400]) for play in report(proc)["plays"]
            for task in play["tasks"] for host, res in task["hosts"].items() if res.get("failed")]


def failed(proc):
    return {h for h, s in report(proc)["stats"].items() if s.get("failures") or s.get("unreachable")}


def _seconds(duration):
    parse = datetime.datetime.fromisoformat
    return (parse(duration["end"].rstrip("Z")) - parse(duration["start"].rstrip("Z"))).total_seconds()


def spine_waves(proc):
    """[(hosts, seconds)] of each batch of the spines' play (the JSON callback has one play entry per batch)."""
    out = []
    for play in report(proc)["plays"]:
        if play["play"]["name"] == SPINE_PLAY and "end" in play["play"]["duration"]:
            hosts = sorted({h for t in play["tasks"] for h in t["hosts"]})
            out.append((hosts, _seconds(play["play"]["duration"])))
    return out


def drift(names):
    for ns in names:
        path = os.path.join(daemons.frr_dir(ns), "frr.conf")
        with open(path) as f:
            text = f.read()
        assert COSMETIC[0] in text
        with open(path, "w") as f:
            f.write(text.replace(*COSMETIC))
    daemons.frr_reload(names)


def deploy_under_flow(ctx, names, *args):
    drift(names)
    with loss_flow(cross_su_pairs(ctx["plan"])) as flow:
        proc = deploy(ctx, *args)
    return proc, flow


def test_the_rollout_holds_two_spines_a_wave():
    plan = build_plan(spec_with(0.5))
    waves = [w["members"] for w in rollout.plan_waves(plan) if w["role"] == "backend_spine"]
    assert waves == [["t256-spine01", "t256-spine02"], ["t256-spine03", "t256-spine04"]]
    one = [w["members"] for w in rollout.plan_waves(build_plan(spec_with(0.0))) if w["role"] == "backend_spine"]
    assert one == [["t256-spine01"], ["t256-spine02"], ["t256-spine03"], ["t256-spine04"]]


def test_waves_of_two_spines_lose_nothing_and_an_undrained_spine_does(t256):
    names = spines(t256)
    proc, flow = deploy_under_flow(t256, names, *backend(t256))
    assert proc.returncode == 0, proc.stdout[-3000:]
    waves = spine_waves(proc)
    print("waves of two: %s; %d echoes sent, %d lost\n%s" % (
        ", ".join("%s %.1f s" % ("+".join(h), s) for h, s in waves), flow.sent, flow.lost, flow.report()))
    assert changed(proc) == set(names)
    assert flow.sent > 8 * 100 and flow.lost == 0
    assert [h for h, _s in waves] == [names[:2], names[2:]]
    # The control: the same change to one spine, not drained, does lose echoes, so the runs above showed something.
    proc, flow = deploy_under_flow(t256, names[:1], "--limit", names[0], "-e", "sonic_deploy_drain=false")
    print("control, %s not drained: %d sent, %d lost" % (names[0], flow.sent, flow.lost))
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert flow.lost > 0


def test_a_rollout_failing_at_a_wave_stops_there_and_a_run_again_goes_on_from_it(t256):
    names = spines(t256)
    leaves = sorted(d.name for d in t256["plan"].by_role("backend_leaf"))[:2]
    host_vars = t256["inventory"] / "host_vars"
    host_vars.mkdir(exist_ok=True)
    (host_vars / (names[2] + ".yml")).write_text(yaml.safe_dump({"sonic_deploy_frr_reload_command": "/bin/false"}))
    drift(names + leaves)
    first = deploy(t256, *backend(t256))
    print("first run: changed %s, failed %s\n%s" % (sorted(changed(first)), sorted(failed(first)),
                                                    "\n".join("%s: %s: %s" % f for f in failures(first))))
    assert first.returncode != 0
    # The failed spine, and its wave's other spine stopped after it finished; the leaves' waves never started.
    assert failed(first) == set(names[2:])
    assert "the rollout stops after this wave: %s failed" % names[2] in first.stdout
    assert changed(first) == set(names) and not changed(first) & set(leaves)
    # Rolled back: the failed spine has its previous frr.conf (the drifted one) and stays drained.
    with open(os.path.join(daemons.frr_dir(names[2]), "frr.conf")) as f:
        assert COSMETIC[1] in f.read()
    running = subprocess.run(["vtysh", "-N", names[2], "-c", "show running-config"], capture_output=True, text=True,
                             check=True).stdout
    assert drain.RUNNING_MARKER in running and "stays drained" in first.stdout
    (host_vars / (names[2] + ".yml")).unlink()
    again = deploy(t256, *backend(t256))
    print("run again: changed %s" % sorted(changed(again)))
    assert again.returncode == 0, again.stdout[-3000:]
    assert changed(again) == {names[2]} | set(leaves)
    assert changed(deploy(t256, *backend(t256))) == set()
