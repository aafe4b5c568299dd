"""sonic_deploy's CONFIG_DB half on a twin leaf, through SONiC's own commands (twin/emulators/sonic): the role reads
`show runningconfiguration all`, takes `config checkpoint`, runs `config replace` and `config save -y`; a
second run changes nothing; the running config it reads carries FRR's (`bgpraw`) and the target it sends has none,
and a target holding it is refused as GCU refuses it; a leaf whose CONFIG_DB was changed by hand since the last deploy
is refused by the hand-change guard (the deploy's record on the switch); logged in as a user who is not root (SONiC's
admin), deploy.yml is refused by `config` without the role's become and goes through with it; a change whose BGP gate
fails is rolled back with `config rollback`, CONFIG_DB equal to the checkpoint again; an MTU change reaches the leaf's
links only through CONFIG_DB (PORT rows), and the validation sees it on traffic (full-size echoes across the leaf are
dropped, small ones pass); a QoS change on a server port takes its link down and up during config replace, as GCU
does, and the deploy says so first.

Needs root, FRR, lldpd and redis-server (`make setup`); skipped with the reason otherwise. About 2 minutes;
run under the twin lock (`flock /tmp/gpufabric-twin.lock pytest tests/twin/test_sonic_configdb_twin.py`).
"""
import json
import os
import pwd
import re
import subprocess
import sys

import pytest
import yaml

from gpufabric import build, specfile, twin
from gpufabric.plan import build_plan

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
LEAF = "lab-r0-leaf01"
CHECKPOINT = "/etc/sonic/%s/checkpoints/gpufabric-pre-deploy.cp.json" % LEAF
# The twin's switches' login user, as SONiC's admin (scripts/twin_login_user.sh, run by make setup).
LOGIN_USER = "gpufabric-admin"


@pytest.fixture(scope="module")
def lab():
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    # Switches seeded from the build (not factory state): this file needs a running fabric, and a first
    # deploy of every switch would cost minutes; tests/twin/test_deploy_twin.py deploys from factory state.
    twin.up(wanted, timeout=60)
    yield plan, wanted
    twin.down(wanted.cluster, wanted.namespaces)


def configdb():
    from gpufabric.twin.emulators.sonic.configdb import RedisConfigDb
    return RedisConfigDb(os.path.join(twin.state_dir("lab"), LEAF, "redis.sock"))


def write_build(plan, directory, edit=None):
    files = build.render_all(plan, devices=[LEAF] + [e.peer.name for e in plan.device(LEAF).bgp_ends()])
    for rel, text in files.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if edit:
        edit(directory, files)
    return files


def deploy(build_root, tmp_path, extra_vars=None):
    play = tmp_path / "deploy_one.yml"
    play.write_text(yaml.safe_dump([{"name": "Deploy one switch from a given build", "hosts": LEAF, "gather_facts": False,
                                     "roles": [{"role": "gpucluster.fabric.sonic_deploy",
                                                "vars": {"sonic_deploy_build_root": str(build_root),
                                                         "sonic_deploy_config_db": True,
                                                         "sonic_deploy_bgp_timeout": 8}}]}]))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                           os.path.join(ROOT, "inventories", "lab-twin"), str(play)]
                          + (["-e", json.dumps(extra_vars)] if extra_vars else []),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    changed = re.search(r"^%s\s+: ok=\d+\s+changed=(\d+)" % LEAF, proc.stdout, re.M)
    return proc, int(changed.group(1)) if changed else None


def on_switch(command, *options):
    """``command`` run on the leaf through the twin's connection (ansible's raw): {"rc", "stdout", "stderr"}."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
               ANSIBLE_STDOUT_CALLBACK="ansible.posix.json")
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible"), "-i",
                           os.path.join(ROOT, "inventories", "lab-twin"), LEAF, "-m", "ansible.builtin.raw", "-a", command]
                          + list(options), cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    return json.loads(proc.stdout)["plays"][0]["tasks"][0]["hosts"][LEAF]


def test_checkpoint_replace_save_then_nothing_to_do(lab, tmp_path):
    plan, _wanted = lab
    db = configdb()
    db.set_entry("PORT", "Ethernet8", dict(db.get_config()["PORT"]["Ethernet8"], description="edited by hand"))
    before = db.get_config()
    write_build(plan, tmp_path / "build")
    proc, changed = deploy(tmp_path / "build", tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert changed and changed > 0
    with open(CHECKPOINT) as f:
        assert json.load(f) == before                          # the checkpoint is CONFIG_DB before the change
    running = db.get_config()
    assert running["PORT"]["Ethernet8"].get("description") != "edited by hand"
    with open("/etc/sonic/%s/config_db.json" % LEAF) as f:      # config save -y
        assert json.load(f) == running
    # The running config the deploy read carries FRR's (bgpraw, as on SONiC); the target it gave config replace has none.
    shown = json.loads(on_switch("show runningconfiguration all")["stdout"])
    assert "\nrouter bgp %s\n" % plan.device(LEAF).asn in shown["bgpraw"]
    with open("/tmp/gpufabric-config_db-%s.json" % LEAF) as f:     # sonic_deploy_staging_file of inventories/lab-twin
        assert json.load(f) == running
    assert_no_timer_armed()
    proc, changed = deploy(tmp_path / "build", tmp_path)
    assert proc.returncode == 0 and changed == 0, proc.stdout[-3000:]


def assert_no_timer_armed():
    """The deploy's switch-side timer is not armed on the leaf, and its undo script is gone."""
    armed = on_switch("systemctl is-active gpufabric-deploy-undo.timer")
    assert armed["rc"] == 3 and armed["stdout"].strip() == "inactive", armed
    assert not os.path.exists("/etc/sonic/%s/gpufabric-deploy-undo.sh" % LEAF)


