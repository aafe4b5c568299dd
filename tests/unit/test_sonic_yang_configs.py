"""Every rendered config_db passes SONiC's YANG sonic_models, alone and merged into the platform's factory config.

The big example clusters (metalsoft-16k, h100-100k: thousands of switches) are in
tests/integration/test_examples_yang.py; here the lab and superpod-1k, every switch.
"""

import pytest

from conftest import SONIC_REFERENCE, YANG_MODELS, needs_sonic_yang, load_example

needs_sonic_yang()

from gpufabric.nos.sonic import yang as sonic_yang  # noqa: E402  (after the skips)
from gpufabric.build import check_switch_configs, structured  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402
from gpufabric.nos.sonic import platform as sonic_platform  # noqa: E402
from gpufabric.nos.sonic.config_db import config_db  # noqa: E402
from gpufabric.nos.sonic.deploy import target_config  # noqa: E402
from sonic_factory import factory_config  # noqa: E402


@pytest.fixture(scope="module", params=["lab", "superpod-1k"])
def example(request):
    plan = build_plan(load_example(request.param))
    return plan, {host: config_db(cfg) for host, cfg in structured(plan).items()}


def test_every_switch_config_is_valid(example):
    plan, dbs = example
    assert len(dbs) == sum(1 for d in plan.devices if d.role != "gpu_server")
    assert check_switch_configs(plan, YANG_MODELS) == []


def test_merged_into_the_factory_config_of_its_platform(sonic_models, example):
    """What `config replace` gets on a freshly installed switch: its factory config with our tables put in.
    One switch of each role and model; the factory config comes from the platform's own files."""
    plan, dbs = example
    checked = set()
    for dev in plan.devices:
        platform = sonic_platform.facts(dev.model.name).get("platform")
        if dev.name not in dbs or platform is None or (dev.role, platform) in checked:
            continue
        checked.add((dev.role, platform))
        factory = factory_config(SONIC_REFERENCE, platform, dev.role)
        assert sonic_yang.validate(sonic_models, factory, "factory " + platform) == []
        target = target_config(factory, dbs[dev.name])
        assert sonic_yang.validate(sonic_models, target, dev.name) == []
        assert target["PORT"][next(iter(factory["PORT"]))]["lanes"]  # the platform's rows are still there
    with_platform = {d.role for d in plan.devices if d.name in dbs and sonic_platform.facts(d.model.name).get("platform")}
    assert with_platform and {role for role, _platform in checked} == with_platform
    if plan.summary["cluster"] == "lab":  # the lab has a Dell model with platform files in every role
        assert with_platform == {"backend_leaf", "backend_spine", "frontend_leaf", "frontend_spine", "oob_switch"}


def test_lossless_profiles_are_sized_from_the_platform_lookup(example):
    plan, dbs = example
    dev = plan.by_role("backend_leaf")[0]
    db = dbs[dev.name]
    lookup = sonic_platform.buffer_facts(dev.model.name)["pg_lossless"]
    pgs = {row["profile"] for key, row in db["BUFFER_PG"].items() if row["profile"].startswith("pg_lossless_")}
    assert pgs
    for name in pgs:
        speed, cable = name.split("_")[2:4]
        size, xon, xoff, dynamic_th, xon_offset = lookup[int(speed)][cable]
        assert db["BUFFER_PROFILE"][name] == {"pool": "ingress_lossless_pool", "size": str(size), "xon": str(xon),
                                              "xoff": str(xoff), "dynamic_th": str(dynamic_th),
                                              "xon_offset": str(xon_offset)}
    for port, cable in db["CABLE_LENGTH"]["AZURE"].items():
        assert cable in lookup[int(db["PORT"][port]["speed"])]


def test_a_broken_target_names_table_and_field(sonic_models, example):
    plan, dbs = example
    dev = plan.by_role("backend_leaf")[0]
    db = {table: {k: dict(v) for k, v in rows.items()} for table, rows in dbs[dev.name].items()}
    del db["BUFFER_PROFILE"]["egress_lossy_profile"]
    (problem,) = sonic_yang.validate(sonic_models, db, dev.name)
    assert problem.startswith("%s: BUFFER_QUEUE/" % dev.name) and "/profile: " in problem
    assert "egress_lossy_profile" in problem
