"""The cumulus_deploy role through ansible-playbook against the NVUE REST API stand-in (a process serving HTTPS on
loopback with a self-signed certificate the play trusts through cumulus_deploy_ca_path, certificate checking
left on): --check --diff shows the NVUE difference and sends nothing, a deploy applies and saves, a second one
changes nothing, a revision NVUE refuses leaves the previous one applied, wrong credentials name the switch,
a switch changed by hand since the last deploy (its revision history says) is refused untouched, and the password is
never printed. The play's `nv` is nv_shim.py: the deploy applies with NVUE's confirm timer and confirms."""
import base64
import json
import os
import re
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
import yaml

from conftest import ROOT

BIN = os.path.dirname(sys.executable)
HOST = "cumulus-leaf01"
USER, PASSWORD = "automation", "Vault-only-pw-7731"
ACCOUNT = {"role": "system-admin", "hashed-password": "$6$stand-in$hash"}
BOOT = {"system": {"hostname": "cumulus", "aaa": {"user": {USER: ACCOUNT}}}}
TARGET = {"system": {"hostname": HOST},
          "interface": {"lo": {"type": "loopback", "ip": {"address": {"10.32.0.4/32": {}}}},
                        "swp1": {"type": "swp", "description": "cumulus-gpu0001 ens4np0",
                                 "link": {"mtu": 9216, "state": {"up": {}}}, "ip": {"address": {"10.0.0.12/31": {}}}}},
          "router": {"bgp": {"enable": "on", "autonomous-system": 64517, "router-id": "10.32.0.4"}}}
HEADER = {"model": "SN5600", "nvue-api-version": "nvue_v1", "rev-id": 1.0, "version": "Cumulus Linux 5.14.0"}


@pytest.fixture(scope="module")
def switch(tmp_path_factory):
    """The stand-in of one switch, booted from a startup.yaml holding only its account."""
    sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))
    from gpufabric.twin.emulators.cumulus import nvue_http

    state = tmp_path_factory.mktemp("switch")
    cert, key = nvue_http.self_signed_certificate(str(state))
    (state / "password").write_text(PASSWORD)
    (state / "startup.yaml").write_text(yaml.safe_dump([{"header": HEADER}, {"set": BOOT}]))
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "plugins", "module_utils"))
    proc = subprocess.Popen([sys.executable, "-m", "gpufabric.twin.emulators.cumulus.nvue_http", "--hostname", HOST,
                             "--user", USER, "--password-file", str(state / "password"), "--certfile", cert,
                             "--keyfile", key, "--port", "0", "--port-file", str(state / "port"),
                             "--startup", str(state / "startup.yaml")], env=env)
    deadline = time.monotonic() + 180  # loading NVIDIA's object model takes a while
    while not (state / "port").exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the NVUE stand-in did not start"
        time.sleep(0.05)
    yield {"port": int((state / "port").read_text()), "ca": cert, "dir": state}
    proc.terminate()
    proc.wait(timeout=10)


def api(switch, method, path, body=None):
    req = urllib.request.Request("https://127.0.0.1:%d/nvue_v1%s" % (switch["port"], path), method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Authorization", "Basic " + base64.b64encode(("%s:%s" % (USER, PASSWORD)).encode()).decode())
    req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, context=ssl.create_default_context(cafile=switch["ca"]), timeout=10) as resp:
        data = resp.read()
        return json.loads(data) if data else None


def applied(switch, rev="applied"):
    return api(switch, "GET", "/?rev=%s&filled=false" % rev)


def revision_status(switch, rev):
    """The HTTP status of GET /revision/<rev> (404: the switch has no such revision)."""
    try:
        api(switch, "GET", "/revision/%s" % rev)
    except urllib.error.HTTPError as exc:
        return exc.code
    return 200


def by_hand(switch, patch):
    """A change made on the switch outside the deploy (nv set ...; nv config apply)."""
    rev = next(iter(api(switch, "POST", "/revision")))
    api(switch, "PATCH", "/?rev=%s" % rev, patch)
    api(switch, "PATCH", "/revision/%s" % rev, {"state": "apply", "auto-prompt": {"ays": "ays_yes"}})
    deadline = time.monotonic() + 10
    while api(switch, "GET", "/revision/%s" % rev)["state"] != "applied":
        assert time.monotonic() < deadline
        time.sleep(0.05)


def build(tmp_path, config):
    device = tmp_path / "build" / "devices" / HOST
    device.mkdir(parents=True, exist_ok=True)
    (device / "structured.yml").write_text(yaml.safe_dump({"hostname": HOST, "role": "backend_leaf", "nos": "cumulus"}))
    (device / "startup.yaml").write_text(yaml.safe_dump([{"header": HEADER}, {"set": config}], sort_keys=False))
    return tmp_path / "build"


