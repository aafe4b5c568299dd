"""One test per class of bad input: each names the key path and says what would be right."""
import copy

import pytest

from gpufabric.errors import SpecError
from gpufabric.plan import build_plan
from conftest import load_example


def error_of(spec):
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    msg = str(info.value)
    assert "\n" not in msg, "errors are one line"
    return info.value


def lab(**changes):
    spec = copy.deepcopy(load_example("lab"))
    for path, value in changes.items():
        node = spec
        keys = path.split("__")
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        if value is None:
            node.pop(keys[-1], None)
        else:
            node[keys[-1]] = value
    return spec


def test_unknown_key_suggests_the_closest():
    err = error_of(lab(backend__leaf__downlink=2))
    assert err.path == "backend.leaf.downlink"
    assert "did you mean 'downlinks'" in str(err)


def test_unknown_top_level_section():
    err = error_of(lab(frontned={}))
    assert err.path == "frontned" and "did you mean 'frontend'" in str(err)


def test_wrong_type():
    err = error_of(lab(servers__count="four"))
    assert err.path == "servers.count" and "expected an integer" in str(err)


def test_wrong_choice():
    err = error_of(lab(backend__design="rail_optimised"))
    assert err.path == "backend.design" and "did you mean 'rail_optimized'" in str(err)


def test_missing_key():
    err = error_of(lab(servers__count=None))
    assert err.path == "servers.count" and "missing required key" in str(err)


def test_unknown_model():
    err = error_of(lab(backend__leaf={"model": "Z9332F"}))
    assert err.path == "backend.leaf.model" and "did you mean 'Z9332F-ON'" in str(err)


def test_radix_exceeded_on_a_leaf():
    err = error_of(lab(backend__leaf={"model": "Z9332F-ON", "downlinks": 24, "uplinks": 10}))
    assert err.path == "backend.leaf.uplinks"
    assert "Z9332F-ON has 8 ports left after 24 downlinks" in str(err)


def test_rail_only_capacity_says_the_limit_and_the_way_out():
    spec = lab(backend__design="rail_only", backend__spine=None, backend__leaf={"model": "generic-128x400g"},
               servers__count=129, oob__pool="10.250.0.0/16")
    err = error_of(spec)
    assert str(err) == ("servers.count: rail_only with 128-port switches holds at most 1024 GPUs; the spec asks "
                        "for 1032: use rail_optimized or a larger switch")


def test_two_tiers_that_cannot_reach_every_spine():
    spec = copy.deepcopy(load_example("metalsoft-16k"))
    del spec["backend"]["superspine"]
    spec["backend"]["spine"] = {"model": "Z9664F-ON"}
    err = error_of(spec)
    assert err.path == "backend"
    assert "needs 86 leaves in each plane" in str(err) and "add backend.superspine" in str(err)
    assert "at most 1536 servers" in str(err)


def test_pools_overlapping():
    err = error_of(lab(backend__pools={"leaf_spine": "10.0.0.0/16"}))
    assert "overlaps" in str(err) and "backend.pools" in str(err)


def test_pool_too_small_says_needed_and_available():
    err = error_of(lab(backend__pools={"server_links": "10.0.0.0/28"}))
    assert err.path == "backend.pools.server_links"
    assert "need 64 addresses, it has 16" in str(err) and "/26" in str(err)


def test_management_pool_too_small():
    err = error_of(lab(oob__pool="192.168.0.0/26", servers__count=16))
    assert err.path == "oob.pool" and "too small" in str(err)


def test_asn_range_exhausted():
    err = error_of(lab(backend__asn_pool="65000-65010"))
    assert err.path == "backend.asn_pool" and "exhausted" in str(err) and "needs 18 ASNs" in str(err)


def test_duplicate_names_from_a_pattern():
    err = error_of(lab(cluster__hostnames={"backend_leaf": "{cluster}-leaf{n}"}))
    assert err.path == "cluster.hostnames.backend_leaf"
    assert "gives the name 'lab-leaf1' to two devices" in str(err)


def test_pattern_with_an_unknown_field():
    err = error_of(lab(cluster__hostnames={"server": "{cluster}-{row}"}))
    assert err.path == "cluster.hostnames.server" and "fields for this role" in str(err)


def test_spine_count_must_divide_uplinks():
    err = error_of(lab(backend__spine={"model": "Z9664F-ON", "count": 3}))
    assert err.path == "backend.spine.count" and "divisor of 2" in str(err)


def test_speed_mismatch():
    err = error_of(lab(backend__leaf={"model": "S5232F-ON", "downlinks": 2, "uplinks": 2}))
    assert err.path == "backend.leaf.model" and "400" in str(err) and "100" in str(err)


def test_rail_only_counts_the_ports_that_face_gpus():
    # a Z9332F-ON has 32 x 400G ports and two 10G ports that carry no GPU
    spec = lab(backend__design="rail_only", backend__spine=None, backend__leaf={"model": "Z9332F-ON"},
               servers__count=33)
    assert "rail_only with 32-port switches holds at most 256 GPUs" in str(error_of(spec))


def test_three_tier_limit_advice_matches_the_superspine_count():
    spec = copy.deepcopy(load_example("metalsoft-16k"))
    spec["servers"]["count"] = 60000
    spec["frontend"] = None
    msg = str(error_of(spec))
    # 8 links from each spine to each superspine: more superspines would add pods
    assert "three-tier" in msg and "raise backend.superspine.count up to 32" in msg
    spec["backend"]["superspine"]["count"] = 32
    msg = str(error_of(spec))
    assert "more superspines cannot add pods" in msg and "raise" not in msg
