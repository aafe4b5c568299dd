"""The build's forked render workers: the jobs of build.py run here one after the other, or in forked processes,
heaviest first, and how many processes a build gets."""
import os

from .errors import SpecError


# The jobs of the build being made and what a worker does with a job's files, read by the forked workers (they
# are closures: they cannot be sent to them).
_FORKED = {"jobs": [], "finish": None}


def _run_forked(index):
    try:
        out, times = _FORKED["jobs"][index]()
        return index, (_FORKED["finish"](out), times)
    except Exception:  # noqa: BLE001 - the parent runs the job again itself, to raise the error as it is
        return index, None


def _default_sigterm():
    """A render worker dies of the SIGTERM the pool's terminate() sends it. Forked from an Ansible worker, it would
    inherit that worker's handler (which signals the Ansible worker's process group, then exits), and one worker
    dying so while it held the pool's task-queue lock left the other waiting for that lock, the build never ending
    (seen on th6-131k under load)."""
    import signal
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def run_jobs(jobs, workers, finish):
    """Yield (finish(files of a job), {stage: [files, seconds]}) for each of ``jobs``: here, one after the other,
    with one worker; else in ``workers`` forked processes, the heaviest jobs first, yielded as they end. A job
    that fails in a worker is run again here, so that its error is raised as it is."""
    if workers <= 1:
        for _weight, job in jobs:
            out, times = job()
            yield finish(out), times
        return
    import multiprocessing

    order = sorted(range(len(jobs)), key=lambda i: -jobs[i][0])
    _FORKED.update(jobs=[job for _weight, job in jobs], finish=finish)
    try:
        with multiprocessing.get_context("fork").Pool(workers, initializer=_default_sigterm) as pool:
            for index, done in pool.imap_unordered(_run_forked, order):
                if done is None:
                    out, times = jobs[index][1]()
                    done = finish(out), times
                yield done
    finally:
        _FORKED.update(jobs=[], finish=None)


def workers_for(jobs):
    """How many processes render: GPUFABRIC_BUILD_WORKERS, else the CPUs this process may use (at most 4), and
    1 below MIN_PARALLEL_JOBS jobs (a fork costs more than it saves there)."""
    wanted = os.environ.get("GPUFABRIC_BUILD_WORKERS")
    if wanted:
        if not wanted.strip().isdigit() or int(wanted) < 1:
            raise SpecError("GPUFABRIC_BUILD_WORKERS", "%r is not a number of processes: give 1 (render in this "
                            "process) or more" % wanted)
        return int(wanted)
    if len(jobs) < MIN_PARALLEL_JOBS:
        return 1
    return max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


MIN_PARALLEL_JOBS = 8
