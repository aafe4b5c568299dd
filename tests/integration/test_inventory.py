"""Ansible end to end: the inventory plugin, its errors, and plan.yml."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

BIN = os.path.dirname(sys.executable)
GOLDEN = os.path.join(ROOT, "tests", "golden", "lab", "inventory.json")


def run(*args, check=True):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), cwd=ROOT, env=env, check=False,
                          capture_output=True, text=True, timeout=600)
    if check and proc.returncode:
        raise AssertionError("%s failed (%d): %s" % (args, proc.returncode, proc.stderr[-2000:]))
    return proc


def plain(value):
    """ansible-core 2.19 marks inventory strings as untrusted in --list output; compare the data itself."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def inventory_list(source):
    return plain(json.loads(run("ansible-inventory", "-i", source, "--list").stdout))


def test_lab_inventory_matches_golden():
    out = inventory_list("inventories/lab")
    text = json.dumps(out, indent=1, sort_keys=True) + "\n"
    if os.environ.get("GOLDEN_UPDATE"):
        with open(GOLDEN, "w") as f:
            f.write(text)
    with open(GOLDEN) as f:
        assert text == f.read(), "lab inventory differs from tests/golden/lab/inventory.json " \
                                 "(GOLDEN_UPDATE=1 make integration to accept a reviewed change)"


def test_lab_inventory_shape():
    out = inventory_list("inventories/lab")
    hv = out["_meta"]["hostvars"]
    assert len(hv) == 4 + 16 + 2 + 2 + 2 + 5
    assert out["rail_3"]["hosts"] == ["lab-r3-leaf01", "lab-r3-leaf02"]
    assert sorted(out["backend"]["children"]) == ["backend_core", "backend_leaf", "backend_spine",
                                                  "backend_superspine"]
    nic = hv["lab-gpu0002"]["fabric"]["interfaces"][3]
    assert nic["peer"] == "lab-r3-leaf01" and nic["network"] == "backend" and nic["ipv4"].endswith("/31")
    leaf = hv["lab-r3-leaf01"]["fabric"]
    assert "interfaces" not in leaf  # switch ports come from the build, not host variables
    assert leaf["asn"] != hv["lab-r3-leaf02"]["fabric"]["asn"]
    assert hv["lab-spine01"]["fabric"]["asn"] == hv["lab-spine02"]["fabric"]["asn"]


def test_bad_spec_fails_with_one_line_naming_the_key(tmp_path):
    with open(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")) as f:
        text = f.read().replace("count: 4", "count: four")
    bad = tmp_path / "bad.topology.yml"
    bad.write_text(text)
    proc = run("ansible-inventory", "-i", str(bad), "--list", check=False)
    assert proc.returncode != 0
    assert "servers.count: expected an integer, got a string 'four'" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_plan_playbook_writes_once_then_changes_nothing(tmp_path):
    args = ("ansible-playbook", "-i", "inventories/lab", "playbooks/plan.yml", "-e", "build_dir=%s" % tmp_path)
    first = run(*args).stdout
    assert "changed=1" in first and "cluster lab: 32 GPUs on 4 servers" in first
    plan = json.loads((tmp_path / "lab" / "plan.json").read_text())
    assert len(plan["devices"]) == 31 and plan["summary"]["gpus"] == 32
    second = run(*args).stdout
    assert "changed=0" in second


def test_plan_playbook_on_bad_spec_writes_nothing(tmp_path):
    with open(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")) as f:
        text = f.read().replace("downlinks: 2, uplinks: 2", "downlinks: 2, uplinks: 40")
    bad = tmp_path / "x.topology.yml"
    bad.write_text(text)
    out = tmp_path / "out"
    proc = run("ansible-playbook", "-i", "localhost,", "playbooks/plan.yml", "-e", "build_dir=%s" % out,
               "-e", "spec=%s" % bad, check=False)
    assert proc.returncode != 0
    assert "backend.leaf.uplinks: 40 uplinks" in proc.stdout
    assert not out.exists()


@pytest.mark.parametrize("plugin", ["inventory"])
def test_ansible_doc_renders_the_plugin(plugin):
    out = run("ansible-doc", "-t", plugin, "gpucluster.fabric.topology").stdout
    assert "Constructable" in out or "keyed_groups" in out


def plays_and_hosts(playbook, *extra):
    """{play name: [hosts]} as `ansible-playbook --list-hosts` resolves them (limit and templated patterns)."""
    out = run("ansible-playbook", "-i", "inventories/lab", playbook, "--list-hosts", *extra).stdout
    plays, current = {}, None
    for line in out.splitlines():
        if line.strip().startswith("play #"):
            current = line.split(":", 1)[1].split("\t")[0].strip()
            plays[current] = []
        elif current and line.startswith("      "):
            plays[current].append(line.strip())
    return plays


@pytest.mark.parametrize("playbook", ["playbooks/build.yml", "playbooks/deploy.yml", "playbooks/validate.yml"])
def test_limit_selects_devices(playbook):
    whole = plays_and_hosts(playbook)
    limited = plays_and_hosts(playbook, "--limit", "lab-r0-leaf01")
    assert whole["Check that the inventory holds a cluster"] == ["localhost"]
    fabric_play = [name for name in whole if name != "Check that the inventory holds a cluster"][0]
    assert whole[fabric_play] == ["localhost"]  # the whole fabric, rendered or checked once
    assert limited[fabric_play] == ["lab-r0-leaf01"]
    assert {h for hosts in limited.values() for h in hosts} == {"lab-r0-leaf01"}