def test_a_change_cutting_management_is_rolled_back_by_the_switch_side_timer(lab, tmp_path):
    # The build moves the leaf's management address (MGMT_INTERFACE): after config replace the controller cannot reach
    # the leaf at its ansible_host (the netns connection obeys eth0's live addresses, as SSH would). The timer armed
    # before the change runs the undo on the leaf itself; the play waits for the leaf and fails it saying so.
    import ipaddress
    import time
    plan, wanted = lab
    db = configdb()
    before = db.get_config()

    def renumber(directory, _files):
        path = directory / "devices" / LEAF / "config_db.json"
        config = json.loads(path.read_text())
        (key, row), = config["MGMT_INTERFACE"].items()
        port, prefix = key.split("|")
        address = ipaddress.ip_interface(prefix)
        config["MGMT_INTERFACE"] = {"%s|%s/%d" % (port, address.ip + 100, address.network.prefixlen): row}
        path.write_text(json.dumps(config))

    write_build(plan, tmp_path / "build", renumber)
    started = time.monotonic()
    proc, _changed = deploy(tmp_path / "build", tmp_path, {"sonic_deploy_confirm_seconds": 10})
    said = " ".join(proc.stdout.split())
    assert proc.returncode != 0 and "UNREACHABLE!" in said and "port 22: Connection timed out" in said, said[-3000:]
    assert ("%s: the change cut the controller off from the switch, and the switch-side timer gpufabric-deploy-undo.timer "
            "rolled it back by itself (undo finished: config rollback 0, previous frr.conf restored and reloaded none); "
            "config_db is back on checkpoint gpufabric-pre-deploy." % LEAF) in said, said[-3000:]
    assert time.monotonic() - started >= 10
    assert json.dumps(db.get_config(), sort_keys=True) == json.dumps(before, sort_keys=True)
    with open("/etc/sonic/%s/config_db.json" % LEAF) as f:     # nothing saved
        assert json.load(f)["MGMT_INTERFACE"] == before["MGMT_INTERFACE"]
    assert on_switch("systemctl list-timers")["stdout"].endswith("0 timers listed.\n")
    twin.wait_converged(wanted, 60)


def test_replace_of_a_target_holding_bgpraw_is_refused_as_gcu_refuses_it(lab, tmp_path):
    before = configdb().get_config()
    shown = on_switch("show runningconfiguration all > /tmp/gpufabric-bgpraw-%s.json" % LEAF)
    assert shown["rc"] == 0
    refused = on_switch("config replace /tmp/gpufabric-bgpraw-%s.json" % LEAF)
    assert refused["rc"] == 2 and refused["stderr"].startswith("Failed to replace config\n") and refused["stderr"].endswith(
        "\nError: Given patch is not valid because it has changes to tables without YANG models\n"), refused
    assert configdb().get_config() == before


