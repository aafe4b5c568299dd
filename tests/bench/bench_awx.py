"""Sliced validation for `make bench`: validate.yml on the twin-256 twin run as AWX runs it (tests/awx/awx_jobs.py),
once unsliced, then as AWX's workflow of docs/awx.md: 4 collect jobs at once (as on 4 execution nodes; here they
share this machine's cores) and the check job, facts carried by AWX's fact cache. The rows give each one's seconds
and whether the two give the same results, result for result.

Needs root, FRR and lldpd; without them the rows say why and measure nothing.
"""
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))
sys.path.insert(0, os.path.join(ROOT, "tests"))          # twin_group_vars
sys.path.insert(0, os.path.join(ROOT, "tests", "awx"))   # awx_jobs
NAME = "twin-256"
SLICES = 4


def bench_awx():
    from gpufabric import build, plan as planning, specfile, twin
    from awx_jobs import Controller, Inventory, Project, sliced_validation, working_tree
    from twin_group_vars import copy_twin_group_vars

    reason = twin.preflight()
    if reason:
        return [("sliced validation of %s" % NAME, "not measured: %s" % reason, "-")]
    base = tempfile.mkdtemp(prefix="bench-awx-")
    tree = working_tree(os.path.join(base, "checkout"), ROOT)
    copy_twin_group_vars(os.path.join(tree, "inventories", NAME), NAME)
    project = Project(tree, os.path.join(base, "project")).sync()
    inventory = Inventory(project, "inventories/" + NAME, {"ANSIBLE_INVENTORY_UNPARSED_FAILED": True}).sync()
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", NAME, NAME + ".topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    twin.up(wanted, timeout=180)
    try:
        run = sliced_validation(Controller(base), project, inventory, "playbooks/validate.yml", plan.summary["cluster"],
                                slices=SLICES)
    finally:
        twin.down(wanted.cluster, wanted.namespaces)
    same = run["sliced"] == run["whole"]
    counts = run["counts"]
    devices = len(run["collected"])
    return [
        ("validate.yml as one AWX job, %s twin (%d devices read)" % (NAME, devices), "%.1f s" % run["whole_s"], "-"),
        ("validate.yml sliced %d ways, collect jobs at once on this 2-core machine" % SLICES,
         "%.1f s for all (slices %s s)" % (run["collect_s"], ", ".join("%.1f" % s for s in run["slice_s"])), "-"),
        ("then the check job over the cached facts", "%.1f s" % run["check_s"], "-"),
        ("sliced results against unsliced, result for result",
         "%s: %d results, FAIL %d, ERROR %d" % ("identical" if same else "DIFFERENT", len(run["sliced"]), counts["FAIL"],
                                                counts["ERROR"]), "identical, 0 FAIL"),
    ]
