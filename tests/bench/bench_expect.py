"""What validation expects, before and after it was read from the structured configs (issue 24), in one run
(`make bench`, section "Validation expectations").

``Expectation(plan)`` is validation's set-up on the controller, once a run: since issue 24 it builds the
structured configs of the switches and servers it validates and reads each port's MTU and each device's QoS
from them. This tree and the commit before that change (BEFORE, exported with `git archive`) are timed
alternately, each in a fresh process, on the same specs.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEFORE = "191295a"  # main before validation read the structured configs
RUNS = 3
SPECS = ("superpod-1k", "meta-24k")
TARGET = "a small share of a validation run (collection dominates)"

CHILD = r"""
import json, sys, time, yaml
sys.path.insert(0, sys.argv[1])
from gpufabric.plan import build_plan
from gpufabric.validate.expect import Expectation
spec = {k: v for k, v in yaml.safe_load(open(sys.argv[2])).items() if k != "plugin"}
plan = build_plan(spec)
t = time.perf_counter()
Expectation(plan)
print(json.dumps([time.perf_counter() - t, len(plan.devices)]))
"""


def _seconds(tree, name):
    spec = os.path.join(ROOT, "inventories", name, name + ".topology.yml")
    out = subprocess.run([sys.executable, "-c", CHILD, os.path.join(tree, "plugins", "module_utils"), spec],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def bench_expect():
    rows = []
    with tempfile.TemporaryDirectory() as old:
        archive = subprocess.run(["git", "-C", ROOT, "archive", BEFORE], capture_output=True, check=False)
        if archive.returncode:
            return [("validation expectations", "not run: commit %s is not in this clone" % BEFORE, TARGET)]
        subprocess.run(["tar", "-x", "-C", old], input=archive.stdout, check=True)
        for name in SPECS:
            times = {"old": [], "new": []}
            devices = 0
            for _i in range(RUNS):
                times["old"].append(_seconds(old, name)[0])
                seconds, devices = _seconds(ROOT, name)
                times["new"].append(seconds)
            o, n = statistics.median(times["old"]), statistics.median(times["new"])
            rows.append(("`Expectation(plan)` of %s (%d devices, backend), median of %d fresh processes each, "
                         "alternated" % (name, devices, RUNS),
                         "%.2f s now, %.2f s at %s (spec-derived MTU and QoS): %.2fx, %.1f ms a device now"
                         % (n, o, BEFORE, o / n, 1000 * n / devices), TARGET))
    return rows
