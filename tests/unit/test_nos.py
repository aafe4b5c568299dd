"""The NOS is data: catalog models list the NOSes they run, spec roles pick one, and the plan,
the structured config and the inventory carry it; platform facts name what the NOS names."""
import copy
import os

import pytest
import yaml

from gpufabric import nos_registry as nos
from gpufabric.catalog import Catalog
from gpufabric.errors import SpecError
from gpufabric.export import hostvars, inventory_groups, nos_group_vars
from gpufabric.plan import build_plan
from gpufabric.spec import SWITCH_MODEL
from gpufabric.structured import structured_configs
from conftest import ROOT, load_example


def _model(**extra):
    raw = {"description": "test switch", "port_groups": [{"count": 4, "speed": 400, "lanes": 8, "first_lane": 0}]}
    raw.update(extra)
    return SWITCH_MODEL.validate(raw, "models.switches.T1")


def test_every_switch_carries_its_nos_through_plan_structured_and_inventory():
    plan = build_plan(load_example("lab"))
    switches = [d for d in plan.devices if d.role not in ("gpu_server", "backend_host")]
    assert switches and {d.nos for d in switches} == {nos.DEFAULT_NOS}
    assert all(d.nos is None for d in plan.devices if d.role == "gpu_server")
    configs = structured_configs(plan)
    assert {c["nos"] for c in configs.values()} == {nos.DEFAULT_NOS}
    hv = hostvars(plan)
    for dev in switches:
        assert hv[dev.name]["fabric"]["nos"] == dev.nos
        assert hv[dev.name]["ansible_network_os"] == nos.ansible_network_os(dev.nos)
    assert "ansible_network_os" not in hv[next(d.name for d in plan.devices if d.role == "gpu_server")]
    members, _children = inventory_groups(plan)
    assert sorted(members["nos_" + nos.DEFAULT_NOS]) == sorted(d.name for d in switches)


def test_a_role_naming_a_nos_its_model_does_not_run_is_refused_on_the_nos_key():
    catalog = Catalog({"switches": {"T1": _model(nos=["sonic"])}})
    with pytest.raises(SpecError) as err:
        catalog.switch("T1", "backend.leaf.model", "cumulus")
    text = str(err.value)
    assert text.startswith("backend.leaf.nos:") and "T1 runs sonic, not cumulus" in text and "nos: sonic" in text


def test_an_unknown_nos_in_the_spec_is_refused_with_the_choices():
    spec = load_example("lab")
    spec["backend"]["spine"]["nos"] = "junos"
    with pytest.raises(SpecError) as err:
        build_plan(spec)
    assert "backend.spine.nos" in str(err.value) and "sonic" in str(err.value)


def test_port_and_interface_names_come_from_the_platform_unless_the_model_says():
    facts = nos.platform(nos.DEFAULT_NOS)
    plain = Catalog({"switches": {"T1": _model()}}).switch("T1", "models.switches.T1.model")
    assert [p[0] for p in plain.ports] == [nos.interface_name(facts, 8 * i, i) for i in range(4)]
    assert plain.mgmt_port == facts["mgmt_interface"]
    own = Catalog({"switches": {"T1": _model(port_name="p{number}", mgmt_port="ma1")}}).switch("T1", "x.model")
    assert [p[0] for p in own.ports] == ["p1", "p2", "p3", "p4"] and own.mgmt_port == "ma1"


def test_loopback_lag_and_vlan_names_follow_the_platform(monkeypatch):
    facts = copy.deepcopy(nos.platform(nos.DEFAULT_NOS))
    facts.update(loopback="lo9", lag="bond{number}", vlan_interface="vlan{vid}")
    plan = build_plan(load_example("lab"))
    for dev in plan.devices:
        if dev.nos is not None:
            monkeypatch.setattr(dev.model, "platform", facts)
    configs = structured_configs(plan)
    leaf = next(c for c in configs.values() if c["role"] == "frontend_leaf")
    oob = next(c for c in configs.values() if c["role"] == "oob_switch")
    spine = next(c for c in configs.values() if c["role"] == "backend_spine")
    assert spine["loopback"]["name"] == "lo9"
    assert leaf["mclag"]["peer_link"] == "bond1" and {c["name"] for c in leaf["port_channels"]} >= {"bond101"}
    assert oob["management"]["interface"] == "vlan10"


# NOSes that run no FRR (their platform's frr facts name their own CLI and configuration file).
NO_FRR = ("eos",)
# Homes whose deploy role comes later: the registry names it already.
DEPLOY_ROLE_TO_COME = ()


