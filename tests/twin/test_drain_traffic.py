"""Drain under traffic on the lab twin: pings at 20/s on every rail between two servers of different scalable
units while a spine is drained, its BGP daemon hard-restarted (killed and started again: the disruptive step;
since frr-reload no longer resets sessions a reload is not one) and undrained with playbooks/maintenance.yml;
then the same step without the drain. The loss of each run is printed; the drained run must stay under a small
bound and lose less than the undrained one.

Needs root, FRR and lldpd; skipped otherwise. About 2 minutes.
"""
import os
import re
import signal
import subprocess
import sys

import pytest

from gpufabric import build, specfile, twin
from gpufabric.plan import build_plan

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
SPINE = "lab-spine01"
# Inside the netns connection /run/frr and /etc/frr are the spine's own pathspace: SIGKILL (no NOTIFICATION,
# as a crash or a power cut), then bgpd started again and the integrated config loaded, as FRR's init does.
HARD_RESTART = ("kill -9 $(cat /run/frr/bgpd.pid); sleep 1; /usr/lib/frr/bgpd -d -P 0; sleep 1; vtysh -b")
# Packets lost with the drain, out of about 8 rails x 20/s x the run's length.
DRAINED_LOSS_MAX = 2


@pytest.fixture(scope="module")
def lab():
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    twin.up(wanted, timeout=60)
    yield plan
    twin.down(wanted.cluster, wanted.namespaces)


def _rail_pairs(plan, a, b):
    """[(src address, dst address)] of servers a and b on every rail (from the plan's server links)."""
    nics = {}
    for link in plan.links:
        if link.network == "backend" and link.tier == "server":
            server, offset = (link.b, 1) if link.b.role == "gpu_server" else (link.a, 0)
            leaf = link.a if server is link.b else link.b
            ip = link.ipv4 + offset
            nics.setdefault(server.name, {})[leaf.rail] = "%d.%d.%d.%d" % (ip >> 24, ip >> 16 & 255, ip >> 8 & 255, ip & 255)
    return [(nics[a][r], nics[b][r]) for r in sorted(nics[a])]


def _under_traffic(plan, extra_vars):
    servers = [d for d in plan.by_role("gpu_server")]
    a = servers[0]
    b = next(d for d in servers if d.su != a.su)
    pings = [subprocess.Popen(["ip", "netns", "exec", a.name, "ping", "-n", "-q", "-i", "0.05", "-W", "1", "-I", src, dst],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for src, dst in _rail_pairs(plan, a.name, b.name)]
    try:
        run = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                              os.path.join(ROOT, "inventories", "lab-twin"),
                              os.path.join(ROOT, "playbooks", "maintenance.yml"), "-e", "switches=" + SPINE,
                              "-e", "maintenance_command='%s'" % HARD_RESTART] + extra_vars,
                             cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    finally:
        for p in pings:
            p.send_signal(signal.SIGINT)
    sent = lost = 0
    for p in pings:
        out = p.communicate(timeout=10)[0]
        m = re.search(r"(\d+) packets transmitted, (\d+) received", out)
        assert m, out
        sent += int(m.group(1))
        lost += int(m.group(1)) - int(m.group(2))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    return sent, lost


def test_drained_spine_restart_loses_almost_nothing_undrained_loses_more(lab):
    sent_d, lost_d = _under_traffic(lab, [])
    sent_u, lost_u = _under_traffic(lab, ["-e", "maintenance_drain=false"])
    print("\n%s hard restart under 8 x 20 pkt/s cross-SU pings: drained %d lost of %d; not drained %d lost of %d"
          % (SPINE, lost_d, sent_d, lost_u, sent_u))
    assert sent_d > 8 * 20 * 5 and sent_u > 8 * 20 * 5
    assert lost_d <= DRAINED_LOSS_MAX
    assert lost_u > lost_d
