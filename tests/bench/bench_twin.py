"""Virtual twin timings for `make bench`: the lab up and converged, its teardown, inventories/twin-256
(32 servers, 256 GPUs) and the largest twin benchmarked here (inventories/twin-2048: 256 servers, 2,048
GPUs, 397 namespaces), each built from nothing, checked against the plan and removed.

Needs root, FRR and lldpd; without them the rows say why and measure nothing.
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))


def _cycle(name):
    from gpufabric import build, plan as planning, specfile, twin
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", name, name + ".topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    try:
        up = twin.up(wanted, timeout=300)
        again = twin.up(wanted, wait=False)
        t = time.perf_counter()
        results = twin.verify(plan)["results"]
        verify_s = time.perf_counter() - t
    finally:
        down = twin.down(wanted.cluster, wanted.namespaces)
    left = twin.leftovers(wanted.cluster, wanted.namespaces)
    return plan, wanted, up, again, verify_s, results, down, left


def bench_twin():
    from gpufabric import twin
    reason = twin.preflight()
    if reason:
        return [("virtual twin", "not measured: %s" % reason, "lab up and converged <= 60 s")]
    rows = []
    for name, target in (("lab", "<= 60 s"), ("twin-256", "256 GPUs, 32 servers held"),
                         ("twin-2048", "2,048 GPUs, 256 servers held")):
        plan, wanted, up, again, verify_s, results, down, left = _cycle(name)
        failed = sum(1 for r in results if r.status in ("FAIL", "ERROR"))
        what = "%s twin (%d GPUs, %d namespaces, %d cables)" % (
            name, plan.summary["gpus"], len(wanted.namespaces), len(wanted.veths))
        rows.append((what + ": up and converged", "%.1f s (BGP converged %.1f s after setup)" % (up["seconds"], up["converged"]),
                     target))
        rows.append((what + ": second apply", "%.1f s, %d changes" % (again["seconds"], len(again["changes"])), "0 changes"))
        rows.append((what + ": checks against the plan", "validation runner: %d results, %d failed, %.1f s" % (len(results), failed, verify_s),
                     "0 failed"))
        rows.append((what + ": teardown", "%.1f s, %d leftovers" % (down["seconds"], len(left)), "0 leftovers"))
    return rows


if __name__ == "__main__":
    for row in bench_twin():
        print("%s: %s (target %s)" % row)
