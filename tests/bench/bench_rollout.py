"""Rollout time for `make bench`: playbooks/deploy.yml rolling a cosmetic frr.conf change through every BGP
switch of inventories/twin-256 (the lab twin's group_vars: the netns connection, FRR in the namespace), as a user
runs it, with deploy.yml's own waves (spines one at a time, leaves 10 % at a time, frontend sides A then B).
From the Ansible JSON callback: the seconds of each play, its waves (batches), and the share of the BGP gate and
of the drain's wait for the neighbours. Those per-wave times, times the waves deploy.yml's rules give for
inventories/h100-100k, are the rollout estimate of docs/operations.md ("Rollout time").

Needs root, FRR and lldpd; without them the rows say why and measure nothing.
"""
import datetime
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))
sys.path.insert(0, os.path.join(ROOT, "tests"))   # twin_group_vars
BIN = os.path.dirname(sys.executable)
NAME = "twin-256"
TARGET_FABRIC = "h100-100k"
# deploy.yml's plays in order: (group, serial); "10%" is deploy_leaf_serial's default.
WAVES = (("oob_switch", "10%"), ("backend_core", 1), ("backend_superspine", 1), ("backend_spine", 1),
         ("backend_leaf", "10%"), ("frontend_superspine", 1), ("frontend_spine", 1), ("frontend_side_a", "10%"),
         ("frontend_side_b", "10%"))
# Where a role has no switch on the twin, the wave time of the role that is deployed the same way.
SAME_AS = {"backend_core": "backend_spine", "backend_superspine": "backend_spine",
           "frontend_superspine": "frontend_spine"}
GATE_TASK = "Wait for the BGP gate"
# traffic_shift/tasks/verify.yml: the drain's wait for the neighbours, the check while drained, the undrain's wait.
DRAIN_WAIT_TASK = "Check BGP and ECMP of the switch and its neighbours"
# What deploy.yml's template writes and what an older template would have had: a cosmetic drift.
COSMETIC = ("log syslog informational\n", "log syslog warnings\n")


FORKS = 5   # Ansible's default, as the twin ran


def batch_size(count, serial):
    """Hosts in one batch of ``count`` at ``serial`` (an int, or "N%": int(count*N/100), at least 1)."""
    return serial if isinstance(serial, int) else max(1, int(count * int(serial.rstrip("%")) / 100))


def waves(count, serial):
    """How many batches Ansible makes of ``count`` hosts at ``serial``."""
    return math.ceil(count / batch_size(count, serial)) if count else 0


def _seconds(duration):
    parse = datetime.datetime.fromisoformat
    return (parse(duration["end"].rstrip("Z")) - parse(duration["start"].rstrip("Z"))).total_seconds()


def per_play(report):
    """{play name: [seconds, waves, gate seconds, drain-wait seconds]} of a deploy.yml JSON report. The JSON
    callback starts a new play entry for each batch of a serial play, so each entry of a name is one wave."""
    out = {}
    for play in report["plays"]:
        tasks = [t for t in play["tasks"] if "end" in t["task"]["duration"]]
        if not tasks or "end" not in play["play"]["duration"]:
            continue
        entry = out.setdefault(play["play"]["name"], [0.0, 0, 0.0, 0.0])
        entry[0] += _seconds(play["play"]["duration"])
        entry[1] += 1
        entry[2] += sum(_seconds(t["task"]["duration"]) for t in tasks if GATE_TASK in t["task"]["name"])
        entry[3] += sum(_seconds(t["task"]["duration"]) for t in tasks if DRAIN_WAIT_TASK in t["task"]["name"])
    return out


def _inventory(directory, cluster):
    from twin_group_vars import copy_twin_group_vars
    shutil.copy(os.path.join(ROOT, "inventories", NAME, NAME + ".topology.yml"), directory)
    copy_twin_group_vars(directory, cluster)


def _deploy(inventory, build_dir):
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_DEPRECATION_WARNINGS="false",
               ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    started = time.perf_counter()
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", inventory,
                           os.path.join(ROOT, "playbooks", "deploy.yml"), "-e", "build_dir=" + build_dir],
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


def _role_waves(plan):
    """{deploy.yml group: hosts} of a plan (frontend leaves split by side, as deploy.yml groups them)."""
    counts = {}
    for dev in plan.devices:
        counts[dev.role] = counts.get(dev.role, 0) + 1
        if dev.role == "frontend_leaf":
            group = "frontend_side_" + (dev.side or "a")
            counts[group] = counts.get(group, 0) + 1
    return counts


