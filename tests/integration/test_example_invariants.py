"""Invariants every example fabric keeps, counted from its cables rather than from the sizing that made
them: one owner per address, no port used twice or beyond the model, ECMP as wide as the uplinks, and
the oversubscription each tier declares (1:1 where non-blocking) found again on every full switch."""
import collections

import pytest

from conftest import EXAMPLES, load_example
from gpufabric.plan import build_plan
from gpufabric.plan.clos import ratio

_ROUTED = ("server", "leaf-spine", "spine-superspine", "superspine-core")


# Four tiers of 8-port switches with rail planes and several links between tiers: every index of the
# zone/plane arithmetic is exercised in a plan of a few hundred switches (not an example: no build).
_SW8 = {"port_groups": [{"count": 8, "speed": 400, "lanes": 4}]}
PLANES_4TIER_TINY = {
    "cluster": {"name": "p4t"}, "servers": {"count": 24},
    "backend": {"design": "rail_planes", "leaf": {"model": "sw8"}, "spine": {"model": "sw8", "count": 2},
                "superspine": {"model": "sw8", "count": 2}, "core": {"model": "sw8", "count": 2}},
    "models": {"switches": {"sw8": _SW8}},
}


@pytest.fixture(scope="module", params=EXAMPLES + ("planes-4tier-tiny",))
def plan(request):
    if request.param == "planes-4tier-tiny":
        return build_plan(PLANES_4TIER_TINY)
    return build_plan(load_example(request.param))


def test_every_routed_address_has_one_owner(plan):
    seen = collections.Counter(link.ipv4 for link in plan.links if link.tier in _ROUTED and link.ipv4 is not None)
    assert seen and max(seen.values()) == 1
    routed = [link for link in plan.links if link.network == "backend" and link.tier in _ROUTED]
    assert all(link.ipv4 is not None and link.ipv4 % 2 == 0 for link in routed)
    loopbacks = [d.loopback for d in plan.devices if d.loopback is not None]
    assert len(loopbacks) == len(set(loopbacks))


def test_no_port_is_cabled_twice_or_missing_from_its_model(plan):
    for dev in plan.devices:
        ports = [end.port for end in dev.ends()]
        assert len(ports) == len(set(ports)), dev.name
        if dev.role != "gpu_server":
            names = {p[0] for p in dev.model.ports} | {dev.model.mgmt_port}
            assert set(ports) <= names, dev.name


def _up_down(dev):
    up = [e for e in dev.ends() if e.link.network == "backend" and not e.is_upper and e.link.tier != "oob"]
    down = [e for e in dev.ends() if e.link.network == "backend" and e.is_upper]
    return up, down


def test_ecmp_is_as_wide_as_the_uplinks(plan):
    clos = plan.sizing.backend
    if clos.tiers < 2:
        return
    for leaf in plan.backend.leaves:
        assert len(leaf.bgp_ends()) == clos.uplinks, leaf.name
        # one session per uplink, spread evenly over the spines of its group
        per_spine = collections.Counter(e.peer.name for e in leaf.bgp_ends())
        assert set(per_spine.values()) == {clos.links_to_each_spine} and len(per_spine) == clos.spines_per_group
    for spine in plan.backend.spines:
        up, _down = _up_down(spine)
        assert len(up) == (len(clos.spine_up) if clos.tiers >= 3 else 0), spine.name
        assert set(collections.Counter(e.peer.name for e in up).values()) <= {clos.links_to_each_superspine}
    for sup in plan.backend.superspines:
        up, _down = _up_down(sup)
        assert len(up) == (len(clos.super_up) if clos.tiers == 4 else 0), sup.name
        per_core = collections.Counter(e.peer.name for e in up)
        assert set(per_core.values()) <= {clos.links_to_each_core} and len(per_core) == clos.cores_per_plane


def test_each_full_switch_has_the_declared_oversubscription(plan):
    clos, declared = plan.sizing.backend, plan.summary["backend"]["oversubscription"]
    full = {"leaf": len(clos.leaf_down), "spine": len(clos.spine_down), "superspine": len(clos.super_down)}
    checked = collections.Counter()
    for tier, devices in (("leaf", plan.backend.leaves), ("spine", plan.backend.spines),
                          ("superspine", plan.backend.superspines)):
        if tier not in declared:
            continue
        for dev in devices:
            up, down = _up_down(dev)
            if len(down) < full[tier]:
                continue            # the last, partly filled unit or pod
            assert ratio(sum(e.link.speed for e in down), sum(e.link.speed for e in up)) == declared[tier], dev.name
            checked[tier] += 1
    # each declared tier was checked on at least one full switch (a tier of one partial pod or zone has none)
    assert checked["leaf"] or "leaf" not in declared
    assert checked["spine"] or "spine" not in declared or plan.sizing.backend_pods == 1
    assert checked["superspine"] or "superspine" not in declared or plan.sizing.backend_zones == 1


def test_pods_hold_the_leaves_their_spines_serve(plan):
    clos = plan.sizing.backend
    if clos.tiers < 3:
        return
    per_pod = collections.Counter((leaf.plane, leaf.pod) for leaf in plan.backend.leaves)
    last = max(pod for _plane, pod in per_pod)
    assert all(n == clos.leaves_per_pod for (_plane, pod), n in per_pod.items() if pod < last)
    for spine in plan.backend.spines:
        _up, down = _up_down(spine)
        assert {e.peer.pod for e in down} == {spine.pod}
        assert len(down) == per_pod[(spine.plane, spine.pod)] * clos.links_to_each_spine


def test_zones_hold_the_pods_their_superspines_serve(plan):
    clos = plan.sizing.backend
    if clos.tiers < 4:
        return
    for sup in plan.backend.superspines:
        _up, down = _up_down(sup)
        pods = {e.peer.pod for e in down}
        assert {pod // clos.pods_per_zone for pod in pods} <= {sup.zone}
    for core in plan.backend.cores:
        _up, down = _up_down(core)
        zones = collections.Counter(e.peer.zone for e in down)
        assert len(zones) == plan.sizing.backend_zones and set(zones.values()) == {clos.links_to_each_core}


def test_rail_planes_keep_every_switch_cable_in_one_rail(plan):
    if plan.sizing.design != "rail_planes":
        return
    fabric = [link for link in plan.links if link.network == "backend" and link.tier != "server"]
    assert fabric and all(link.a.rail is not None and link.a.rail == link.b.rail for link in fabric)
