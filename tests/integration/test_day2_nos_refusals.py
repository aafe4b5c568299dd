"""The day-2 playbooks name no NOS: each switch is changed with the deploy role its nos_<nos> group names, and a
playbook a NOS's deploy role does not serve yet refuses that switch in one line before anything is read or
changed (tenants.yml and spare.yml on rail leaves whose nos_<nos> group lists neither play in fabric_deploy_plays,
as a NOS added without them would; deploy.yml on a switch in no nos_<nos> group).
Offline: the local connection, no twin; every run stops at its refusal."""
import os
import sys

import yaml

from conftest import ROOT, ansible_playbook


def playbook(*args):
    return ansible_playbook(*args)


def _inventory(tmp_path, spares=0):
    """cumulus-lab's spec (Cumulus rail leaves), run with the local connection, optionally with hot spares; its
    nos_cumulus group says the deploy role serves no day-2 play (the inventory's group_vars over the plugin's)."""
    with open(os.path.join(ROOT, "inventories", "cumulus-lab", "cumulus-lab.topology.yml")) as f:
        spec = yaml.safe_load(f)
    if spares:
        spec["servers"]["spares_per_unit"] = spares
    inventory = tmp_path / "inventory"
    (inventory / "group_vars").mkdir(parents=True)
    (inventory / "cumulus-lab.topology.yml").write_text(yaml.safe_dump(spec))
    (inventory / "group_vars" / "all.yml").write_text(yaml.safe_dump(
        {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}))
    (inventory / "group_vars" / "nos_cumulus.yml").write_text(yaml.safe_dump({"fabric_deploy_plays": []}))
    return str(inventory)


def _one_line(out):
    return " ".join(out.split())   # the yaml callback folds long messages


def test_tenants_yml_refuses_a_rail_leaf_whose_nos_does_not_do_tenant_isolation(tmp_path):
    proc = playbook("-i", _inventory(tmp_path), "playbooks/tenants.yml",
                    "-e", "tenants=%s" % os.path.join(ROOT, "examples", "tenants", "lab.tenants.yml"),
                    "-e", "build_dir=%s" % (tmp_path / "build"))
    out = _one_line(proc.stdout)
    assert proc.returncode != 0, out[-2000:]
    assert ("cumuluslab-r0-leaf01 runs cumulus, whose deploy role does not change tenant isolation yet "
            "(fabric_deploy_plays): tenants.yml changed nothing") in out, out[-3000:]
    # Stopped at the refusal: nothing was read from a leaf, nothing planned, no traceback.
    assert "Read the running config" not in out and "Plan the tenant change" not in out
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not (tmp_path / "build").exists()


def test_spare_yml_refuses_a_swap_that_would_change_a_cumulus_leaf(tmp_path):
    from gpufabric.plan import build_plan
    with open(os.path.join(_inventory(tmp_path / "probe", spares=1), "cumulus-lab.topology.yml")) as f:
        plan = build_plan(yaml.safe_load(f))
    spare = next(d.name for d in plan.devices if d.spare)
    failed = next(d.name for d in plan.devices if d.role == "gpu_server" and not d.spare)
    proc = playbook("-i", _inventory(tmp_path, spares=1), "playbooks/spare.yml", "-e", "failed=%s" % failed,
                    "-e", "spare=%s" % spare, "-e", "build_dir=%s" % (tmp_path / "build"))
    out = _one_line(proc.stdout)
    assert proc.returncode != 0, out[-2000:]
    assert "runs cumulus, whose deploy role does not do spare swaps yet (fabric_deploy_plays): spare.yml " \
           "changed nothing" in out, out[-3000:]
    assert "Build with the swap" not in out and "Traceback" not in proc.stdout + proc.stderr


def test_deploy_yml_refuses_a_switch_in_no_nos_group_before_any_deploy(tmp_path):
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump({"all": {"children": {"switches": {"hosts": {"leaf9": {
        "ansible_connection": "local", "ansible_python_interpreter": sys.executable}}}}}}))
    play = yaml.safe_load(open(os.path.join(ROOT, "playbooks", "deploy.yml")))
    check = [p for p in play if p.get("name") == "Check that each switch's NOS has a deploy role"]
    (tmp_path / "check.yml").write_text(yaml.safe_dump(check))
    proc = playbook("-i", str(inventory), str(tmp_path / "check.yml"))
    out = _one_line(proc.stdout)
    assert proc.returncode != 0
    assert ("leaf9 has no fabric_deploy_role: it is in no nos_<nos> group of the topology inventory "
            "(fabric.nos unset); deploy it from the cluster's *.topology.yml") in out, out[-2000:]
