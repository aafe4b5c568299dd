"""What one switch costs the controller in `deploy.yml`, before and after the deploy role read each switch once
(issue 45, "cheaper per switch"), measured in the same run on the same twin.

"Before" is the collection as it was at BASELINE (the last commit whose sonic_deploy read the switch in a dozen
tasks and four round trips), exported with `git archive` into a temporary collections path; "after" is this
checkout. Both deploy the same twin (the lab's spec under the cluster name `dcost`, the lab twin's group_vars: the
netns connection, FRR in each namespace), alternately, REPEAT times each, the lower figure kept:
- an unchanged switch: `deploy.yml --limit <spine>` with nothing to change: the seconds of the play that compares
  every switch with its build, and the tasks run on that switch in the whole playbook;
- a changed leaf: the same leaf given a cosmetic frr.conf drift, then `deploy.yml --limit <leaf>` (changed in
  place, as a backend leaf is without confirm_leaf_drain): the seconds of the comparing play and of the leaf's
  deploy play, and the tasks run on the leaf.
The twin's emulated switch answers in the same time in both, so the difference is the controller's.

Needs root, FRR, lldpd and git; without them the rows say why and measure nothing.
"""
import json
import os
import shutil
import subprocess
import tempfile

import yaml

# The root, the import paths, the JSON report's durations and the cosmetic frr.conf drift are the rollout bench's.
from bench_rollout import BIN, ROOT, _drift, _seconds

BASELINE = "3836727"
CLUSTER = "dcost"
SPINE, LEAF = CLUSTER + "-spine01", CLUSTER + "-r0-leaf01"
PENDING_PLAY = "Find the switches that differ from their build"
LEAF_PLAY = "Deploy backend leaves, wave by wave"
REPEAT = 2


def export_baseline(where):
    """The collection at BASELINE under ``where``/ansible_collections/gpucluster/fabric (None when git cannot)."""
    tree = os.path.join(where, "ansible_collections", "gpucluster", "fabric")
    os.makedirs(tree)
    archive = subprocess.run(["git", "-C", ROOT, "archive", BASELINE], capture_output=True, check=False)
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, check=True)
    return tree


def deploy(tree, collections, inventory, build_dir, *args):
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_DEPRECATION_WARNINGS="false",
               ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_COLLECTIONS_PATH=collections)
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", inventory,
                           os.path.join(tree, "playbooks", "deploy.yml"), "-e", "build_dir=" + build_dir] + list(args),
                          cwd=tree, env=env, capture_output=True, text=True, check=False)
    report = json.loads(proc.stdout[proc.stdout.index("{"):]) if "{" in proc.stdout else {"plays": [], "stats": {}}
    return proc, report


def cost(report, host, play_name):
    """(seconds of the plays named ``play_name``, tasks run on ``host`` in the whole playbook)."""
    seconds = sum(_seconds(p["play"]["duration"]) for p in report["plays"]
                  if p["play"]["name"] == play_name and "end" in p["play"]["duration"])
    tasks = sum(1 for p in report["plays"] for t in p["tasks"]
                if host in t["hosts"] and not t["hosts"][host].get("skipped"))
    return seconds, tasks


def bench_deploy_cost():
    from gpufabric import build, plan as planning, specfile, twin
    from twin_group_vars import copy_twin_group_vars
    reason = twin.preflight() or (None if shutil.which("git") else "git is missing")
    if reason:
        return [("controller time of a switch in deploy.yml", "not measured: %s" % reason, "-")]
    with tempfile.TemporaryDirectory() as tmp:
        before = export_baseline(os.path.join(tmp, "before"))
        if before is None:
            return [("controller time of a switch in deploy.yml", "not measured: no commit %s here" % BASELINE, "-")]
        after_collections = os.path.join(tmp, "after")
        os.makedirs(os.path.join(after_collections, "ansible_collections", "gpucluster"))
        os.symlink(ROOT, os.path.join(after_collections, "ansible_collections", "gpucluster", "fabric"))
        raw = specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml"))
        raw["cluster"]["name"] = CLUSTER
        inventory = os.path.join(tmp, "inventory")
        os.makedirs(inventory)
        with open(os.path.join(inventory, CLUSTER + ".topology.yml"), "w") as f:
            yaml.safe_dump(dict(raw, plugin="gpucluster.fabric.topology"), f)
        copy_twin_group_vars(inventory, CLUSTER)
        plan = planning.build_plan(raw)
        wanted = twin.build_twin(plan, build.render_all(plan))
        forms = (("before", before, os.path.join(tmp, "before")), ("after", ROOT, after_collections))
        figures = {label: {"unchanged": [], "changed": []} for label, _t, _c in forms}
        twin.down(wanted.cluster, wanted.namespaces)
        try:
            twin.up(wanted, timeout=120)
            first, _r = deploy(ROOT, after_collections, inventory, os.path.join(tmp, "build-first"))
            if first.returncode != 0:
                return [("controller time of a switch in deploy.yml", "first deploy failed: %s" % first.stdout[-300:],
                         "-")]
            for _round in range(REPEAT):
                for label, tree, collections in forms:
                    build_dir = os.path.join(tmp, "build-" + label)
                    proc, report = deploy(tree, collections, inventory, build_dir, "--limit", SPINE)
                    if proc.returncode != 0 or report["stats"].get(SPINE, {}).get("changed"):
                        return [("unchanged %s (%s)" % (SPINE, label), "failed: %s" % proc.stdout[-300:], "-")]
                    figures[label]["unchanged"].append(cost(report, SPINE, PENDING_PLAY))
                    _drift([LEAF])
                    proc, report = deploy(tree, collections, inventory, build_dir, "--limit", LEAF)
                    if proc.returncode != 0 or not report["stats"].get(LEAF, {}).get("changed"):
                        return [("changed %s (%s)" % (LEAF, label), "failed: %s" % proc.stdout[-300:], "-")]
                    pending, tasks = cost(report, LEAF, PENDING_PLAY)
                    figures[label]["changed"].append((pending + cost(report, LEAF, LEAF_PLAY)[0], tasks))
        finally:
            twin.down(wanted.cluster, wanted.namespaces)
    rows = []
    for kind, what in (("unchanged", "an unchanged switch (%s): the comparing play" % SPINE),
                       ("changed", "a changed leaf (%s, cosmetic frr.conf drift, in place): the comparing play and "
                                   "its deploy play" % LEAF)):
        b = min(figures["before"][kind])
        a = min(figures["after"][kind])
        rows.append(("%s, before (%s) and after, same run, lower of %d" % (what, BASELINE, REPEAT),
                     "before %.1f s, %d tasks; after %.1f s, %d tasks: %.0f %% of the time, %.0f %% of the tasks" % (
                         b[0], b[1], a[0], a[1], 100 * a[0] / b[0], 100 * a[1] / b[1]), "less than before"))
    return rows


if __name__ == "__main__":
    for row in bench_deploy_cost():
        print("%s: %s (target %s)" % row)
