"""Rollout time for `make bench`: playbooks/deploy.yml rolling a cosmetic frr.conf change through every BGP switch
of a twin-256 with four spines above each leaf (inventories/twin-256 with backend.leaf.uplinks 4 and
maintenance.max_capacity_loss 0.5, the lab twin's group_vars: the netns connection, FRR in the namespace), as a user
runs it, in the waves of its build/<cluster>/rollout.json (day2/rollout.py): spines two at a time, leaves one rail
of each server at a time, OOB and frontend switches as their rules allow. Then the spines again, one at a time (the
same deploy with maintenance.max_capacity_loss 0), in the same run. From the Ansible JSON callback: the seconds of
each play's waves (batches), and the share of the BGP gate and of the drain's wait for the neighbours. Those
per-wave times, with the waves the planner gives inventories/h100-100k (a wave of B switches taking ceil(B / forks)
rounds), are the rollout estimate of docs/operations.md ("Rollout time").

Needs root, FRR and lldpd; without them the rows say why and measure nothing.
"""
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))
sys.path.insert(0, os.path.join(ROOT, "tests"))   # twin_group_vars
BIN = os.path.dirname(sys.executable)
NAME = "twin-256"
TARGET_FABRIC = "h100-100k"
# Where a role has no switch on the twin, the wave time of the role that is deployed the same way.
SAME_AS = {"backend_core": "backend_spine", "backend_superspine": "backend_spine",
           "frontend_superspine": "frontend_spine"}
GATE_TASK = "Wait for the BGP gate"
# traffic_shift/tasks/verify.yml: the drain's wait for the neighbours, the check while drained, the undrain's wait.
DRAIN_WAIT_TASK = "Check BGP and ECMP of the switch and its neighbours"
# What deploy.yml's template writes and what an older template would have had: a cosmetic drift.
COSMETIC = ("log syslog informational\n", "log syslog warnings\n")
FORKS = 5   # Ansible's default, as the twin ran
TARGET_FORKS = (5, 50)


def twin_spec(max_capacity_loss):
    with open(os.path.join(ROOT, "inventories", NAME, NAME + ".topology.yml")) as f:
        raw = yaml.safe_load(f)
    raw["backend"]["leaf"]["uplinks"] = 4
    raw["maintenance"] = {"max_capacity_loss": max_capacity_loss}
    return raw


def play_roles():
    """{deploy.yml play name: the role it deploys} (its hosts are group fabric_rollout_<role>)."""
    with open(os.path.join(ROOT, "playbooks", "deploy.yml")) as f:
        plays = yaml.safe_load(f)
    prefix = "fabric_rollout_"
    return {p["name"]: p["hosts"][len(prefix):] for p in plays
            if isinstance(p.get("hosts"), str) and p["hosts"].startswith(prefix)}


def _seconds(duration):
    parse = datetime.datetime.fromisoformat
    return (parse(duration["end"].rstrip("Z")) - parse(duration["start"].rstrip("Z"))).total_seconds()


def per_role(report):
    """{role: [seconds, waves, switches, gate seconds, drain-wait seconds]} of a deploy.yml JSON report. The JSON
    callback starts a new play entry for each batch of a serial play, so each entry of a play is one wave."""
    roles, out = play_roles(), {}
    for play in report["plays"]:
        role = roles.get(play["play"]["name"])
        tasks = [t for t in play["tasks"] if "end" in t["task"]["duration"]]
        if role is None or not tasks or "end" not in play["play"]["duration"]:
            continue
        entry = out.setdefault(role, [0.0, 0, 0, 0.0, 0.0])
        entry[0] += _seconds(play["play"]["duration"])
        entry[1] += 1
        entry[2] += len({h for t in tasks for h in t["hosts"]})
        entry[3] += sum(_seconds(t["task"]["duration"]) for t in tasks if GATE_TASK in t["task"]["name"])
        entry[4] += sum(_seconds(t["task"]["duration"]) for t in tasks if DRAIN_WAIT_TASK in t["task"]["name"])
    return out


def _deploy(inventory, build_dir, *args):
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_DEPRECATION_WARNINGS="false",
               ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    started = time.perf_counter()
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", inventory,
                           os.path.join(ROOT, "playbooks", "deploy.yml"), "-e", "build_dir=" + build_dir] + list(args),
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    report = json.loads(proc.stdout[proc.stdout.index("{"):]) if "{" in proc.stdout else {"plays": [], "stats": {}}
    return proc, wall, report


def _drift(names):
    from gpufabric.twin import daemons
    for name in names:
        path = os.path.join(daemons.frr_dir(name), "frr.conf")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace(*COSMETIC))
    daemons.frr_reload(names)


def estimate(waves, per_wave, forks):
    """(hours, {role: [waves, rounds, seconds]}) for ``waves`` (the planner's, each {"role", "members"}) at
    ``per_wave`` seconds a round of each role: a wave of B switches takes ceil(B / forks) rounds, as Ansible runs a
    task on ``forks`` hosts at a time (an upper bound: their waits overlap)."""
    total, parts = 0.0, {}
    for wave in waves:
        rate = per_wave.get(wave["role"]) or per_wave.get(SAME_AS.get(wave["role"], ""))
        if rate is None:
            continue
        rounds = math.ceil(len(wave["members"]) / forks)
        part = parts.setdefault(wave["role"], [0, 0, 0.0])
        part[0] += 1
        part[1] += rounds
        part[2] += rounds * rate
        total += rounds * rate
    return total / 3600, parts


