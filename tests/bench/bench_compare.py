"""Before and after, in one run: the planner, build.yml and the validation of this tree against the code of an earlier
bench (BASELINE), on the same machine at the same time (`make bench`, section "Against the baseline").

Figures from different days are not comparable on a shared machine (its load and clock vary by a factor
of two); only a ratio measured in one run says whether a change made things slower. The baseline tree is
exported from git (`git archive`) into a temporary folder, and the two are run alternately, each in a
fresh process, so drift of the machine hits both alike.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASELINE = "14f790c"  # the commit of the first `make bench` (2026-11-22), before the core was reshaped (issue 10)
RUNS = 9
VALIDATE_TIMEOUT = 600  # one bench_validate: a twin up, 6 validations, the twin down (about a minute)

PLAN_CHILD = r"""
import json, sys, time, yaml
sys.path.insert(0, sys.argv[1])
try:
    from gpufabric.plan import build_plan
except ImportError:  # the tree before the reshape
    from gpufabric.planner import build_plan
spec = yaml.safe_load(open(sys.argv[2]))
t = time.perf_counter()
build_plan(spec)
print(json.dumps(time.perf_counter() - t))
"""

VALIDATE_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from bench_validate import bench_validate
row = bench_validate()[0]
print(json.dumps(row))
"""


def export_tree(tmp, commit):
    """The tree of ``commit`` in tmp, with its collection link (its ansible.cfg finds its own collection), or
    the reason it cannot be had."""
    archive = subprocess.run(["git", "-C", ROOT, "archive", commit], capture_output=True, check=False)
    if archive.returncode:
        return "commit %s is not in this clone" % commit
    subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
    link = os.path.join(tmp, "collections", "ansible_collections", "gpucluster", "fabric")
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if not os.path.lexists(link):
        os.symlink(tmp, link)
    return None


def _export(tmp):
    """The baseline tree in tmp, or the reason it cannot be had."""
    return export_tree(tmp, BASELINE)


def _plan_seconds(tree, name):
    spec = os.path.join(tree, "inventories", name, name + ".topology.yml")
    out = subprocess.run([sys.executable, "-c", PLAN_CHILD, os.path.join(tree, "plugins", "module_utils"), spec],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def _build_cpu(tree, build_dir, extra=()):
    """(wall s, CPU s of the process tree, files written) of build.yml of metalsoft-16k in ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "inventories/metalsoft-16k",
                    "playbooks/build.yml", "-e", "build_dir=" + build_dir] + list(extra), cwd=tree, check=True,
                   env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(tree, "ansible.cfg")),
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    files = sum(len(entry[2]) for entry in os.walk(build_dir))
    return wall, cpu, files


def _validate_ms(tree):
    try:
        out = subprocess.run([sys.executable, "-c", VALIDATE_CHILD, os.path.join(tree, "tests", "bench")],
                             check=True, capture_output=True, text=True, timeout=VALIDATE_TIMEOUT).stdout
    except subprocess.TimeoutExpired:
        from gpufabric import twin
        twin.down("vt")  # the cluster name bench_validate gives the lab twin, then and now
        raise RuntimeError("the validation bench of %s did not finish in %d s" % (tree, VALIDATE_TIMEOUT))
    measurement, result, _target = json.loads(out.strip().splitlines()[-1])
    if not result.endswith(")") or " ms " not in result:
        raise RuntimeError("validation bench of %s: %s" % (tree, result))
    return float(result.split(" ms ", 1)[0]), measurement


def bench_compare():
    rows = []
    with tempfile.TemporaryDirectory() as old:
        problem = _export(old)
        if problem:
            return [("against the baseline", "not run: " + problem, "-")]
        for name in ("metalsoft-16k", "h100-100k"):
            times = {"old": [], "new": []}
            for _i in range(RUNS):
                times["old"].append(_plan_seconds(old, name))
                times["new"].append(_plan_seconds(ROOT, name))
            o, n = statistics.median(times["old"]), statistics.median(times["new"])
            rows.append(("plan %s, library, median of %d fresh processes each, alternated" % (name, RUNS),
                         "%.2f s now, %.2f s at %s: %.2fx" % (n, o, BASELINE, o / n), "not slower (at least 1x)"))
        # build.yml as users run it; the tree of the baseline wrote no server files, so this tree builds
        # the same stages (--skip-tags servers). Each tree's ansible.cfg finds its own collection.
        builds = {"old": [], "new": []}
        for _i in range(2):
            for key, tree, extra in (("old", old, ()), ("new", ROOT, ("--skip-tags", "servers"))):
                with tempfile.TemporaryDirectory() as out:
                    builds[key].append(_build_cpu(tree, out, extra))
        (ow, oc, ofiles), (nw, nc, nfiles) = min(builds["old"]), min(builds["new"])
        rows.append(("`build.yml` of metalsoft-16k, fresh, best of 2 each, alternated (%d files now with "
                     "`--skip-tags servers`, %d then)" % (nfiles, ofiles),
                     "%.1f s wall, %.1f s CPU now; %.1f s wall, %.1f s CPU at %s: %.2fx" % (nw, nc, ow, oc, BASELINE, oc / nc),
                     "not slower (at least 1x)"))
        from gpufabric import twin
        problem = twin.preflight()
        if problem:
            rows.append(("validate the lab twin", "not run: %s" % problem, "-"))
            return rows
        per = {"old": [], "new": []}
        what = {}
        for _i in range(2):
            for key, tree in (("old", old), ("new", ROOT)):
                ms, what[key] = _validate_ms(tree)
                per[key].append(ms)
        o, n = min(per["old"]), min(per["new"])
        scope = {key: text.split("(", 1)[1].split(")")[0] for key, text in what.items()}
        rows.append(("validate the lab twin, controller CPU per device, best of 2 benches each, alternated "
                     "(now: %s; then: %s)" % (scope["new"], scope["old"]),
                     "%.1f ms now, %.1f ms at %s: %.2fx" % (n, o, BASELINE, o / n), "not slower (at least 1x)"))
    return rows
