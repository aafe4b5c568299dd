"""build.yml and the sonic_deploy role with SONiC's YANG models: a config SONiC would refuse is stopped
on the controller, before anything is written or the switch is touched."""
import json
import os

import pytest

from conftest import ROOT, YANG_MODELS, ansible_playbook, built_by_playbook, needs_sonic_yang

needs_sonic_yang()

LAB_SPEC = os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")
HOST = "lab-r0-leaf01"


def playbook(*args):
    return ansible_playbook(*args, inventory_plugins=None)


@pytest.fixture(scope="module")
def lab_build(tmp_path_factory):
    return built_by_playbook(tmp_path_factory.mktemp("build"), "lab", "lab", "-e", "yang_models=%s" % YANG_MODELS,
                             inventory_plugins=None)


def test_build_validates_every_switch_and_writes_the_build(lab_build):
    assert (lab_build / "devices" / HOST / "config_db.json").is_file()


def test_build_with_a_models_dir_that_is_not_sonics_fails_in_one_line(tmp_path):
    proc = playbook("-i", "inventories/lab", "playbooks/build.yml", "-e", "build_dir=%s" % (tmp_path / "b"),
                    "-e", "yang_models=%s" % tmp_path)
    assert proc.returncode != 0
    assert "no sonic-*.yang models there" in proc.stdout
    assert not (tmp_path / "b").exists()


def test_deploy_stops_a_broken_target_before_the_checkpoint(lab_build, tmp_path):
    db_path = lab_build / "devices" / HOST / "config_db.json"
    broken = json.loads(db_path.read_text())
    del broken["BUFFER_PROFILE"]["egress_lossy_profile"]
    db_path.write_text(json.dumps(broken))
    frr_path = tmp_path / "frr.conf"
    (tmp_path / "play.yml").write_text("""- hosts: all
  gather_facts: false
  roles:
    - role: gpucluster.fabric.sonic_deploy
      vars:
        sonic_deploy_build_root: %s
        sonic_deploy_config_db: false
        sonic_deploy_yang_models: %s
        sonic_deploy_frr_conf_path: %s
        sonic_deploy_frr_reload_command: /bin/false
        sonic_deploy_vtysh_command: /bin/false
""" % (lab_build, YANG_MODELS, frr_path))
    proc = playbook("-i", HOST + ",", "-c", "local", str(tmp_path / "play.yml"))
    assert proc.returncode != 0
    assert "Read the switch and compare it with its build" in proc.stdout and "fatal: " in proc.stdout
    assert "%s: BUFFER_QUEUE/" % HOST in proc.stdout and "/profile: " in proc.stdout
    assert "egress_lossy_profile" in proc.stdout and "nothing was changed on %s" % HOST in proc.stdout
    assert "checkpoint" not in proc.stdout.lower().replace("before the checkpoint", "")
    assert not frr_path.exists()  # nothing installed
