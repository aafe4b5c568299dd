"""The sonic_deploy role decides whether to drain a switch before changing it (docs/operations.md, "Deploy"):
a backend leaf is changed undrained without confirmation, a switch with no planned session up (a first bring-up)
has nothing to drain, sonic_deploy_drain=false turns the drain off, and a drain that would take the last path
between two leaves stops the switch before anything is installed. Offline: the switches are played with the
local connection, vtysh is a script printing a BGP summary and the reload fails, so each switch shows which way
it went and is never really changed. The drain itself, under traffic, is tests/twin/test_deploy_traffic.py."""
import json
import os
import sys

import pytest
import yaml

from conftest import ROOT, ansible_playbook, built_by_playbook, load_example


def playbook(*args):
    return ansible_playbook(*args)


@pytest.fixture(scope="module")
def lab_build(tmp_path_factory):
    return built_by_playbook(tmp_path_factory.mktemp("build"), "lab", "lab")


def fake_vtysh(tmp_path, name, build, host, up):
    """A vtysh that prints a BGP summary with the host's planned sessions Established (or none)."""
    with open(build / "devices" / host / "structured.yml") as f:
        neighbors = yaml.safe_load(f)["bgp"]["neighbors"]
    summary = {"ipv4Unicast": {"peers": {n["ip"]: {"state": "Established", "remoteAs": n["remote_as"]}
                                         for n in neighbors} if up else {}}}
    data = tmp_path / (name + ".json")
    data.write_text(json.dumps(summary))
    script = tmp_path / name
    script.write_text("#!/bin/sh\ncat %s\n" % data)
    script.chmod(0o755)
    return str(script)


def test_deploy_decides_per_switch_whether_to_drain(lab_build, tmp_path):
    spec = os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")
    spine02_drained = load_example("lab")
    spine02_drained["maintenance"] = {"drained": ["lab-spine02"]}
    kept_spec = tmp_path / "lab.topology.yml"
    kept_spec.write_text(yaml.safe_dump(spine02_drained))
    hosts = {
        # sessions up, a backend leaf, no confirmation: changed in place
        "lab-r0-leaf01": {"vtysh": fake_vtysh(tmp_path, "leaf-up", lab_build, "lab-r0-leaf01", True), "spec": spec},
        # nothing up yet: a first bring-up
        "lab-spine02": {"vtysh": fake_vtysh(tmp_path, "spine02-down", lab_build, "lab-spine02", False), "spec": spec},
        # the drain turned off
        "lab-fe-spine01": {"vtysh": fake_vtysh(tmp_path, "fe-up", lab_build, "lab-fe-spine01", True), "spec": spec,
                           "drain": False},
        # up, but the spec keeps the other spine drained: draining this one takes the last path
        "lab-spine01": {"vtysh": fake_vtysh(tmp_path, "spine01-up", lab_build, "lab-spine01", True),
                        "spec": str(kept_spec)},
    }
    inventory = {"all": {"hosts": {
        host: {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
               "sonic_deploy_vtysh_command": h["vtysh"], "spec": h["spec"],
               "sonic_deploy_drain": h.get("drain", True),
               "sonic_deploy_frr_conf_path": str(tmp_path / (host + ".frr.conf"))} for host, h in hosts.items()}}}
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / "play.yml").write_text("""- hosts: all
  gather_facts: false
  roles:
    - role: gpucluster.fabric.sonic_deploy
      vars:
        sonic_deploy_build_root: %s
        sonic_deploy_config_db: false
        sonic_deploy_frr_reload_command: /bin/false
        # The local connection: no switch-side timer on the controller (tests/twin/test_sonic_configdb_twin.py has it).
        sonic_deploy_confirm: false
""" % lab_build)
    proc = playbook("-i", str(tmp_path / "hosts.yml"), str(tmp_path / "play.yml"))
    assert proc.returncode != 0 and "PLAY RECAP" in proc.stdout, proc.stderr[-3000:]
    out = " ".join(proc.stdout.split())   # the yaml callback folds long messages
    assert ("lab-r0-leaf01: changed without a drain: lab-r0-leaf01 is the only rail 0 leaf of 2 servers "
            "(lab-gpu0001, lab-gpu0002): they lose rail 0 while it is down; a backend leaf is drained only with "
            "confirm_leaf_drain=true") in out
    assert "lab-spine02: changed without a drain: no planned BGP session is up (a first bring-up)" in out
    assert "lab-fe-spine01: changed without a drain: sonic_deploy_drain is false" in out
    assert ("lab-spine01 was not changed: draining lab-spine01 would drain the last path between lab-r0-leaf01 and "
            "lab-r0-leaf02") in out and "-e sonic_deploy_drain=false" in out
    assert "Drain before the change" not in out
    # The three changed in place went on to the reload (which fails here); the refused spine got nothing.
    failed = failed_in(proc.stdout, "Install frr.conf and reload FRR with it")
    assert failed == ["lab-fe-spine01", "lab-r0-leaf01", "lab-spine02"]
    assert not (tmp_path / "lab-spine01.frr.conf").exists()


def failed_in(out, task):
    """Hosts that failed the task, from its section of the output."""
    section = out.split("TASK [gpucluster.fabric.sonic_deploy : %s]" % task, 1)[1].split("TASK [", 1)[0]
    return sorted(line.split("[", 1)[1].split("]", 1)[0] for line in section.splitlines()
                  if line.startswith("fatal: ["))
