"""A hot-spare swap and a one-SU growth on a twin of Cumulus switches (issue 27), end to end through the playbooks an
operator runs, each ending with validation at 0 FAIL, as tests/twin/test_spare_growth_twin.py does on SONiC.

The twin is inventories/cumulus-lab-twin's spec without the frontend, with one hot spare per scalable unit (cluster
`cspr`, its own namespaces) and tenant alpha on servers 1 and 3, so the swap moves a tenant too. Every switch is a
Cumulus switch changed through its NVUE API stand-in by cumulus_deploy (docs/twin.md). The switches boot their rendered
startup.yaml, as ZTP would have delivered it. One bring-up, one growth.
Needs root, FRR, lldpd and nftables; skipped with the reason otherwise. Run it under the twin lock.
"""
import copy
import json
import os
import shutil
import time

import pytest
import yaml

from gpufabric import specfile, twin
from test_spare_growth_twin import bring_up, cluster_plan, grow_by_one_unit, port_up, spare_swap_and_back, take_down

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight() or (None if shutil.which("nft") else "nft is missing (apt-get install nftables)")
pytestmark = pytest.mark.skipif(REASON is not None, reason="Cumulus spare and growth on the twin: %s" % REASON)
CLUSTER = "cspr"
SOURCE = os.path.join(ROOT, "inventories", "cumulus-lab-twin")
TENANTS = {"isolation": "acl", "tenants": {"alpha": {"servers": ["cspr-gpu0001", "cspr-gpu0003"]}}}
TIMES = {}


def spec(count):
    raw = copy.deepcopy(specfile.load_spec(os.path.join(SOURCE, "cumulus-lab.topology.yml")))
    raw["cluster"]["name"] = CLUSTER
    raw["servers"].update(count=count, spares_per_unit=1)
    raw.pop("frontend")
    return dict(raw, plugin="gpucluster.fabric.topology")


def write_inventory(inventory, count):
    with open(os.path.join(inventory, "cspr.topology.yml"), "w") as f:
        yaml.safe_dump(spec(count), f, sort_keys=False)


def copy_group_vars(inventory, cluster=CLUSTER):
    """inventories/cumulus-lab-twin's group_vars for the twin of ``cluster`` (its NVUE API's files, its OOB
    namespace)."""
    shutil.copytree(os.path.join(SOURCE, "group_vars"), os.path.join(inventory, "group_vars"))
    for name in os.listdir(os.path.join(inventory, "group_vars")):
        path = os.path.join(inventory, "group_vars", name)
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("cumuluslab", cluster))


@pytest.fixture(scope="module")
def fabric(tmp_path_factory):
    inventory, build_dir = str(tmp_path_factory.mktemp("inventory")), str(tmp_path_factory.mktemp("build"))
    copy_group_vars(inventory)
    write_inventory(inventory, 4)
    started = time.monotonic()
    names = bring_up(inventory, CLUSTER, build_dir, TENANTS, timeout=120)
    TIMES["twin up"] = round(time.monotonic() - started, 1)
    try:
        yield inventory, build_dir
    finally:
        take_down(inventory, CLUSTER, build_dir, names)
        print("\nCumulus spare and growth on the twin, seconds: %s" % json.dumps(TIMES))


def applied_state(switch, port):
    """The port's link state in the switch's applied NVUE revision (what `nv show interface <port> link --applied`
    shows)."""
    with open(os.path.join(twin.state_dir(CLUSTER), switch, "nvue", "applied.json")) as f:
        return sorted(((json.load(f)["interface"][port].get("link") or {}).get("state") or {"up": {}}))


def failures(plan, settle_s=60):
    deadline = time.monotonic() + settle_s
    while True:
        report = twin.verify(plan, networks=("backend",))
        bad = [r for r in report["results"] if r.status in ("FAIL", "ERROR")]
        if not bad or time.monotonic() > deadline:
            return bad, report
        time.sleep(2)


def test_spare_swap_and_back_through_nvue(fabric):
    inventory, build_dir = fabric
    plan = cluster_plan(inventory, CLUSTER, build_dir)
    bad, _report = failures(plan, settle_s=120)    # the switches booted their startup.yaml: converged first
    assert bad == [], bad
    assert {d.nos for d in plan.devices if d.role in ("backend_leaf", "backend_spine")} == {"cumulus"}

    def ports_are(ports, up):
        # The failed server's leaf ports, down in the applied NVUE revision and in the namespace (and up again).
        return all(applied_state(*p) == (["up"] if up else ["down"]) and port_up(*p) == up for p in ports)

    swapped = dict(spec(4), maintenance={"replaced": {"cspr-gpu0001": "cspr-gpu0002"}})
    spare_swap_and_back(CLUSTER, swapped, inventory, build_dir, TENANTS, failures, TIMES, ports_are)


def test_growth_by_one_scalable_unit_through_nvue(fabric):
    """The new unit's switches come up from the factory (an empty NVUE configuration) and the NVUE API serves them
    beside the others; the spines change (each drained first through NVUE) before the new leaves are deployed."""
    inventory, build_dir = fabric
    old_plan, new_plan = grow_by_one_unit(CLUSTER, inventory, build_dir, lambda n: write_inventory(inventory, n),
                                          failures, TIMES)
    grown = {d.name for d in new_plan.devices} - {d.name for d in old_plan.devices}
    # (the OOB switches stay on SONiC, as in cumulus-lab)
    assert {new_plan.device(s).nos for s in grown if new_plan.device(s).role not in ("gpu_server", "oob_switch")} == {"cumulus"}
