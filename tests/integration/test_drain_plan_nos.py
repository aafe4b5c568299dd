"""The drain decision (action drain_plan) on a switch whose NOS keeps its routing in its own config (Cumulus Linux: an
NVUE revision, no frr.conf the collection renders): without native=true, refused in one line that names the switch,
its NOS and the way that works (drain.yml asks with native=true from fabric_routing_native), not a traceback."""
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
    assert "cumuluslab-r0-leaf01 runs cumulus, whose routing is in its own configuration, not an frr.conf" in text
    assert "native=true" in text and "Traceback" not in proc.stdout + proc.stderr


def test_a_sonic_spine_gets_its_drain(tmp_path):
    proc = drain_plan(tmp_path, "lab-spine01", "lab")
    assert proc.returncode == 0, proc.stdout[-2000:]


NATIVE_PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - gpucluster.fabric.drain_plan:
        switch: cumuluslab-spine01
        state: drained
        native: true
        spec: %s
      register: plan
    - ansible.builtin.copy:
        content: "{{ plan | to_json }}"
        dest: %s
"""


def test_with_native_a_cumulus_spine_gets_its_startup_yaml_drained_and_not(tmp_path):
    """What cumulus_deploy's drain before a change asks for: the spine's NVUE startup.yaml in both states, the drained
    one holding the drain route-map on its peer group, the other the build's own file."""
    import json

    from gpufabric import build, plan as planning, specfile

    spec = os.path.join(ROOT, "inventories", "cumulus-lab", "cumulus-lab.topology.yml")
    out = tmp_path / "plan.json"
    (tmp_path / "play.yml").write_text(NATIVE_PLAY % (spec, out))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", str(tmp_path / "play.yml"),
                           "-e", "ansible_python_interpreter=" + sys.executable], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:]
    result = json.loads(out.read_text())
    drained, before = result["native_config"]["startup.yaml"], result["native_config_before"]["startup.yaml"]
    assert "GPUFABRIC_DRAIN" in drained and "GPUFABRIC_DRAIN" not in before
    built = build.render_all(planning.build_plan(specfile.load_spec(spec)), devices=["cumuluslab-spine01"])
    assert before == built["devices/cumuluslab-spine01/startup.yaml"]
    assert "frr_conf" not in result and result["neighbours"] and result["network"] == "backend"
    assert result["cluster"] == "cumuluslab"
