"""Traffic that measures loss on the twin while something changes it (a deploy, a drain).

    pairs = cross_su_pairs(plan)            # one per rail, between servers of different scalable units
    with loss_flow(pairs, rate=20) as flow:  # starts when every pair answers; raises TwinError if one never does
        run_the_playbook()
    flow.lost                                 # packets without a reply, all pairs together
    flow.results                              # [PairLoss(pair, sent, lost)], one per pair
    print(flow.report())                      # one line per pair

Each source server runs one validate/probe.py process in its namespace (ICMP echo at ``rate`` per second
on each of its pairs); stopping gives every pair a second for its last replies, so only packets that
never came back count as lost.
"""
import collections
import json
import os
import select
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

from ..validate import probe
from ..validate.expect import Expectation
from .model import TwinError

PROBE = os.path.splitext(probe.__file__)[0] + ".py"


class Pair(collections.namedtuple("Pair", "src, src_nic, dst, dst_nic")):
    """One flow: from ``src_nic`` (a validate.expect.Port of a server rail NIC) to ``dst_nic``."""

    @property
    def label(self):
        return "%s rail %d -> %s rail %d" % (self.src, self.src_nic.rail, self.dst, self.dst_nic.rail)

    @property
    def addresses(self):
        return self.src_nic.ipv4.split("/")[0], self.dst_nic.ipv4.split("/")[0]


PairLoss = collections.namedtuple("PairLoss", "pair, sent, lost")


def cross_su_pairs(plan, cross_rail=True):
    """[Pair] one per rail: from a server of the first scalable unit to one of another, the sources and
    destinations taken in turn so every server carries some. ``cross_rail`` sends rail r to rail r+1 where
    the plan gives that path (not across rail planes), so the flow crosses leaves of both rails and spines."""
    expect = Expectation(plan)
    servers = [d for d in plan.devices if d.role == "gpu_server" and expect.server_nics(d.name)]
    units = sorted({d.su for d in servers if d.su is not None})
    if len(units) < 2:
        raise TwinError("a cross-SU flow needs servers in two scalable units; %s has %d"
                        % (plan.summary["cluster"], len(units)))
    sources = [d.name for d in servers if d.su == units[0]]
    targets = [d.name for d in servers if d.su == units[-1]]
    pairs = []
    for rail, nic in enumerate(expect.server_nics(sources[0])):
        src = sources[rail % len(sources)]
        dst = targets[rail % len(targets)]
        src_nic, far = expect.server_nics(src)[rail], expect.server_nics(dst)
        dst_nic = far[(rail + 1) % len(far)] if cross_rail else far[rail]
        if not expect.reachable(src_nic.peer, dst_nic.peer):
            dst_nic = far[rail]
        pairs.append(Pair(src, src_nic, dst, dst_nic))
    return pairs


class Flow:
    """The running flow of ``loss_flow``; ``results`` is filled when the ``with`` block ends."""

    def __init__(self, pairs, rate):
        self.pairs, self.rate = list(pairs), rate
        self.results = []
        self._procs = []

    @property
    def sent(self):
        return sum(r.sent for r in self.results)

    @property
    def lost(self):
        return sum(len(r.lost) for r in self.results)

    def report(self):
        """One line per pair: sent, lost, and the first lost sequence numbers (50 ms apart at 20/s)."""
        return "\n".join("%s: %d sent at %g/s, %d lost%s" % (
            r.pair.label, r.sent, self.rate, len(r.lost), " (sequence %s)" % r.lost[:20] if r.lost else "")
            for r in self.results)

    def _start(self, ready_timeout):
        by_source = collections.OrderedDict()
        for pair in self.pairs:
            by_source.setdefault(pair.src, []).append(pair)
        for src, pairs in by_source.items():
            argv = ["ip", "netns", "exec", src, sys.executable, PROBE, "flow", str(self.rate)]
            argv += ["%s=%s" % p.addresses for p in pairs]
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self._procs.append((proc, pairs))
        deadline = time.monotonic() + ready_timeout
        for proc, pairs in self._procs:
            ready, _w, _x = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready or '"ready"' not in proc.stdout.readline():
                for other, _pairs in self._procs:
                    other.kill()
                    other.communicate()
                self._procs = []
                raise TwinError("no reply within %gs on %s (%s): the flow needs a fabric that carries it"
                                % (ready_timeout, ", ".join(p.label for p in pairs), proc.stderr.read().strip()
                                   or "the probe got no answer"))

    def _stop(self):
        for proc, _pairs in self._procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        problems = []
        for proc, pairs in self._procs:
            try:
                out, err = proc.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
            try:
                counts = json.loads(out.strip().splitlines()[-1])
                self.results += [PairLoss(p, counts["%s>%s" % p.addresses]["sent"],
                                          counts["%s>%s" % p.addresses]["lost"]) for p in pairs]
            except (ValueError, IndexError, KeyError):
                problems.append("%s: probe exit %s: %s" % (pairs[0].src, proc.returncode, (err or out).strip()[-500:]))
        self._procs = []
        if problems:
            raise TwinError("; ".join(problems))


@contextmanager
def loss_flow(pairs, rate=20.0, ready_timeout=10.0):
    """Run ICMP flows on ``pairs`` (see cross_su_pairs) at ``rate`` packets per second each for the
    duration of the ``with`` block; yields a Flow whose ``results``, ``sent`` and ``lost`` hold the counts
    after the block. Needs root and a running twin."""
    flow = Flow(pairs, rate)
    flow._start(ready_timeout)
    try:
        yield flow
    finally:
        flow._stop()