def test_failed_gate_rolls_configdb_back_to_the_checkpoint(lab, tmp_path):
    plan, wanted = lab

    def mtu_and_no_aggregate(directory, files):
        path = directory / "devices" / LEAF / "config_db.json"
        config = json.loads(path.read_text())
        config["PORT"]["Ethernet8"]["mtu"] = "9100"
        path.write_text(json.dumps(config))
        summary = yaml.safe_load(files["devices/%s/structured.yml" % LEAF])["bgp"]["summaries"][0]
        frr = directory / "devices" / LEAF / "frr.conf"
        frr.write_text(frr.read_text().replace("  aggregate-address %s summary-only\n" % summary, ""))

    # A port without its PFC watchdog yet, as a growth's new port: the change adds the row, which GCU refuses on a
    # Dell SKU, so it goes in with config load before config replace, and the rollback must take it out again.
    db = configdb()
    port = sorted(k for k in db.get_config()["PFC_WD"] if k != "GLOBAL")[0]
    watchdog = db.get_config()["PFC_WD"][port]
    db.set_entry("PFC_WD", port, None)
    before = db.get_config()
    write_build(plan, tmp_path / "build", mtu_and_no_aggregate)
    # The row was taken out by hand, here: the hand-change guard would refuse the switch without the override.
    proc, _changed = deploy(tmp_path / "build", tmp_path, {"sonic_deploy_overwrite_changes": True})
    assert proc.returncode != 0
    assert "change rolled back (config_db to checkpoint gpufabric-pre-deploy" in proc.stdout, proc.stdout[-3000:]
    assert re.search(r"TASK \[gpucluster.fabric.sonic_deploy : Write them with config load.*\n(changed|ok): \[%s\]" % LEAF,
                     proc.stdout), proc.stdout[-3000:]
    with open(CHECKPOINT) as f:
        checkpoint = json.load(f)
    assert checkpoint["PORT"]["Ethernet8"]["mtu"] != "9100" and port not in checkpoint["PFC_WD"]
    after = db.get_config()
    assert json.dumps(after, sort_keys=True) == json.dumps(checkpoint, sort_keys=True) == json.dumps(before, sort_keys=True)
    db.set_entry("PFC_WD", port, watchdog)
    twin.wait_converged(wanted, 60)


def test_buffer_profile_change_stops_before_the_checkpoint_with_gcus_refusal(lab, tmp_path):
    plan, _wanted = lab

    def headroom(directory, _files):
        path = directory / "devices" / LEAF / "config_db.json"
        config = json.loads(path.read_text())
        profile = sorted(p for p in config["BUFFER_PROFILE"] if p.startswith("pg_lossless_"))[0]
        config["BUFFER_PROFILE"][profile]["xoff"] = str(int(config["BUFFER_PROFILE"][profile]["xoff"]) + 1024)
        path.write_text(json.dumps(config))

    if os.path.exists(CHECKPOINT):
        os.remove(CHECKPOINT)
    before = configdb().get_config()
    write_build(plan, tmp_path / "build", headroom)
    proc, _changed = deploy(tmp_path / "build", tmp_path)
    assert proc.returncode != 0
    assert "nothing changed (no checkpoint taken): SONiC's config replace would refuse replace /BUFFER_PROFILE/pg_lossless_" in proc.stdout
    assert ("Modification of BUFFER_PROFILE table is illegal- validating function generic_config_updater."
            "field_operation_validators.buffer_profile_config_update_validator returned False") in proc.stdout
    assert not os.path.exists(CHECKPOINT)
    assert configdb().get_config() == before


def test_an_uplink_mtu_change_reaches_the_links_through_configdb_and_validation_sees_it_on_traffic(lab, tmp_path):
    plan, _wanted = lab
    uplinks = sorted(end.port for end in plan.device(LEAF).bgp_ends())

    def small_uplinks(directory, _files):
        path = directory / "devices" / LEAF / "config_db.json"
        config = json.loads(path.read_text())
        for port in uplinks:
            config["PORT"][port]["mtu"] = "1500"
        path.write_text(json.dumps(config))

    def link_mtus():
        links = json.loads(subprocess.run(["ip", "-n", LEAF, "-j", "link", "show"], capture_output=True, text=True,
                                          check=True).stdout)
        return {link["ifname"]: link["mtu"] for link in links if link["ifname"] in uplinks}

    checks = ["mtu", "rail_reachability", "path_mtu"]
    write_build(plan, tmp_path / "small", small_uplinks)
    proc, changed = deploy(tmp_path / "small", tmp_path)
    assert proc.returncode == 0 and changed, proc.stdout[-3000:]
    assert link_mtus() == dict.fromkeys(uplinks, 1500)      # config replace -> PORT rows -> the links (portsorch)
    failed = [r for r in twin.verify(plan, include=checks)["results"] if r.status != "PASS"]
    assert sorted((r.check, r.device, r.object) for r in failed if r.check == "mtu") == [
        ("mtu", LEAF, port) for port in uplinks]
    # Full-size echoes whose path crosses the leaf's uplinks get no answer; small ones on the same paths do.
    dropped = [r for r in failed if r.check == "path_mtu"]
    assert dropped and all(r.message.endswith("has an MTU below 9000; see the mtu check") for r in dropped)
    served = {end.peer.name for end in (link.end(plan.device(LEAF)) for link in plan.device(LEAF).links)
              if end.peer.role == "gpu_server"}
    assert {r.device for r in dropped} >= served and [r for r in failed if r.check == "rail_reachability"] == []

    write_build(plan, tmp_path / "planned")
    proc, changed = deploy(tmp_path / "planned", tmp_path)
    assert proc.returncode == 0 and changed, proc.stdout[-3000:]
    assert set(link_mtus().values()) == {9216}
    assert [r for r in twin.verify(plan, include=checks)["results"] if r.status != "PASS"] == []