def _play_group(name):
    """The deploy.yml group of a play name ("Deploy backend spines" -> backend_spine)."""
    text = name.lower()
    for group, words in (("oob_switch", "oob"), ("backend_core", "backend core"),
                         ("backend_superspine", "backend superspine"), ("backend_spine", "backend spine"),
                         ("backend_leaf", "backend lea"), ("frontend_superspine", "frontend superspine"),
                         ("frontend_spine", "frontend spine"), ("frontend_side_a", "side a"),
                         ("frontend_side_b", "side b")):
        if words in text:
            return group
    return None


def bench_rollout():
    from gpufabric import build, plan as planning, specfile, twin
    reason = twin.preflight()
    if reason:
        return [("rolling deploy on the twin", "not measured: %s" % reason, "-")]
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", NAME, NAME + ".topology.yml")))
    cluster = plan.summary["cluster"]
    wanted = twin.build_twin(plan, build.render_all(plan))
    names = sorted(ns.name for ns in wanted.namespaces.values() if "bgpd" in ns.frr_daemons)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        inventory, build_dir = os.path.join(tmp, "inventory"), os.path.join(tmp, "build")
        os.makedirs(inventory)
        _inventory(inventory, cluster)
        twin.down(wanted.cluster, wanted.namespaces)
        try:
            twin.up(wanted, timeout=300)
            first, _w, _r = _deploy(inventory, build_dir)       # stages the OOB switches' files, as on a fresh twin
            if first.returncode != 0:
                return [("rolling deploy on the twin", "first deploy failed: %s" % first.stdout[-300:], "-")]
            _drift(names)
            proc, wall, report = _deploy(inventory, build_dir)
        finally:
            twin.down(wanted.cluster, wanted.namespaces)
    if proc.returncode != 0:
        return [("rolling deploy on the twin", "failed (rc %d): %s" % (proc.returncode, proc.stdout[-300:]), "-")]
    changed = sorted(h for h, s in report["stats"].items() if s.get("changed") and h != "localhost")
    changed_groups = {plan.device(h).role for h in changed}
    if "frontend_leaf" in changed_groups:
        changed_groups |= {"frontend_side_a", "frontend_side_b"}
    changed_groups |= {group for group, same in SAME_AS.items() if same in changed_groups}
    plays = per_play(report)
    deploy_s = sum(v[0] for k, v in plays.items() if _play_group(k))
    gate_s = sum(v[2] for v in plays.values())
    drain_s = sum(v[3] for v in plays.values())
    figures = (wall, deploy_s, 60 * len(changed) / wall, 100 * gate_s / deploy_s, 100 * drain_s / deploy_s)
    rows.append(("`deploy.yml` on the %s twin, a cosmetic frr.conf change on each of its %d BGP switches (%d changed), "
                 "default waves, forks %d" % (NAME, len(names), len(changed), FORKS),
                 "%.0f s wall (deploy plays %.0f s): %.1f switches a minute; BGP gate %.0f %%, the drain's checks of the "
                 "switch and its neighbours %.0f %% of the deploy plays" % figures, "-"))
    per_wave = {}
    for name, (seconds, count, _g, _d) in plays.items():
        group = _play_group(name)
        if group and count:
            per_wave[group] = seconds / count
            rows.append(("  %s: %d wave(s) of one switch" % (group, count), "%.1f s a wave" % (seconds / count), "-"))
    target = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", TARGET_FABRIC,
                                                                 TARGET_FABRIC + ".topology.yml")))
    counts = _role_waves(target)
    total, parts = 0.0, []
    for group, serial in WAVES:
        n = waves(counts.get(group, 0), serial)
        rate = per_wave.get(group) or per_wave.get(SAME_AS.get(group, ""))
        if not n or rate is None:
            continue
        # Every wave on the twin held one switch; a wave of B switches takes ceil(B / forks) such rounds, as
        # Ansible runs each task on `forks` hosts at a time (an upper bound: their waits overlap).
        rounds = math.ceil(batch_size(counts[group], serial) / FORKS)
        total += n * rounds * rate
        parts.append("%s %d wave(s) x %d round(s) x %.0f s%s" % (
            group, n, rounds, rate, "" if group in changed_groups else " (measured unchanged)"))
    rows.append(("%s (%d switches) at these times a switch, deploy.yml's waves, forks %d, every switch changed" % (
        TARGET_FABRIC, sum(v for k, v in counts.items() if k not in ("gpu_server", "frontend_side_a", "frontend_side_b")),
        FORKS),
        "%.1f hours: %s" % (total / 3600, "; ".join(parts)), "-"))
    return rows


if __name__ == "__main__":
    for row in bench_rollout():
        print("%s: %s (target %s)" % row)
