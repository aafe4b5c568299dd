"""Tenant isolation as SONiC's YANG models see it: every rail leaf of the lab under the example
assignments of both modes (VRF rows, ports bound to them, the quarantine and tenant ACLs) passes
libyang against sonic-vrf.yang, sonic-interface.yang, sonic-acl.yang and the rest, as `config replace`
validates it; and a port bound to a VRF the config does not define fails its leafref."""
import os

import pytest

from conftest import ROOT, YANG_MODELS, load_example

pytest.importorskip("libyang", reason="YANG validation needs the libyang Python package (make setup)")
if not os.path.isdir(YANG_MODELS):
    pytest.skip("SONiC reference models absent: %s" % YANG_MODELS, allow_module_level=True)

from gpufabric.nos.sonic import yang as sonic_yang  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402
from gpufabric.nos.sonic.config_db import config_db  # noqa: E402
from gpufabric.structured import structured_configs  # noqa: E402
from gpufabric.tenants import attach, load_assignment, plan_servers  # noqa: E402


@pytest.fixture(scope="module")
def models():
    return sonic_yang.load(YANG_MODELS)


def leaf_dbs(name):
    plan = build_plan(load_example("lab"))
    attach(plan, load_assignment(os.path.join(ROOT, "examples", "tenants", name), plan_servers(plan), "lab"))
    configs = structured_configs(plan)
    return {dev.name: config_db(configs[dev.name]) for dev in plan.by_role("backend_leaf")}


@pytest.mark.parametrize("name", ["lab-vrf.tenants.yml", "lab-vrf-moved.tenants.yml", "lab.tenants.yml"])
def test_every_leaf_with_tenants_is_yang_valid(models, name):
    dbs = leaf_dbs(name)
    problems = [p for leaf, db in dbs.items() for p in sonic_yang.validate(models, db, leaf)]
    assert problems == []
    if "vrf" in name:
        assert all(db["VRF"] for db in dbs.values())


def test_a_port_bound_to_an_undefined_vrf_is_refused(models):
    db = leaf_dbs("lab-vrf.tenants.yml")["lab-r0-leaf01"]
    del db["VRF"]["Vrf-alpha"]
    problems = sonic_yang.validate(models, db, "lab-r0-leaf01")
    assert len(problems) == 1 and "vrf_name" in problems[0] and "Vrf-alpha" in problems[0], problems
