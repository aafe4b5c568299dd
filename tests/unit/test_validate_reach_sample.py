"""Reachability probes on a large fabric: a sample linear in its size that still covers every path."""
import itertools

import pytest
from conftest import load_example

from gpufabric.plan import build_plan
from gpufabric.validate import expect as expect_module
from gpufabric.validate.expect import Expectation


@pytest.fixture(scope="module")
def superpod():
    return build_plan(load_example("superpod-1k"))      # 128 servers: above the all-pairs limit


def _probes(plan):
    exp = Expectation(plan)
    servers = [d.name for d in plan.devices if d.role == "gpu_server"]
    return exp, servers, {d: exp.reach_probes(d) for d in servers}


def test_the_sample_reaches_every_nic_and_every_leaf_pair_of_each_rail(superpod):
    exp, servers, probes = _probes(superpod)
    assert len(servers) > expect_module.REACH_ALL_PAIRS_UP_TO
    leaf_of = {n.ipv4.split("/")[0]: (n.rail, n.peer) for s in servers for n in exp.server_nics(s)}
    sent = [(leaf_of[src], leaf_of[dst]) for got in probes.values() for src, dst, _wanted, _label in got]
    assert {dst for got in probes.values() for _src, dst, _w, _l in got} == set(leaf_of)
    leaves = {}
    for rail, leaf in leaf_of.values():
        leaves.setdefault(rail, set()).add(leaf)
    wanted_pairs = {((rail, a), (rail, b)) for rail, names in leaves.items() for a, b in itertools.product(names, names)}
    assert wanted_pairs <= set(sent)
    assert all(src_rail == dst_rail for (src_rail, _a), (dst_rail, _b) in sent)   # rail_optimized: same rail only


def test_the_sample_is_linear_and_all_pairs_stay_below_the_limit(superpod, monkeypatch):
    _exp, servers, probes = _probes(superpod)
    rails = 8
    sampled = sum(len(p) for p in probes.values())
    monkeypatch.setattr(expect_module, "REACH_ALL_PAIRS_UP_TO", len(servers))
    _exp, _servers, every = _probes(superpod)
    assert sum(len(p) for p in every.values()) == len(servers) * (len(servers) - 1) * rails
    assert sampled < len(servers) * rails * 40          # per NIC: its leaf's servers plus one per other leaf


def test_sampled_rail_planes_still_probe_every_other_rail_unanswered(monkeypatch):
    plan = build_plan(load_example("planes-3tier-small"))
    exp = Expectation(plan)
    server = next(d.name for d in plan.devices if d.role == "gpu_server")
    full = exp.reach_probes(server)
    monkeypatch.setattr(expect_module, "REACH_ALL_PAIRS_UP_TO", 0)
    sampled = Expectation(plan).reach_probes(server)
    rails = {label.split(" rail ")[1].split(" ")[0] for _s, _d, _w, label in full}
    for rail in rails:
        mine = [p for p in sampled if p[3].startswith("%s rail %s " % (server, rail))]
        far_rails = {p[3].rsplit(" rail ", 1)[1] for p in mine if not p[2]}
        assert far_rails == rails - {rail}
    assert len(sampled) < len(full)