def nv_on_path(tmp_path, switch):
    """A PATH whose `nv` reaches the stand-in as the switch's own nv does (nv_shim.py): the deploy applies through it
    with the confirm timer and reads the switch's history for the hand-change guard."""
    bin_dir = tmp_path / "nv-bin"
    bin_dir.mkdir(exist_ok=True)
    (tmp_path / "nv-switch.json").write_text(json.dumps({"port": switch["port"], "ca": switch["ca"], "user": USER,
                                                         "password": PASSWORD}))
    wrapper = bin_dir / "nv"
    shim = os.path.join(os.path.dirname(__file__), "nv_shim.py")
    wrapper.write_text("#!/bin/sh\nexec %s %s \"$@\"\n" % (sys.executable, shim))
    wrapper.chmod(0o755)
    return {"PATH": "%s:%s" % (bin_dir, os.environ.get("PATH", "")), "NV_SHIM": str(tmp_path / "nv-switch.json"),
            "NV_SHIM_MODULE_UTILS": os.path.join(ROOT, "plugins", "module_utils")}


def play(tmp_path, switch, build_root, *args, password=PASSWORD):
    inventory = {"all": {"hosts": {HOST: {
        "ansible_connection": "local", "ansible_python_interpreter": sys.executable,
        "cumulus_deploy_api_host": "127.0.0.1", "cumulus_deploy_api_port": switch["port"],
        "cumulus_deploy_user": USER, "cumulus_deploy_password": password,
        "cumulus_deploy_ca_path": switch["ca"], "cumulus_deploy_poll": 0.1, "cumulus_deploy_apply_timeout": 30,
        "cumulus_deploy_confirm_timeout": 20}}}}
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / "play.yml").write_text("""- hosts: all
  gather_facts: false
  roles:
    - role: gpucluster.fabric.cumulus_deploy
      vars:
        cumulus_deploy_build_root: %s
        cumulus_deploy_expected_role: backend_leaf
""" % build_root)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0", ANSIBLE_INVENTORY_ENABLED="yaml", **nv_on_path(tmp_path, switch))
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", str(tmp_path / "hosts.yml"),
                           str(tmp_path / "play.yml")] + list(args), cwd=ROOT, env=env, check=False,
                          capture_output=True, text=True, timeout=300)
    assert PASSWORD not in proc.stdout + proc.stderr and "wrong-pw-0000" not in proc.stdout + proc.stderr
    return proc


def recap(proc):
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith(HOST) and "changed=" in ln)
    return {k: int(v) for k, v in (field.split("=") for field in line.split(":", 1)[1].split())}


def kept(config):
    out = json.loads(json.dumps(config))
    out["system"]["aaa"] = BOOT["system"]["aaa"]
    return out


def test_cumulus_deploy_role_against_the_nvue_stand_in(tmp_path, switch):
    root = build(tmp_path, TARGET)

    checked = play(tmp_path, switch, root, "--check", "--diff", "-v")
    assert checked.returncode == 0, checked.stdout[-3000:]
    assert recap(checked)["changed"] == 1
    # The difference is NVUE's own (nv config diff applied <rev> of a pending revision never applied), its `- set:`
    # document holding what comes, not a controller-side diff of two YAML texts.
    shown = checked.stdout[checked.stdout.find("(NVUE applied)"):]
    assert re.search(r"\+\+\+ %s \(NVUE revision (\d+), pending, not applied\)" % HOST, shown), checked.stdout[-3000:]
    rev = re.search(r"NVUE revision (\d+), pending", shown).group(1)
    lines = [ln.replace(" ", "") for ln in shown.splitlines()]
    assert "-set:" in lines and "10.0.0.12/31:{}" in lines and "hostname:%s" % HOST in lines, shown[:3000]
    assert "+hostname:%s" % HOST not in lines                            # not the controller's unified diff
    assert applied(switch) == BOOT                                       # check mode sent nothing
    assert revision_status(switch, rev) == 404                           # the pending revision is gone

    first = play(tmp_path, switch, root, "-vvv")
    assert first.returncode == 0, first.stdout[-3000:]
    assert recap(first)["changed"] == 1
    assert applied(switch) == kept(TARGET) and applied(switch, "startup") == kept(TARGET)
    saved = yaml.safe_load((switch["dir"] / "startup.yaml").read_text())
    assert saved[1]["set"]["system"]["hostname"] == HOST                 # nv config save wrote the file

    second = play(tmp_path, switch, root)
    assert second.returncode == 0, second.stdout[-3000:]
    assert recap(second)["changed"] == 0

    # NVUE refuses the revision at apply (BGP enabled without a router-id): the previous one stays applied
    refused = json.loads(json.dumps(TARGET))
    del refused["router"]["bgp"]["router-id"]
    refused["interface"]["swp1"]["description"] = "changed"
    bad = play(tmp_path, switch, build(tmp_path, refused))
    assert bad.returncode != 0 and recap(bad)["failed"] == 1
    assert "%s: NVUE revision" % HOST in bad.stdout and "invalid: Config invalid at router.bgp.enable" in bad.stdout
    assert "the previous configuration is still applied" in bad.stdout
    assert applied(switch) == kept(TARGET)

    denied = play(tmp_path, switch, build(tmp_path, TARGET), "-vvv", password="wrong-pw-0000")
    assert denied.returncode != 0
    assert "%s: NVUE API refused the credentials of user 'automation' (401 Unauthorized)" % HOST in denied.stdout
    assert applied(switch) == kept(TARGET)

    # changed by hand since the last deploy: refused untouched, naming what changed, unless told to overwrite
    by_hand(switch, {"system": {"hostname": "renamed-by-hand"}, "interface": {"swp1": {"description": "by hand"}}})
    drifted = play(tmp_path, switch, build(tmp_path, TARGET))
    assert drifted.returncode != 0
    assert "%s: the configuration running on the switch changed since the last deploy (interface.swp1, " \
        "system.hostname)" % HOST in drifted.stdout
    assert applied(switch)["system"]["hostname"] == "renamed-by-hand"
    overwritten = play(tmp_path, switch, build(tmp_path, TARGET), "-e", "cumulus_deploy_overwrite_changes=true")
    assert overwritten.returncode == 0 and recap(overwritten)["changed"] == 1, overwritten.stdout[-3000:]
    assert applied(switch) == kept(TARGET)
    assert recap(play(tmp_path, switch, build(tmp_path, TARGET)))["changed"] == 0


