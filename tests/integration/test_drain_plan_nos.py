"""drain.yml's decision (action drain_plan) on a switch whose NOS keeps its routing in its own config (Cumulus
Linux: an NVUE revision, no frr.conf the collection renders): refused in one line that names the switch, its
NOS and the way that works (maintenance.drained + deploy.yml), not a traceback."""
import os
import subprocess
import sys

from conftest import ROOT

BIN = os.path.dirname(sys.executable)
PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - gpucluster.fabric.drain_plan:
        switch: "{{ switch }}"
        state: drained
        spec: %s
"""


def drain_plan(tmp_path, switch, example="cumulus-lab"):
    (tmp_path / "play.yml").write_text(PLAY % os.path.join(ROOT, "inventories", example, example + ".topology.yml"))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    return subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local",
                           str(tmp_path / "play.yml"), "-e", "switch=" + switch],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def test_a_cumulus_switch_is_refused_with_the_way_that_works(tmp_path):
    proc = drain_plan(tmp_path, "cumuluslab-r0-leaf01")
    assert proc.returncode != 0
    text = " ".join(proc.stdout.split())
    assert "cumuluslab-r0-leaf01 runs cumulus, which drain.yml cannot drain yet" in text
    assert "maintenance.drained" in text and "Traceback" not in proc.stdout + proc.stderr


def test_a_sonic_spine_gets_its_drain(tmp_path):
    proc = drain_plan(tmp_path, "lab-spine01", "lab")
    assert proc.returncode == 0, proc.stdout[-2000:]
