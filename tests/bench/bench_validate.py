"""Validation time on the virtual twin (`make bench`, Validation section).

The lab twin is brought up as cluster ``vt`` (so it never collides with a lab twin someone has up),
validated a few times, and taken down. Controller time is this process's own CPU time (parsing and checks)
per device; on the twin the commands (ip, vtysh, lldpcli) also run on this machine, and their CPU time is
reported apart, since on a real fabric it is spent on the devices.
"""
import os
import statistics
import sys
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

RUNS = 5
TARGET = "at most 50 ms controller CPU per device"


def _lab_as(cluster):
    with open(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")) as f:
        spec = {k: v for k, v in yaml.safe_load(f).items() if k != "plugin"}
    spec["cluster"]["name"] = cluster
    return spec


def bench_validate():
    try:
        from gpufabric import twin
    except ImportError as exc:
        return [("validate the lab twin", "not run: no twin in this tree (%s)" % exc, TARGET)]
    problem = twin.preflight()
    if problem:
        return [("validate the lab twin", "not run: %s" % problem, TARGET)]
    from gpufabric.build import render_all
    from gpufabric.plan import build_plan
    from gpufabric.validate.runner import command_collector, validate
    from gpufabric.twin import NetnsTransport, twin_lldp_socket

    cluster = "vt"
    plan = build_plan(_lab_as(cluster))
    files = render_all(plan)
    rows = []
    transport = NetnsTransport(lambda host: twin_lldp_socket(cluster, host))
    try:
        twin.up(twin.build_twin(plan, files), timeout=180)
        collector = command_collector(lambda host: transport)
        # BGP is Established before every ECMP path is installed: time a converged twin only.
        deadline = time.monotonic() + 60
        while validate(plan, collector)["counts"]["FAIL"] and time.monotonic() < deadline:
            time.sleep(1)
        runs = [validate(plan, collector, max_workers=8) for _i in range(RUNS)]
    finally:
        twin.down(cluster)
    timing = [r["timing"] for r in runs]
    devices = runs[-1]["devices"]
    per_device = statistics.median(t["controller_cpu_ms_per_device"] for t in timing)
    rows.append(("validate the lab twin (%d devices, %d checks, %d results), median of %d, 8 workers"
                 % (devices, len(runs[-1]["checks"]), len(runs[-1]["results"]), RUNS),
                 "%.1f ms controller CPU per device (%.2f s wall)" % (per_device, statistics.median(t["wall_s"] for t in timing)),
                 TARGET))
    rows.append(("same runs: CPU of the commands run on the twin (ip, vtysh, lldpcli), per device",
                 "%.0f ms" % (1000 * statistics.median(t["command_cpu_s"] for t in timing) / devices),
                 "- (spent on the devices on a real fabric)"))
    rows.append(("same runs: failures on the clean twin", "%d FAIL, %d ERROR" % (
        max(r["counts"]["FAIL"] for r in runs), max(r["counts"]["ERROR"] for r in runs)), "0"))
    rows.append(("larger twins", "checked against the plan in the Virtual twin section (twin-256, twin-2048)", "-"))
    return rows


if __name__ == "__main__":
    for row in bench_validate():
        print("  %s: %s (target %s)" % row)
