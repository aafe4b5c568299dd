"""Progress of long controller work, phase by phase with counts and times, and stage selection by tags.

Actions pass a sink (Ansible's display) so users see each phase as it ends; the same lines go into
the task result, so AWX job output and callbacks keep them too.
"""
import time


class Progress:
    """Collects "phase: count what in s" lines and hands each to ``sink`` as it is made."""

    def __init__(self, what, sink=None):
        self.what = what
        self.sink = sink
        self.lines = []
        self.started = time.perf_counter()

    def phase(self, name, count=None, unit="", seconds=None):
        line = "%s %s: %s%.2f s" % (self.what, name, "%s %s in " % (format(count, ","), unit) if count is not None
                                    else "", seconds)
        self.lines.append(line)
        if self.sink:
            self.sink(line)

    def elapsed(self):
        return time.perf_counter() - self.started

    def total(self):
        self.phase("total", seconds=time.perf_counter() - self.started)
        return self.lines


def selected_stages(stages, run_tags=None, skip_tags=None):
    """The stages a run selects: those its --tags name (every stage when the tags name none, e.g.
    `all` or the playbook's own tag), minus those its --skip-tags name."""
    run = set(run_tags or ("all",))
    skip = set(skip_tags or ())
    named = [s for s in stages if s in run]
    return [s for s in (named or list(stages)) if s not in skip]
