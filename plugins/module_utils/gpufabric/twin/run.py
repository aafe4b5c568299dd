"""Running commands for the twin: many at once (bounded), each failure reported with its command."""
import subprocess

PARALLEL = 8


class CommandError(Exception):
    pass


def run(argv, stdin=None, check=True):
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise CommandError("%s: exit %d: %s" % (" ".join(argv), proc.returncode, (proc.stderr or proc.stdout).strip()[-2000:]))
    return proc


def run_many(jobs, check=True, parallel=PARALLEL):
    """Run ``jobs`` ([(argv, stdin or None)]) at most ``parallel`` at a time; CompletedProcess-like
    results in the same order. One process per job, so 2 cores stay busy while others wait on the kernel."""
    results = [None] * len(jobs)
    running = []
    pending = list(enumerate(jobs))
    pending.reverse()
    while pending or running:
        while pending and len(running) < parallel:
            index, (argv, stdin) = pending.pop()
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            running.append((index, argv, stdin, proc))
        index, argv, stdin, proc = running.pop(0)
        out, err = proc.communicate(stdin)
        results[index] = subprocess.CompletedProcess(argv, proc.returncode, out, err)
        if check and proc.returncode != 0:
            for other in running:
                other[3].communicate(other[2])
            raise CommandError("%s: exit %d: %s" % (" ".join(argv), proc.returncode, (err or out).strip()[-2000:]))
    return results
