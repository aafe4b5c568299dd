"""Virtual twin timings for `make bench`: the lab up and converged (with every SONiC switch's management plane:
its redis, whose memory is reported), its teardown, inventories/twin-256
(32 servers, 256 GPUs) and the largest twin benchmarked here (inventories/twin-2048: 256 servers, 2,048
GPUs, 397 namespaces), each built from nothing, checked against the plan and removed.

Needs root, FRR and lldpd; without them the rows say why and measure nothing.
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))


def _rss_mib(pid_files):
    """Sum of the resident memory of the processes named by ``pid_files`` (MiB) and how many run."""
    total, count = 0, 0
    for path in pid_files:
        try:
            with open(path) as f:
                pid = int(f.read().strip())
            with open("/proc/%d/status" % pid) as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
            count += 1
        except (OSError, ValueError, StopIteration):
            continue
    return total / 1024.0, count


def _planes_memory(cluster):
    """The management planes' redis-servers of a running twin (each switch's run directory)."""
    import glob
    from gpufabric import twin
    return _rss_mib(glob.glob(os.path.join(twin.state_dir(cluster), "*", "redis.pid")))


def _cycle(name):
    from gpufabric import build, plan as planning, specfile, twin
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", name, name + ".topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    try:
        up = twin.up(wanted, timeout=300)
        up["planes"] = _planes_memory(wanted.cluster)
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
        mib, count = up["planes"]
        rows.append((what + ": SONiC management planes (redis with CONFIG_DB, one a switch)",
                     "%d redis-servers, %.0f MiB resident in all (%.1f MiB a switch); included in the times above"
                     % (count, mib, mib / count if count else 0), "bounded memory (64 MB cap a switch)"))
        rows.append((what + ": second apply", "%.1f s, %d changes" % (again["seconds"], len(again["changes"])), "0 changes"))
        rows.append((what + ": checks against the plan", "validation runner: %d results, %d failed, %.1f s" % (len(results), failed, verify_s),
                     "0 failed"))
        rows.append((what + ": teardown", "%.1f s, %d leftovers" % (down["seconds"], len(left)), "0 leftovers"))
    return rows


if __name__ == "__main__":
    for row in bench_twin():
        print("%s: %s (target %s)" % row)
