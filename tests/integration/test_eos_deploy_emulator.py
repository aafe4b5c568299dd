"""roles/eos_deploy and the EOS home's deploy flow against the twin's eAPI stand-in (twin/emulators/eos), run in this
process on 127.0.0.1 with a certificate of its own CA: napalm's eos driver over HTTPS, the certificate checked.
No namespace, no root: the stand-in's configuration sessions, commit timer and running config are what is judged
(tests/twin/test_eos_deploy_twin.py runs the same role on the whole eos-lab twin)."""
import os
import shutil
import time

import pytest
import yaml
from conftest import ROOT, ansible_playbook

from gpufabric.nos.eos import deploy, eapi

emu = pytest.importorskip("gpufabric.twin.emulators.eos.eapi")
emuhttp = pytest.importorskip("gpufabric.twin.emulators.eos.http")

HOST = "eoslab-spine02"
GOLDEN = os.path.join(ROOT, "tests/golden/eos-lab/rendered/devices", HOST)
PASSWORD = "twin-Secret-43"


def _read(name):
    with open(os.path.join(GOLDEN, name)) as f:
        return f.read()


@pytest.fixture(scope="module")
def ca(tmp_path_factory):
    path = tmp_path_factory.mktemp("ca")
    pem, _key = emuhttp.make_ca(str(path))
    return str(path), pem


@pytest.fixture
def switch(ca, tmp_path):
    sw = emu.EosSwitch(HOST, "7060X6-64PE", "SN-TEST", "00:1c:73:00:00:02")
    cert, key = emuhttp.issue(ca[0], str(tmp_path), HOST)
    server = emuhttp.EapiServer(sw, cert, key, "admin", PASSWORD).start()
    sw.port = server.port
    try:
        yield sw
    finally:
        server.stop()


def _driver(switch, ca):
    return eapi.open_driver(HOST, "127.0.0.1", "admin", PASSWORD, switch.port, True, ca[1])


def _running(switch):
    return switch.running.text()


def test_the_certificate_is_checked(switch, tmp_path):
    other, _key = emuhttp.make_ca(str(tmp_path))
    with pytest.raises(eapi.EapiError, match="eoslab-spine02: eAPI at https://127.0.0.1:%d/command-api did not open: "
                                             ".*CERTIFICATE_VERIFY_FAILED" % switch.port):
        eapi.open_driver(HOST, "127.0.0.1", "admin", PASSWORD, switch.port, True, other)


def test_check_then_deploy_then_nothing_to_do(switch, ca):
    build = _read("startup-config")
    factory = _running(switch)
    driver = _driver(switch, ca)
    shown = deploy.deploy(driver, HOST, build, check=True)
    assert shown["changed"] and "+hostname eoslab-spine02" in shown["diff"]
    assert _running(switch) == factory and not switch.sessions.get(shown["session"])
    done = deploy.deploy(driver, HOST, build, confirm=60)
    assert done["changed"] and "hostname eoslab-spine02" in _running(switch)
    # Confirmed and saved: no timer pending, the startup-config is what runs, the record names what runs.
    assert [s.state for s in switch.sessions.values()] == ["completed"]
    assert switch.startup.text() == _running(switch)
    assert deploy.record_of(_running(switch)) == deploy.digest(_running(switch))
    again = deploy.deploy(_driver(switch, ca), HOST, build, confirm=60)
    assert again["changed"] is False and again["diff"] == ""


def test_a_hand_change_is_refused_until_overwritten(switch, ca):
    build = _read("startup-config")
    driver = _driver(switch, ca)
    deploy.deploy(driver, HOST, build)
    driver.device.run_commands(["configure", "interface Ethernet1/1", "mtu 1500", "end"])
    changed = _running(switch)
    with pytest.raises(deploy.DeployError, match="eoslab-spine02: the running config changed since the last deploy"):
        deploy.deploy(driver, HOST, build)
    assert _running(switch) == changed
    assert deploy.deploy(driver, HOST, build, guard=False)["changed"]
    assert "mtu 1500" not in _running(switch)


def test_a_failed_gate_aborts_the_session_and_the_previous_config_runs(switch, ca):
    build = _read("startup-config")
    driver = _driver(switch, ca)
    deploy.deploy(driver, HOST, build)
    good = _running(switch)
    with pytest.raises(deploy.DeployError, match="BGP gate did not pass.*rolled back to the previous configuration"):
        deploy.deploy(driver, HOST, build.replace("mtu 9216", "mtu 9000", 1), gate=lambda: ["session x is Idle"],
                      gate_timeout=0.2, gate_poll=0.1)
    assert _running(switch) == good


def test_a_lost_switch_is_rolled_back_by_its_commit_timer(switch, ca):
    build = _read("startup-config")
    driver = _driver(switch, ca)
    deploy.deploy(driver, HOST, build)
    good = _running(switch)

    def gate():
        raise ConnectionError("connection reset by peer")
    with pytest.raises(deploy.DeployError, match="lost the switch after committing session .* with a 2s commit timer"):
        deploy.deploy(driver, HOST, build.replace("mtu 9216", "mtu 9000", 1), gate=gate, confirm=2)
    assert "mtu 9000" in _running(switch)
    deadline = time.monotonic() + 15
    while _running(switch) != good and time.monotonic() < deadline:
        switch.tick()
        time.sleep(0.2)
    assert _running(switch) == good


