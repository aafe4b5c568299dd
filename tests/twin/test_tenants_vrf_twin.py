"""Tenants in VRF mode on the lab twin, end to end through playbooks/tenants.yml: isolate the open
fabric with a VRF per tenant, move lab-gpu0003 from alpha to beta. The move must flip exactly
the moved server's pairs (ICMP between every pair of same-rail NICs, measured), change exactly the
leaves that serve it (the play's changed hosts) and leave the isolation check passing; a second run
changes nothing. The twin's stand-in for VRFs is described in docs/twin.md (tenant VRFs).

Needs root, FRR, lldpd, redis and nftables; skipped with the reason otherwise. One bring-up; about 4 minutes.
"""
import json
import os

import pytest

from gpufabric import build, plan as planning, specfile, twin
from gpufabric.twin import daemons
from gpufabric.twin.run import run
from test_tenants_twin import ALL_AT_ONCE, EXAMPLES, HALVES, REASON, ROOT, expected, play, reach_matrix, tenants_of

pytestmark = pytest.mark.skipif(REASON is not None, reason="tenants on the twin: %s" % REASON)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    # Switches seeded from the build (not factory state): this file needs a running fabric, and a first
    # deploy of every switch would cost minutes; tests/twin/test_deploy_twin.py deploys from factory state.
    twin.up(wanted, timeout=60)
    yield plan, str(tmp_path_factory.mktemp("build"))
    state = twin.read_state(wanted.cluster) or {}
    twin.down(wanted.cluster, set(wanted.namespaces) | set(state.get("namespaces", ())))
    assert twin.leftovers(wanted.cluster, set(wanted.namespaces) | set(state.get("namespaces", ()))) == []


def leaves_of(plan, server):
    return {link.a.name for link in plan.device(server).links if link.network == "backend" and link.b.name == server}


def changed_switches(changed):
    return {h for h, n in changed.items() if n and h != "localhost"}


def test_vrf_isolation_move_and_back(lab):
    plan, build_dir = lab
    first = os.path.join(EXAMPLES, "lab-vrf.tenants.yml")
    moved = os.path.join(EXAMPLES, "lab-vrf-moved.tenants.yml")
    leaves = {d.name for d in plan.by_role("backend_leaf")}
    assert all(reach_matrix(plan).values()), "the open lab twin must reach on every rail first"

    code, changed, out = play(build_dir, first, *ALL_AT_ONCE)
    assert code == 0, out[-4000:]
    assert changed_switches(changed) == leaves
    isolated = reach_matrix(plan)
    assert isolated == expected(plan, tenants_of(first, plan))
    # The cross-tenant probe really dies in the sender's VRF: no route there.
    routes = run(["ip", "-n", "lab-r0-leaf01-Vrf-beta", "route", "show"]).stdout
    assert "10.0.0.0/31" not in routes and "10.0.0.32/31" not in routes and "10.0.0.34/31" in routes, routes
    # It got there as on a switch: the deploy role's config replace, config save and frr-reload. Each leaf keeps the
    # frr.conf it was given (FRR runs its translation, docs/twin.md) and has saved its VRFs.
    for leaf in sorted(leaves):
        with open(os.path.join(daemons.frr_dir(leaf), "frr.conf")) as f, \
                open(os.path.join(build_dir, "lab", "devices", leaf, "frr.conf")) as rendered:
            assert f.read() == rendered.read(), leaf
        with open("/etc/sonic/%s/config_db.json" % leaf) as f:
            assert json.load(f).get("VRF"), leaf

    # One move (the way back is the same change mirrored; test_tenants_twin moves in ACL mode).
    own = leaves_of(plan, "lab-gpu0003")
    code, changed, out = play(build_dir, moved, *HALVES)
    assert code == 0, out[-4000:]
    assert changed_switches(changed) == own, "only the moved server's leaves change"
    after = reach_matrix(plan)
    flipped = {k for k in after if after[k] != isolated[k]}
    assert flipped and all("lab-gpu0003" in (k[0], k[2]) for k in flipped)
    assert after == expected(plan, tenants_of(moved, plan))

    code, changed, out = play(build_dir, moved, *ALL_AT_ONCE)
    assert code == 0, out[-4000:]
    assert not any(changed.values()), changed
