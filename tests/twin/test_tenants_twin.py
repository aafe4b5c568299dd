"""Tenants on the lab twin, end to end through playbooks/tenants.yml: isolate an open fabric, move one
server (check mode first), run again, refuse a bad assignment. Reachability is measured with ICMP between every pair of
same-rail NICs, before and after.

Needs root, FRR, lldpd and nftables; skipped with the reason otherwise. About 2 minutes.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from gpufabric import build, plan as planning, specfile, twin
from gpufabric.tenants import load_assignment, plan_servers
from gpufabric.tenants.change import plan_change
from gpufabric.tenants.reach import rail_nics
from gpufabric.tenants.state import running_path
from gpufabric.twin import nftables
from gpufabric.twin.run import run_many
from gpufabric.validate import probe as probe_module

PROBE = probe_module.__file__

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "tenants")
REASON = twin.preflight() or (None if shutil.which("nft") else "nft is missing (apt-get install nftables)")
pytestmark = pytest.mark.skipif(REASON is not None, reason="tenants on the twin: %s" % REASON)
ALL_AT_ONCE = ("-e", "tenant_leaf_serial=100%")
HALVES = ("-e", "tenant_leaf_serial=50%")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    # Switches seeded from the build (not factory state): this file needs a running fabric, and a first
    # deploy of every switch would cost minutes; tests/twin/test_deploy_twin.py deploys from factory state.
    twin.up(wanted, timeout=60)
    yield plan, str(tmp_path_factory.mktemp("build"))
    twin.down(wanted.cluster, wanted.namespaces)


def play(build_dir, assignment, *extra):
    """(return code, {host: changed count}, stdout) of playbooks/tenants.yml on the lab twin."""
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="ansible.posix.json", ANSIBLE_DEPRECATION_WARNINGS="false")
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                           os.path.join(ROOT, "inventories", "lab-twin"), os.path.join(ROOT, "playbooks", "tenants.yml"),
                           "-e", "tenants=%s" % assignment, "-e", "build_dir=%s" % build_dir] + list(extra),
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    stats = json.loads(proc.stdout[proc.stdout.index("{"):])["stats"] if "{" in proc.stdout else {}
    return proc.returncode, {host: s["changed"] for host, s in stats.items()}, proc.stdout + proc.stderr


def reach_matrix(plan):
    """{(server, rail, other server): answered} for ICMP between same-rail NICs of different servers."""
    nics = rail_nics(plan)
    jobs, keys = [], []
    for server, found in sorted(nics.items()):
        args = []
        for nic in found:
            dsts = [d for other, ds in sorted(nics.items()) if other != server for d in ds if d.rail == nic.rail]
            args.append("%s=%s" % (nic.address, ",".join(d.address for d in dsts)))
            keys += [(server, nic.rail, d.server, nic.address, d.address) for d in dsts]
        jobs.append((["ip", "netns", "exec", server, sys.executable, PROBE, "2"] + args, None))
    got = {}
    for proc in run_many(jobs):
        got.update(json.loads(proc.stdout))
    return {(s, r, o): got["%s>%s" % (a, b)] for s, r, o, a, b in keys}


def tenants_of(path, plan):
    return load_assignment(path, plan_servers(plan))


def expected(plan, assignment):
    """Same-tenant pairs reach, every other pair does not: the plain rule, not the ACLs."""
    return {(s, r, o): assignment.tenant_of(s) == assignment.tenant_of(o) != "free"
            for (s, r, o) in reach_matrix_keys(plan)}


def reach_matrix_keys(plan):
    nics = rail_nics(plan)
    return [(s, n.rail, o) for s, found in nics.items() for n in found for o in nics if o != s]


def acl_digests(plan):
    leaves = [d.name for d in plan.by_role("backend_leaf")]
    return {ns: nftables.digest_of(text) for ns, text in nftables.current(leaves).items()}


def test_isolate_move_repeat_and_refuse(lab):
    plan, build_dir = lab
    first = os.path.join(EXAMPLES, "lab.tenants.yml")
    moved = os.path.join(EXAMPLES, "lab-moved.tenants.yml")
    leaves = {d.name for d in plan.by_role("backend_leaf")}
    open_fabric = reach_matrix(plan)
    assert all(open_fabric.values()), "the open lab twin must reach on every rail first"

    # Isolate the open fabric: every rail leaf changes, nothing else; pairs reach exactly within tenants.
    # (Batch sizes here are the test's: the phases' order, not the batches, is what this file checks; the default 25%
    # would run each phase in four batches of the same tasks.)
    code, changed, out = play(build_dir, first, *ALL_AT_ONCE)
    assert code == 0, out[-3000:]
    assert {h for h, n in changed.items() if n and h != "localhost"} == leaves
    isolated = reach_matrix(plan)
    assert isolated == expected(plan, tenants_of(first, plan))
    assert any(isolated.values()) and not all(isolated.values())

    # Check mode shows the move (the planned switches report a change) and applies nothing.
    planned = plan_change(plan, tenants_of(first, plan), tenants_of(moved, plan))
    assert [m["server"] for m in planned["moves"]] == ["lab-gpu0003"]
    switches = {h for phase in planned["phases"] for h in phase["hosts"]}
    digests = acl_digests(plan)
    code, changed, out = play(build_dir, moved, "--check", "--diff", *ALL_AT_ONCE)
    assert code == 0, out[-3000:]
    assert {h for h, n in changed.items() if n and h != "localhost"} == switches
    assert "server lab-gpu0003: alpha -> tenant beta" in out
    assert acl_digests(plan) == digests and reach_matrix(plan) == isolated
    assert load_assignment(running_path(build_dir, "lab"), plan_servers(plan)) == tenants_of(first, plan)

    # Move lab-gpu0003 from alpha to beta: exactly its pairs flip; the changed switches are the planned ones.
    code, changed, out = play(build_dir, moved, *HALVES)
    assert code == 0, out[-3000:]
    assert {h for h, n in changed.items() if n and h != "localhost"} == switches
    after = reach_matrix(plan)
    flipped = {k for k in after if after[k] != isolated[k]}
    assert flipped and all("lab-gpu0003" in (k[0], k[2]) for k in flipped)
    assert after == expected(plan, tenants_of(moved, plan))

    # A second run changes nothing anywhere.
    code, changed, out = play(build_dir, moved, *ALL_AT_ONCE)
    assert code == 0, out[-3000:]
    assert not any(changed.values()), changed

    # A bad assignment names its entries and changes nothing: not the running state, not one leaf.
    bad = os.path.join(build_dir, "bad.tenants.yml")
    with open(bad, "w") as f:
        f.write("tenants:\n  alpha: {servers: [lab-gpu0001, lab-gpu0009]}\n  beta: {servers: [lab-gpu0001]}\n")
    with open(running_path(build_dir, "lab")) as f:
        running = f.read()
    digests = acl_digests(plan)
    code, changed, out = play(build_dir, bad)
    assert code != 0
    assert "tenants.alpha.servers[1]: lab-gpu0009 is not a server of lab" in out
    assert "tenants.beta.servers[0]: lab-gpu0001 is already in tenant alpha" in out
    assert not any(changed.values())
    with open(running_path(build_dir, "lab")) as f:
        assert f.read() == running
    assert acl_digests(plan) == digests

    # Stateless (AWX): a job with no build directory reads the running assignment from the leaves and
    # changes nothing; the leaves' ACLs came through config replace into CONFIG_DB, as on a switch.
    shutil.rmtree(build_dir)
    code, changed, out = play(build_dir, moved)
    assert code == 0, out[-3000:]
    assert not any(changed.values()), changed
    assert "no change: the running tenant assignment is the new one" in out
    assert acl_digests(plan) == digests