def test_certificate_checking_stays_on_without_a_ca_bundle(tmp_path, switch):
    root = build(tmp_path, TARGET)
    inventory_ca = switch["ca"]
    try:
        switch["ca"] = ""
        proc = play(tmp_path, switch, root)
    finally:
        switch["ca"] = inventory_ca
    assert proc.returncode != 0
    assert "%s: the certificate of https://127.0.0.1:%d/nvue_v1 is not trusted" % (HOST, switch["port"]) in proc.stdout


def test_deploy_yml_gives_each_switch_the_role_of_its_nos():
    """Every deploy play of playbooks/deploy.yml includes the deploy role its switch's nos_<nos> group names
    (fabric_deploy_role: cumulus_deploy for a Cumulus switch, sonic_deploy for a SONiC one), told the play's fabric
    role through the neutral fabric_deploy_* variables, in the same rolling order; a switch in no nos_<nos> group
    is refused before any play changes anything."""
    from gpufabric.export import nos_group_vars

    with open(os.path.join(ROOT, "playbooks", "deploy.yml")) as f:
        plays = yaml.safe_load(f)

    def rolls(task):
        include = task.get("ansible.builtin.include_role") or {}
        return include.get("name") == "{{ fabric_deploy_role }}" and "tasks_from" not in include

    deploys = [p for p in plays if any(rolls(t) for t in p.get("tasks", ()))]
    # Each role's play takes its switches that differ, wave by wave (group fabric_rollout_<role>, in the rollout's order).
    assert [p["hosts"] for p in deploys] == ["fabric_rollout_" + role for role in (
        "oob_switch", "backend_core", "backend_superspine", "backend_spine", "backend_leaf", "frontend_superspine",
        "frontend_spine", "frontend_leaf")]
    for p in deploys:
        assert "roles" not in p and "max_fail_percentage" not in p, p["name"]
        # The deploy, then the stop after a wave in which a switch failed (the others of the wave finish first).
        task, stop = p["tasks"]
        assert "fabric_rollout_" + task["vars"]["fabric_deploy_expected_role"] == p["hosts"]
        assert "ansible.builtin.fail" in stop and stop["when"] == "_failed | length > 0"
        assert set(p["vars"]) >= {"fabric_deploy_build_root", "fabric_deploy_drain_leaf"}
    assert nos_group_vars({"nos_cumulus": ["a"]})["nos_cumulus"]["fabric_deploy_role"] == "gpucluster.fabric.cumulus_deploy"
    assert nos_group_vars({"nos_sonic": ["a"]})["nos_sonic"]["fabric_deploy_role"] == "gpucluster.fabric.sonic_deploy"
    check = next(p for p in plays if p.get("name") == "Check that each switch's NOS has a deploy role")
    assert plays.index(check) < plays.index(deploys[0]) and check["any_errors_fatal"] is True
    # The first pass compares every switch with the role of its NOS, read only, and stops the deploy on any failure.
    pending = next(p for p in plays if p.get("name") == "Find the switches that differ from their build")
    assert plays.index(check) < plays.index(pending) < plays.index(deploys[0]) and pending["any_errors_fatal"] is True
    compare = pending["tasks"][0]["ansible.builtin.include_role"]
    assert compare["name"] == "{{ fabric_deploy_role }}" and compare["tasks_from"] == "pending"