PLAY = """
- name: The EOS deploy role, pending then main
  hosts: switches
  gather_facts: false
  tasks:
    - name: Pending
      ansible.builtin.include_role:
        name: gpucluster.fabric.eos_deploy
        tasks_from: pending
    - name: Say it
      ansible.builtin.debug:
        msg: "pending={{ fabric_deploy_pending }}"
    - name: Main
      ansible.builtin.include_role:
        name: gpucluster.fabric.eos_deploy
"""


@pytest.fixture
def project(switch, ca, tmp_path):
    build_root = tmp_path / "build" / "eoslab"
    device = build_root / "devices" / HOST
    device.mkdir(parents=True)
    shutil.copy(os.path.join(GOLDEN, "startup-config"), device / "startup-config")
    structured = yaml.safe_load(_read("structured.yml"))
    (device / "structured.yml").write_text(yaml.safe_dump(structured))
    inventory = {"all": {"children": {"switches": {"hosts": {HOST: {
        "ansible_connection": "local", "ansible_host": "127.0.0.1", "eos_eapi_port": switch.port,
        "eos_eapi_ca": ca[1], "eos_eapi_user": "admin", "eos_eapi_password": PASSWORD,
        "fabric_deploy_build_root": str(build_root), "eos_deploy_drain": False, "eos_deploy_confirm_timeout": 30,
        "eos_deploy_bgp_timeout": 1, "eos_deploy_bgp_poll": 1,
        "ansible_python_interpreter": os.path.join(ROOT, ".venv/bin/python")}}}}}}
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / "play.yml").write_text(PLAY)
    return tmp_path, device


def _without_bgp(project):
    """The switch's build without BGP: the gate is off (the stand-in answers no `show ip bgp`; the gate's reading of
    EOS's JSON is tests/unit/test_eos_observations.py's)."""
    _path, device = project
    structured = yaml.safe_load((device / "structured.yml").read_text())
    structured.pop("bgp")
    (device / "structured.yml").write_text(yaml.safe_dump(structured))


def _play(project, *extra):
    path, _device = project
    return ansible_playbook("-i", str(path / "hosts.yml"), str(path / "play.yml"), *extra, inventory_plugins="yaml")


def _changed(stdout):
    import re
    return int(re.search(r"^%s\s+: ok=\d+\s+changed=(\d+)" % HOST, stdout, re.M).group(1))


def test_the_role_shows_the_diff_in_check_mode_deploys_and_then_changes_nothing(project, switch):
    factory = _running(switch)
    check = _play(project, "--check", "--diff")
    assert check.returncode == 0, check.stdout[-3000:]
    assert "configuration session napalm_" in check.stdout and "+hostname eoslab-spine02" in check.stdout
    assert _running(switch) == factory
    _without_bgp(project)
    first = _play(project)
    assert first.returncode == 0, first.stdout[-3000:]
    assert "pending=True" in first.stdout and _changed(first.stdout) == 1
    assert "hostname eoslab-spine02" in _running(switch)
    second = _play(project)
    assert second.returncode == 0, second.stdout[-3000:]
    assert "pending=False" in second.stdout and _changed(second.stdout) == 0
    for out in (check, first, second):
        assert PASSWORD not in out.stdout + out.stderr


def test_the_role_rolls_back_a_change_the_bgp_gate_refuses(project, switch, ca):
    # A first deploy, then the switch's build with its BGP neighbours: the gate runs.
    deploy.deploy(_driver(switch, ca), HOST, _read("startup-config"))
    good = _running(switch)
    path, device = project
    (device / "startup-config").write_text(_read("startup-config").replace("mtu 9216", "mtu 9000", 1))
    # all: every planned session must be Established, and none is on this stand-in (which answers no `show ip bgp`
    # either: a gate that cannot read the table fails too).
    failed = _play(project, "-e", "eos_deploy_bgp_gate=all")
    assert failed.returncode != 0
    assert "BGP gate did not pass within 1.0s" in failed.stdout and "rolled back to the previous configuration" in failed.stdout
    assert _running(switch) == good
    assert PASSWORD not in failed.stdout + failed.stderr


def test_the_role_refuses_a_hand_changed_switch(project, switch, ca):
    deploy.deploy(_driver(switch, ca), HOST, _read("startup-config"))
    _driver(switch, ca).device.run_commands(["configure", "interface Ethernet1/1", "mtu 1500", "end"])
    refused = _play(project)
    assert refused.returncode != 0
    assert "the running config changed since the last deploy" in refused.stdout
    assert "eos_deploy_overwrite_changes=true" in refused.stdout
    assert "mtu 1500" in _running(switch)
