"""Validation of a cluster against its plan: collect every device once (concurrently, bounded), run the
checks over the shared state, and time it.

    report = validate(plan, collector=command_collector(lambda device: SshTransport(...)), max_workers=8)
"""
import resource
import time
from concurrent.futures import ThreadPoolExecutor

from .checks import Context, select
from .expect import Expectation
from .state import collect_commands, probe_command

DEFAULT_THRESHOLDS = {"errors": 100, "discards": 10000, "flaps": 10, "rx_power_dbm": -10.0}


def command_collector(transport_for):
    """A collector over command transports: ``transport_for(device) -> Transport`` (one transport for all
    devices may be passed as ``lambda device: transport``)."""
    def collect(dev, sources, expect):
        nics = [p.name for p in expect.server_nics(dev.name)]
        # One probe per server covers every pair a check reads (rail reachability, tenant isolation).
        pairs = ([probe[:2] for probe in expect.reach_probes(dev.name)]
                 + [(src, "%s/%d" % (dst, size)) for src, dst, size, _l in expect.mtu_probes(dev.name)]
                 if "reach" in sources else ())
        return collect_commands(transport_for(dev.name), dev.name, dev.role, sources, nics,
                                probe_command(pairs) if pairs else None, nos_name=dev.nos)
    return collect


def _cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def collect_all(expect, checks, collector, max_workers=8, only=None):
    """{device: DeviceState}: each device collected once with the union of the sources its checks need; with
    ``only`` (names), just those of the expectation's devices (what one slice of a sliced job collects, the
    expectation, and so each server's probes, staying the whole fabric's)."""
    jobs = []
    for dev in expect.devices:
        if only is not None and dev.name not in only:
            continue
        sources = sorted({s for check in checks for s in check.sources.get(dev.role, ())})
        if sources:
            jobs.append((dev, sources))
    with ThreadPoolExecutor(max_workers=max(1, int(max_workers))) as pool:
        futures = [(dev.name, pool.submit(collector, dev, sources, expect)) for dev, sources in jobs]
        return {name: future.result() for name, future in futures}


def validate(plan, collector, include=None, exclude=None, thresholds=None, max_workers=8,
             networks=("backend",), devices=None, baseline=None):
    """{"cluster", "results": [Result], "counts", "timing"} for ``plan``.

    ``timing`` separates wall time, this process's CPU time (parsing and checks: the controller cost the
    50 ms/device target is about) and the CPU time of the commands it ran (vtysh, ip, ssh). ``baseline``
    is the counter reading of the last run (report.read_baseline), flaps count from it."""
    wall0, (cpu0, child0) = time.perf_counter(), _cpu()
    checks = select(include, exclude)
    expect = Expectation(plan, networks=networks, devices=devices)
    states = collect_all(expect, checks, collector, max_workers)
    wall1 = time.perf_counter()
    ctx = Context(expect, states, dict(DEFAULT_THRESHOLDS, **(thresholds or {})), baseline)
    results = []
    for check in checks:
        results += check.run(ctx)
    wall2, (cpu2, child2) = time.perf_counter(), _cpu()
    counts = {status: 0 for status in ("PASS", "FAIL", "SKIP", "ERROR")}
    for r in results:
        counts[r.status] += 1
    n = max(1, len(states))
    return {
        "cluster": plan.summary["cluster"], "checks": [c.name for c in checks], "devices": len(states),
        "results": results, "counts": counts, "states": states,
        "timing": {"wall_s": round(wall2 - wall0, 3), "collect_wall_s": round(wall1 - wall0, 3),
                   "checks_wall_s": round(wall2 - wall1, 3), "controller_cpu_s": round(cpu2 - cpu0, 3),
                   "command_cpu_s": round(child2 - child0, 3),
                   "controller_cpu_ms_per_device": round(1000 * (cpu2 - cpu0) / n, 1),
                   "max_workers": max_workers},
    }
