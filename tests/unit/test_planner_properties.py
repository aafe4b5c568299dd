"""Invariants of the planner, checked over many generated specs."""
import ipaddress

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufabric.errors import SpecError
from gpufabric.plan import build_plan


def switch(ports, speed=400):
    return {"port_groups": [{"count": ports, "speed": speed, "lanes": 4}]}


def server(gpus):
    return {"gpus": gpus, "backend_nics": [{"name": "nic%d" % i, "speed": 400} for i in range(gpus)],
            "frontend_ports": [{"name": "fe0", "speed": 25}, {"name": "fe1", "speed": 25}],
            "mgmt_port": {"name": "mgmt", "speed": 1}, "bmc_port": {"name": "bmc", "speed": 1}}


@st.composite
def specs(draw):
    gpus = draw(st.sampled_from([2, 4, 8]))
    design = draw(st.sampled_from(["rail_optimized", "rail_planes", "rail_only", "top_of_rack"]))
    if design == "top_of_rack":
        # a leaf takes every GPU of whole servers (at least 4 downlinks here) and stands in their rack
        gpus = min(gpus, 4)
    k = draw(st.sampled_from([8, 12, 16]))
    spec = {
        "cluster": {"name": "t"},
        "servers": {"model": "srv", "count": draw(st.integers(1, 40)),
                    "per_rack": 1 if design == "top_of_rack" else draw(st.integers(1, 4))},
        "backend": {"design": design, "leaf": {"model": "sw"}},
        "models": {"switches": {"sw": switch(k)}, "servers": {"srv": server(gpus)}},
    }
    if design != "rail_only":
        spec["backend"]["spine"] = {"model": "sw"}
        if draw(st.booleans()):
            spec["backend"]["spine"].update(downlinks=k // 2, uplinks=k // 2)
            spec["backend"]["superspine"] = {"model": "sw", "count": draw(st.sampled_from([1, 2, k // 2]))}
    if draw(st.booleans()):
        spec["frontend"] = {"leaf": {"model": "S5296F-ON", "downlinks": draw(st.integers(2, 12))},
                            "spine": {"model": "S5232F-ON"}}
    return spec


def plan_or_none(spec):
    try:
        return build_plan(spec)
    except SpecError as exc:
        # Only the capacity errors may stop a generated spec; anything else is a planner bug.
        assert "holds" in str(exc) or "needs" in str(exc), str(exc)
        return None


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(specs())
def test_every_31_unique_with_both_ends_inside(spec):
    plan = plan_or_none(spec)
    if plan is None:
        return
    seen = set()
    for link in plan.links:
        if link.ipv4 is None:
            continue
        net = ipaddress.ip_network("%s/31" % ipaddress.IPv4Address(link.ipv4))
        assert net not in seen, "%s used twice" % net
        seen.add(net)
        assert ipaddress.IPv4Address(link.ipv4 + 1) in net and ipaddress.IPv4Address(link.ipv4) in net


@SETTINGS
@given(specs())
def test_no_port_used_twice_or_past_the_model(spec):
    plan = plan_or_none(spec)
    if plan is None:
        return
    used = set()
    for link in plan.links:
        for dev, port in ((link.a, link.a_port), (link.b, link.b_port)):
            assert (dev.name, port) not in used, "%s %s cabled twice" % (dev.name, port)
            used.add((dev.name, port))
            if dev.role != "gpu_server":
                names = [p[0] for p in dev.model.ports] + [dev.model.mgmt_port]
                assert port in names, "%s has no port %s" % (dev.name, port)


@SETTINGS
@given(specs())
def test_nic_i_lands_on_a_rail_i_leaf(spec):
    plan = plan_or_none(spec)
    if plan is None:
        return
    nics = [n["name"] for n in plan.catalog.servers["srv"].backend_nics]
    leaves_of = {}
    for link in plan.links:
        if link.network == "backend" and link.tier == "server":
            assert link.a.role == "backend_leaf"
            if spec["backend"]["design"] == "top_of_rack":
                # every NIC of a server on one leaf, standing in the first server rack of its unit
                assert link.a.rail is None and link.a.rack.kind == "server" and link.a.rack.row == link.b.rack.row
                leaves_of.setdefault(link.b.name, set()).add(link.a.name)
            else:
                assert nics.index(link.b_port) == link.a.rail
    assert all(len(leaves) == 1 for leaves in leaves_of.values())


@SETTINGS
@given(specs())
def test_rail_planes_spines_see_only_their_rail(spec):
    plan = plan_or_none(spec)
    if plan is None or spec["backend"]["design"] != "rail_planes":
        return
    for link in plan.links:
        if link.network == "backend" and link.tier != "server":
            assert link.a.rail == link.b.rail, "%s - %s crosses rails" % (link.a.name, link.b.name)


def _allocations(plan):
    out = {}
    for dev in plan.devices:
        out[dev.name] = (dev.asn, dev.loopback, dev.mgmt, dev.bmc, dev.frontend_ip, dev.rack.name, dev.slot)
    for link in plan.links:
        out[(link.a.name, link.a_port)] = (link.b.name, link.b_port, link.ipv4)
    return out


@SETTINGS
@given(specs(), st.integers(1, 60))
def test_growing_keeps_every_earlier_allocation(spec, extra):
    small = plan_or_none(spec)
    if small is None:
        return
    spec["servers"]["count"] += extra
    big = plan_or_none(spec)
    if big is None:
        return
    before, after = _allocations(small), _allocations(big)
    for key, value in before.items():
        assert after.get(key) == value, "%s changed from %s to %s" % (key, value, after.get(key))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([8, 16, 32, 64]), st.booleans())
def test_full_fat_tree_counts_match_the_arithmetic(k, three_tiers):
    """A full non-blocking fat tree of k-port switches: k^2/2 hosts in two tiers with 2N/k leaves and
    N/k spines; k^3/4 hosts in three tiers with 2N/k leaves, 2N/k spines and N/k superspines."""
    gpus = 8 if k >= 16 else 4
    hosts = k ** 3 // 4 if three_tiers else k ** 2 // 2
    if hosts > 70000:
        return
    backend = {"design": "rail_optimized", "leaf": {"model": "sw"}, "spine": {"model": "sw"}}
    if three_tiers:
        backend["spine"].update(downlinks=k // 2, uplinks=k // 2)
        backend["superspine"] = {"model": "sw"}
    spec = {"cluster": {"name": "ft"}, "servers": {"model": "srv", "count": hosts // gpus},
            "backend": backend, "oob": {"pool": "10.128.0.0/9"},
            "models": {"switches": {"sw": switch(k)}, "servers": {"srv": server(gpus)}}}
    s = build_plan(spec).summary
    roles = s["devices_by_role"]
    n = s["gpus"]
    assert n == hosts
    assert roles["backend_leaf"] == 2 * n // k
    assert roles["backend_spine"] == (2 * n // k if three_tiers else n // k)
    assert roles["backend_superspine"] == (n // k if three_tiers else 0)
    assert s["backend"]["max_gpus"] == hosts
    assert s["backend"]["oversubscription"]["leaf"] == "1:1"


@SETTINGS
@given(specs())
def test_frontend_addresses_are_hosts_of_their_pair_subnet(spec):
    plan = plan_or_none(spec)
    if plan is None or spec.get("frontend") is None:
        return
    for dev in plan.devices:
        if dev.frontend_ip is None:
            continue
        base, prefix = dev.frontend_block
        broadcast = base + (1 << (32 - prefix)) - 1
        assert base + 1 < dev.frontend_ip < broadcast, "%s frontend address is not a host address" % dev.name


# Breakouts: 800G switches under 400G/200G/800G NICs, ports broken out by the planner (or the spec).

def switch_800g(ports):
    return {"port_groups": [{"count": ports, "speed": 800, "lanes": 8, "breakouts": ["1x800G", "2x400G", "4x200G"]}]}


def server_at(gpus, speed):
    out = server(gpus)
    for nic in out["backend_nics"]:
        nic["speed"] = speed
    return out


@st.composite
def breakout_specs(draw):
    gpus = draw(st.sampled_from([2, 4, 8]))
    design = draw(st.sampled_from(["rail_optimized", "rail_planes", "rail_only"]))
    nic = draw(st.sampled_from([200, 400, 800]))
    k = draw(st.sampled_from([8, 16]))
    spec = {
        "cluster": {"name": "b"},
        "servers": {"model": "srv", "count": draw(st.integers(1, 48)), "per_rack": draw(st.integers(1, 4))},
        "backend": {"design": design, "leaf": {"model": "sw"}},
        "models": {"switches": {"sw": switch_800g(k)}, "servers": {"srv": server_at(gpus, nic)}},
    }
    if design != "rail_only":
        spec["backend"]["spine"] = {"model": "sw"}
        if draw(st.booleans()):
            # leaf uplinks broken out too: the spines break their downlinks out to meet them
            spec["backend"]["leaf"]["uplink_breakout"] = "2x400G"
    return spec


def breakout_plan_or_none(spec):
    try:
        return build_plan(spec)
    except SpecError as exc:
        assert "holds" in str(exc) or "needs" in str(exc), str(exc)
        return None


def _cage(dev, port):
    cage_of = getattr(dev.model, "cage_of", None)
    return cage_of(port) if cage_of else (port, 0, 1, None)


@SETTINGS
@given(breakout_specs())
def test_no_physical_port_carries_two_rails(spec):
    plan = breakout_plan_or_none(spec)
    if plan is None:
        return
    nics = [n["name"] for n in plan.catalog.servers["srv"].backend_nics]
    rails = {}
    broken = 0
    for link in plan.links:
        if link.network == "backend" and link.tier == "server":
            cage = _cage(link.a, link.a_port)
            broken += cage[3] is not None
            rails.setdefault((link.a.name, cage[0]), set()).add(nics.index(link.b_port))
        elif link.network == "backend" and link.a.rail is not None:
            # rail planes: a spine's broken-out cage still faces leaves of its one rail
            rails.setdefault((link.a.name, _cage(link.a, link.a_port)[0]), set()).add(link.b.rail)
    assert all(len(r) == 1 for r in rails.values()), [k for k, r in rails.items() if len(r) > 1][:3]
    nic_speed = plan.catalog.servers["srv"].backend_nics[0]["speed"]
    assert (broken > 0) == (nic_speed < 800)     # the NIC speed alone decides the leaf's breakout


def _breakout_allocations(plan):
    out = {}
    for link in plan.links:
        for dev, port, peer, peer_port in ((link.a, link.a_port, link.b, link.b_port),
                                           (link.b, link.b_port, link.a, link.a_port)):
            out[(dev.name, port)] = (peer.name, peer_port, link.ipv4, _cage(dev, port))
    return out


@SETTINGS
@given(breakout_specs(), st.integers(1, 60))
def test_growing_never_renumbers_a_31_or_a_breakout(spec, extra):
    small = breakout_plan_or_none(spec)
    if small is None:
        return
    spec["servers"]["count"] += extra
    big = breakout_plan_or_none(spec)
    if big is None:
        return
    before, after = _breakout_allocations(small), _breakout_allocations(big)
    for key, value in before.items():
        assert after.get(key) == value, "%s changed from %s to %s" % (key, value, after.get(key))
