"""structured/switch.py: every switch's structured config of the examples (with tenants in both isolation
modes, a drain and MC-LAG/OOB roles) matches the declared schema, and a departure is named by path."""
import copy

import pytest
from conftest import load_example

from gpufabric import nos_registry as nos
from gpufabric.build import renderer
from gpufabric.plan import build_plan
from gpufabric.structured import structured_configs
from gpufabric.structured.switch import SCHEMA_VERSION, check_reader, schema_errors
from gpufabric.tenants import attach, parse_assignment, plan_servers

EXAMPLES = ("lab", "tor-lab", "planes-3tier-small", "railonly-small", "th5-1k")


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_switch_config_of_an_example_matches_the_schema(name):
    cfgs = structured_configs(build_plan(load_example(name)))
    assert cfgs
    assert [e for cfg in cfgs.values() for e in schema_errors(cfg)] == []


@pytest.mark.parametrize("mode", ["acl", "vrf"])
def test_tenant_isolation_and_drain_match_the_schema(mode):
    spec = load_example("lab")
    plan = build_plan(spec)
    servers = plan_servers(plan)
    attach(plan, parse_assignment({"isolation": mode, "tenants": {"alpha": {"id": 1, "servers": servers[:2]}}},
                                  servers))
    cfgs = structured_configs(plan)
    assert any("tenant_isolation" in cfg for cfg in cfgs.values())
    assert [e for cfg in cfgs.values() for e in schema_errors(cfg)] == []


def test_a_departure_is_named_by_its_path():
    cfg = copy.deepcopy(next(iter(structured_configs(build_plan(load_example("lab"))).values())))
    cfg["ethernet_interfaces"][0]["mtu"] = "9100"
    del cfg["management"]
    cfg["colour"] = "blue"
    assert sorted(schema_errors(cfg)) == sorted([
        "switch: unknown key 'colour'", "switch.management: missing",
        "switch.ethernet_interfaces[0].mtu: '9100' is not int"])


def test_every_nos_home_reads_this_schema_version():
    for name in nos.HOMES:
        assert renderer(name).STRUCTURED_SCHEMA[0] == SCHEMA_VERSION[0]
    check_reader("x", SCHEMA_VERSION)
    with pytest.raises(ValueError, match="nos x reads structured config schema 0.9"):
        check_reader("x", (0, 9))