def bench_rollout():
    from gpufabric import build, plan as planning, specfile, twin
    from gpufabric.day2 import rollout
    from twin_group_vars import copy_twin_group_vars
    reason = twin.preflight()
    if reason:
        return [("rolling deploy on the twin", "not measured: %s" % reason, "-")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        inventory, build_dir, one = (os.path.join(tmp, d) for d in ("inventory", "build", "one-at-a-time"))
        os.makedirs(inventory)
        os.makedirs(one)
        spec_path, one_path = os.path.join(inventory, "t256.topology.yml"), os.path.join(one, "t256.topology.yml")
        for path, limit in ((spec_path, 0.5), (one_path, 0.0)):
            with open(path, "w") as f:
                yaml.safe_dump(twin_spec(limit), f)
        plan = planning.build_plan(specfile.load_spec(spec_path))
        copy_twin_group_vars(inventory, plan.summary["cluster"])
        wanted = twin.build_twin(plan, build.render_all(plan))
        names = sorted(ns.name for ns in wanted.namespaces.values() if "bgpd" in ns.frr_daemons)
        spines = sorted(d.name for d in plan.by_role("backend_spine"))
        twin.down(wanted.cluster, wanted.namespaces)
        try:
            twin.up(wanted, timeout=300)
            first, _w, _r = _deploy(inventory, build_dir)       # stages the OOB switches' files, as on a fresh twin
            if first.returncode != 0:
                return [("rolling deploy on the twin", "first deploy failed: %s" % first.stdout[-300:], "-")]
            _drift(names)
            # The OOB switches change too, as on the first deploy: their staged frr.conf (the lab twin's group_vars
            # put it under /run/gpufabric-twin/<cluster>/) goes, so each differs from its build again.
            for dev in plan.by_role("oob_switch"):
                staged = "/run/gpufabric-twin/%s/%s.frr.conf" % (plan.summary["cluster"], dev.name)
                if os.path.exists(staged):
                    os.remove(staged)
            proc, wall, report = _deploy(inventory, build_dir)
            _drift(spines)
            single, _w1, single_report = _deploy(inventory, build_dir, "-e", "spec=" + one_path)
        finally:
            twin.down(wanted.cluster, wanted.namespaces)
    for run, label in ((proc, "waves"), (single, "spines one at a time")):
        if run.returncode != 0:
            failed = "failed (rc %d): %s" % (run.returncode, run.stdout[-300:])
            return [("rolling deploy on the twin (%s)" % label, failed, "-")]
    changed = sorted(h for h, s in report["stats"].items() if s.get("changed") and h != "localhost")
    roles = per_role(report)
    deploy_s = sum(v[0] for v in roles.values())
    gate_s = sum(v[3] for v in roles.values())
    drain_s = sum(v[4] for v in roles.values())
    figures = (wall, deploy_s, 60 * len(changed) / wall, 100 * gate_s / deploy_s, 100 * drain_s / deploy_s)
    rows.append(("`deploy.yml` on the %s twin with four spines (max_capacity_loss 0.5), a cosmetic frr.conf change on "
                 "each of its %d BGP switches (%d changed), rollout.json's waves, forks %d" % (
                     NAME, len(names), len(changed), FORKS),
                 "%.0f s wall (deploy plays %.0f s): %.1f switches a minute; BGP gate %.0f %%, the drain's checks of the "
                 "switch and its neighbours %.0f %% of the deploy plays" % figures, "-"))
    per_wave = {}
    for role, (seconds, count, switches, _g, _d) in sorted(roles.items(), key=lambda kv: rollout.ROLE_ORDER.index(kv[0])):
        per_wave[role] = seconds / count
        rows.append(("  %s: %d wave(s), %d switches" % (role, count, switches), "%.1f s a wave" % (seconds / count), "-"))
    one = per_role(single_report).get("backend_spine")
    waves_s = roles.get("backend_spine", [0.0])[0]
    if one:
        rows.append(("  backend_spine, the same change one at a time (max_capacity_loss 0), same run",
                     "%d wave(s), %.1f s a wave, %.0f s in all against %.0f s in waves of two (%.0f %% less)" % (
                         one[1], one[0] / one[1], one[0], waves_s, 100 * (1 - waves_s / one[0])), "-"))
    target = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", TARGET_FABRIC,
                                                                 TARGET_FABRIC + ".topology.yml")))
    waves = rollout.plan_waves(target)
    switches = sum(len(w["members"]) for w in waves)
    for forks in TARGET_FORKS:
        hours, parts = estimate(waves, per_wave, forks)
        rows.append(("%s (%d switches) at these times a wave, rollout.json's waves (max_capacity_loss %s), forks %d, "
                     "every switch changed" % (TARGET_FABRIC, switches, rollout.max_capacity_loss(target), forks),
                     "%.2f hours: %s" % (hours, "; ".join(
                         "%s %d wave(s), %d round(s), %.0f s" % (role, *part) for role, part in parts.items())),
                     "-"))
    return rows


if __name__ == "__main__":
    for row in bench_rollout():
        print("%s: %s (target %s)" % row)