def test_a_qos_change_flaps_the_server_port_gcu_holds_down_and_the_deploy_says_so(lab, tmp_path):
    # GCU sets a port admin down around a change to its PORT_QOS_MAP row and back up after (patch_sorter.py's
    # RequiredValueMoveExtender); the twin's link goes down and up with it, and the deploy names the port first.
    plan, _wanted = lab
    port = sorted(end.port for end in (link.end(plan.device(LEAF)) for link in plan.device(LEAF).links)
                  if end.peer.role == "gpu_server")[0]

    def pfc_on_4(directory, _files):
        path = directory / "devices" / LEAF / "config_db.json"
        config = json.loads(path.read_text())
        config["PORT_QOS_MAP"][port]["pfc_enable"] = "3,4"
        path.write_text(json.dumps(config))

    def carrier_changes():
        return int(subprocess.run(["ip", "netns", "exec", LEAF, "cat", "/sys/class/net/%s/carrier_changes" % port],
                                  capture_output=True, text=True, check=True).stdout)

    before = carrier_changes()
    write_build(plan, tmp_path / "pfc", pfc_on_4)
    proc, changed = deploy(tmp_path / "pfc", tmp_path)
    assert proc.returncode == 0 and changed, proc.stdout[-3000:]
    said = " ".join((proc.stdout + proc.stderr).split())      # Ansible wraps its warnings
    assert "%s: config replace will take %s admin down and back up around their QoS changes" % (LEAF, port) in said
    assert configdb().get_config()["PORT_QOS_MAP"][port]["pfc_enable"] == "3,4"
    assert carrier_changes() >= before + 2                  # down, then up: during config replace
    up = json.loads(subprocess.run(["ip", "-n", LEAF, "-j", "link", "show", "dev", port], capture_output=True,
                                   text=True, check=True).stdout)[0]
    assert "UP" in up["flags"]
    write_build(plan, tmp_path / "planned")
    proc, changed = deploy(tmp_path / "planned", tmp_path)
    assert proc.returncode == 0 and changed, proc.stdout[-3000:]


def deploy_playbook(tmp_path, extra_vars):
    """playbooks/deploy.yml on the leaf alone (--limit), built from the lab's spec into ``tmp_path``."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                           os.path.join(ROOT, "inventories", "lab-twin"), os.path.join(ROOT, "playbooks", "deploy.yml"),
                           "--limit", LEAF, "-e", json.dumps(dict(extra_vars, build_dir=str(tmp_path / "build")))],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    changed = re.search(r"^%s\s+: ok=\d+\s+changed=(\d+)" % LEAF, proc.stdout, re.M)
    return proc, int(changed.group(1)) if changed else None


def test_a_hand_change_is_refused_then_the_login_user_deploys_only_with_the_roles_become(lab, tmp_path):
    try:
        pwd.getpwnam(LOGIN_USER)
    except KeyError:
        pytest.skip("no user %s on this machine: make setup creates it (scripts/twin_login_user.sh)" % LOGIN_USER)
    # The earlier deploys left their record on the leaf; a port edited by hand since is refused by deploy.yml's first
    # pass, from a build directory of its own (as an AWX job: nothing of the controller's), and nothing changes.
    with open("/etc/sonic/%s/gpufabric-deploy.json" % LEAF) as f:
        assert "PORT" in json.load(f)["config_db"]
    db = configdb()
    db.set_entry("PORT", "Ethernet8", dict(db.get_config()["PORT"]["Ethernet8"], description="edited by hand"))
    before = db.get_config()
    proc, changed = deploy_playbook(tmp_path, {})
    assert proc.returncode != 0 and not changed, proc.stdout[-3000:]
    assert "%s: the configuration on the switch changed since the last deploy (PORT), by hand" % LEAF in proc.stdout, \
        proc.stdout[-3000:]
    assert db.get_config() == before
    # Its own staging file: earlier runs as root left theirs in the machine's shared /tmp.
    login = {"ansible_user": LOGIN_USER, "sonic_deploy_staging_file": "/tmp/gpufabric-config_db-%s-%s.json"
             % (LOGIN_USER, LEAF), "sonic_deploy_overwrite_changes": True}
    proc, _changed = deploy_playbook(tmp_path, dict(login, sonic_deploy_become=False))
    assert proc.returncode != 0 and "Root privileges are required for this operation" in proc.stdout, proc.stdout[-3000:]
    assert db.get_config() == before
    proc, changed = deploy_playbook(tmp_path, login)
    assert proc.returncode == 0 and changed, proc.stdout[-3000:]
    assert db.get_config()["PORT"]["Ethernet8"].get("description") != "edited by hand"
    proc, changed = deploy_playbook(tmp_path, login)
    assert proc.returncode == 0 and changed == 0, proc.stdout[-3000:]