def test_every_nos_with_a_home_has_platform_facts():
    for name in nos.names():
        facts = nos.platform(name)
        assert {"interface_name", "mgmt_interface", "loopback", "lag", "vlan_interface"} <= set(facts)
        assert nos.ansible_network_os(name)
        assert facts["frr"]["vtysh_command"] and facts["frr"]["conf_path"]
        if name not in NO_FRR:
            assert facts["frr"]["conf_path"].endswith("/frr.conf")
        else:
            # Its routing is its own configuration: drain.yml goes through its deploy role, not vtysh and frr.conf.
            assert nos.deploy_facts(name)["routing_native"]


def test_each_nos_group_carries_how_its_frr_is_reached_and_only_groups_with_members_get_it():
    members = {"nos_cumulus": ["a"], "backend_leaf": ["a"]}
    out = nos_group_vars(members)
    assert list(out) == ["nos_cumulus"]
    assert out["nos_cumulus"] == {"fabric_vtysh_command": nos.platform("cumulus")["frr"]["vtysh_command"],
                                  "fabric_frr_conf_path": "/etc/frr/frr.conf",
                                  "fabric_deploy_role": "gpucluster.fabric.cumulus_deploy",
                                  "fabric_deploy_plays": ["tenants", "spare"], "fabric_tenancy_command": "nv config show -o json",
                                  "fabric_routing_native": True}
    assert "fabric_routing_native" not in nos_group_vars({"nos_sonic": ["b"]})["nos_sonic"]
    assert nos_group_vars({"nos_sonic": ["b"]})["nos_sonic"]["fabric_vtysh_command"] == "docker exec bgp vtysh"


def test_each_nos_group_names_the_deploy_role_of_its_nos_and_the_plays_it_serves():
    """The playbooks name no NOS: a switch's deploy role, and whether tenants.yml/spare.yml may change it, come
    from its nos_<nos> group. Each named role exists and accepts the neutral fabric_deploy_* variables."""
    for name in nos.names():
        got = nos_group_vars({"nos_" + name: ["x"]})["nos_" + name]
        role = got["fabric_deploy_role"]
        assert role == "gpucluster.fabric.%s_deploy" % name
        role_dir = os.path.join(ROOT, "roles", role.rsplit(".", 1)[1])
        if name in DEPLOY_ROLE_TO_COME:
            assert not os.path.isdir(role_dir) and got["fabric_deploy_plays"] == [], "drop it from DEPLOY_ROLE_TO_COME"
            continue
        with open(os.path.join(role_dir, "meta", "argument_specs.yml")) as f:
            options = yaml.safe_load(f)["argument_specs"]["main"]["options"]
        assert {"fabric_deploy_build_root", "fabric_deploy_expected_role", "fabric_deploy_drain_leaf",
                "fabric_deploy_native_config"} <= set(options), role
        with open(os.path.join(role_dir, "defaults", "main.yml")) as f:
            defaults = f.read()
        for neutral in ("fabric_deploy_build_root", "fabric_deploy_expected_role"):
            assert "{{ %s | default(" % neutral in defaults, (role, neutral)
        assert set(got["fabric_deploy_plays"]) <= {"tenants", "spare"}
        # tenants.yml reads a leaf with this command and its home's tenancy turns the output into tenants.
        tenancy = getattr(nos.home(name), "tenancy", None)
        if "tenants" in got["fabric_deploy_plays"]:
            assert got["fabric_tenancy_command"] == tenancy.RUNNING_COMMAND
        else:
            assert "fabric_tenancy_command" not in got
    assert nos_group_vars({"nos_sonic": ["b"]})["nos_sonic"]["fabric_deploy_plays"] == ["tenants", "spare"]


def test_a_home_declares_its_own_spec_keys_and_the_spec_schema_loads_no_home():
    import subprocess
    import sys
    from gpufabric import spec
    assert "cumulus_release" in nos.switch_config_keys()
    field = spec.SPEC.fields["switch_config"].fields["cumulus_release"]
    assert field.default == "5.14" and field.pattern.match("5.10") and not field.pattern.match("4.4")
    code = ("import sys; sys.path.insert(0, %r); import gpufabric.spec; "
            "print(sorted(m for m in sys.modules if m.split('.')[:2] == ['gpufabric', 'nos']))" % os.path.dirname(os.path.dirname(nos.__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_platform_fact_is_read_by_some_code():
    """data/platforms.yml holds facts the code reads, no wish list (``features`` was one nothing read)."""
    import glob
    with open(os.path.join(os.path.dirname(nos.__file__), "data", "platforms.yml")) as f:
        data = yaml.safe_load(f)
    keys = set()
    for entry in data.values():
        keys |= set(entry) - {"description", "default", "models"}
        for facts in [entry["default"]] + list((entry.get("models") or {}).values()):
            keys |= set(facts)
    plugins = os.path.dirname(os.path.dirname(os.path.dirname(nos.__file__)))
    code = ""
    for path in glob.glob(os.path.join(plugins, "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8") as f:
            code += f.read()
    unread = sorted(k for k in keys if '"%s"' % k not in code and "'%s'" % k not in code)
    assert unread == []
