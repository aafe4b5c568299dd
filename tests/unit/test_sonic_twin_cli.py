"""SONiC's commands on a twin switch over a real redis-server: the deploy's sequence (checkpoint, replace, save,
rollback) with SONiC's output and exit codes, refusals leaving CONFIG_DB as it was, and the redis encoding
SONiC uses (CONFIG_DB is database 4, lists in "field@")."""
import copy
import io
import json
import os

import pytest

from conftest import YANG_MODELS, lab_leaf_config_db, needs_sonic_yang

pytest.importorskip("jsonpatch", reason="the SONiC twin needs jsonpatch (requirements.txt)")
needs_sonic_yang()

from gpufabric.twin.emulators.sonic import cli, orchagent, redis_db, show  # noqa: E402

if redis_db.missing():
    pytest.skip(redis_db.missing(), allow_module_level=True)


@pytest.fixture(scope="module")
def leaf():
    return lab_leaf_config_db()


@pytest.fixture
def switch(tmp_path, leaf):
    """A switch's /etc/sonic and its redis, CONFIG_DB loaded from config_db.json as at boot."""
    etc, run = str(tmp_path / "etc-sonic"), str(tmp_path / "run")
    redis_db.switch_files(etc, run, "broadcom", "SONiC.202511.0-twin", YANG_MODELS, config_db=leaf)
    assert redis_db.start(run) is True
    assert redis_db.start(run) is False          # idempotent
    code, _out, _err = run_cmd(etc, "config", "reload", "-y")
    assert code == 0
    yield etc
    assert redis_db.stop([run]) == [run]
    assert not redis_db.alive(run)


def run_cmd(etc, *argv, answer=None):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), etc_sonic=etc, out=out, err=err, stdin=lambda: answer)
    return code, out.getvalue(), err.getvalue()


def running(etc):
    code, out, _err = run_cmd(etc, "sonic-cfggen", "-d", "--print-data")
    assert code == 0
    return json.loads(out)


def test_configdb_in_database_4_with_sonic_encoding(switch, leaf):
    code, out, _err = run_cmd(switch, "sonic-db-cli", "CONFIG_DB", "HGET", "PORT|Ethernet0", "mtu")
    assert (code, out) == (0, leaf["PORT"]["Ethernet0"]["mtu"] + "\n")
    table, field = next((k, f) for k, row in leaf["ACL_TABLE"].items() for f, v in row.items() if isinstance(v, list))
    code, out, _err = run_cmd(switch, "sonic-db-cli", "CONFIG_DB", "HGET", "ACL_TABLE|" + table, field + "@")
    assert out.strip() == ",".join(leaf["ACL_TABLE"][table][field])
    # APPL_DB holds what portmgrd/portsorch write (a PORT_TABLE row per port, a LAG_TABLE row per PortChannel).
    assert run_cmd(switch, "sonic-db-cli", "APPL_DB", "DBSIZE")[1] == "%d\n" % (len(leaf["PORT"])
                                                                                + len(leaf.get("PORTCHANNEL", {})))
    assert running(switch) == leaf
    assert run_cmd(switch, "sonic-cfggen", "-d", "-v", "DEVICE_METADATA.localhost.hwsku")[1] == "DellEMC-Z9332f-O32\n"


def test_checkpoint_replace_save_rollback(switch, leaf, tmp_path):
    assert run_cmd(switch, "config", "checkpoint", "gpufabric-pre-deploy") == (0, "Checkpoint created successfully.\n", "")
    assert json.loads(run_cmd(switch, "config", "list-checkpoints")[1]) == ["gpufabric-pre-deploy"]
    target = copy.deepcopy(leaf)
    target["PORT"]["Ethernet8"]["mtu"] = "9100"
    path = tmp_path / "target.json"
    path.write_text(json.dumps(target))
    assert run_cmd(switch, "config", "replace", str(path)) == (0, "Config replaced successfully.\n", "")
    assert running(switch) == target
    code, out, err = run_cmd(switch, "config", "save")                    # no -y and no answer: click aborts
    assert (code, err) == (1, "Aborted!\n")
    code, out, err = run_cmd(switch, "config", "save", "-y")
    assert code == 0
    with open(os.path.join(switch, "config_db.json")) as f:
        text = f.read()
    assert json.loads(text) == target and text == json.dumps(cli.sort_dict(target), indent=4)
    assert run_cmd(switch, "config", "rollback", "gpufabric-pre-deploy") == (0, "Config rolled back successfully.\n", "")
    with open(os.path.join(switch, "checkpoints", "gpufabric-pre-deploy.cp.json")) as f:
        assert json.dumps(running(switch), sort_keys=True) == json.dumps(json.load(f), sort_keys=True)
    assert run_cmd(switch, "config", "delete-checkpoint", "gpufabric-pre-deploy")[0] == 0
    code, out, err = run_cmd(switch, "config", "rollback", "gpufabric-pre-deploy")
    assert code == 2 and err == ('Failed to rollback config\nUsage: config rollback [OPTIONS] CHECKPOINT_NAME\n'
                                 'Try "config rollback -h" for help.\n\nError: Checkpoint \'gpufabric-pre-deploy\' does not exist\n')


def test_refused_replace_and_patch_leave_configdb_as_it_was(switch, leaf, tmp_path):
    target = copy.deepcopy(leaf)
    target["BUFFER_POOL"]["ingress_lossless_pool"]["size"] = "1000"
    path = tmp_path / "target.json"
    path.write_text(json.dumps(target))
    code, out, err = run_cmd(switch, "config", "replace", "--dry-run", str(path))   # the same checks, no write
    assert code == 2 and out == "** DRY RUN EXECUTION **\n" and "BUFFER_POOL table is illegal" in err
    code, _out, err = run_cmd(switch, "config", "replace", str(path))
    assert code == 2
    assert err.startswith("Failed to replace config\nUsage: config replace [OPTIONS] TARGET_FILE_PATH\n")
    assert err.endswith("Error: Modification of BUFFER_POOL table is illegal- validating function generic_config_updater."
                        "field_operation_validators.rdma_config_update_validator returned False\n")
    patch = tmp_path / "patch.json"
    patch.write_text(json.dumps([{"op": "replace", "path": "/PORT/Ethernet8/mtu", "value": "99999"}]))
    code, _out, err = run_cmd(switch, "config", "apply-patch", str(patch))
    assert code == 2 and err.startswith("Failed to apply patch due to: Failed to apply patch on the following scopes:\n"
                                        "- localhost: Given patch will produce invalid config. Error: ")
    assert running(switch) == leaf
    patch.write_text(json.dumps([{"op": "replace", "path": "/PORT/Ethernet8/admin_status", "value": "down"}]))
    assert run_cmd(switch, "config", "apply-patch", "-d", str(patch)) == (
        0, "** DRY RUN EXECUTION **\nPatch applied successfully.\n", "")
    assert running(switch) == leaf
    assert run_cmd(switch, "config", "apply-patch", str(patch)) == (0, "Patch applied successfully.\n", "")
    assert run_cmd(switch, "sonic-db-cli", "CONFIG_DB", "HGET", "PORT|Ethernet8", "admin_status")[1] == "down\n"


def test_apply_patch_into_a_table_not_there_yet(switch, leaf, tmp_path):
    # 202511's config apply-patch adds the missing table empty first (config/main.py, PR #4095): GCU then accepts it.
    patch = tmp_path / "vlan.json"
    patch.write_text(json.dumps([{"op": "add", "path": "/VLAN/Vlan100", "value": {"vlanid": "100"}}]))
    assert "VLAN" not in leaf
    assert run_cmd(switch, "config", "apply-patch", str(patch)) == (0, "Patch applied successfully.\n", "")
    assert running(switch)["VLAN"] == {"Vlan100": {"vlanid": "100"}}
    # A field of a row that is not there is still refused, before GCU, in SONiC's words.
    patch.write_text(json.dumps([{"op": "add", "path": "/VLAN_MEMBER/Vlan100|Ethernet8/tagging_mode", "value": "tagged"}]))
    code, _out, err = run_cmd(switch, "config", "apply-patch", str(patch))
    assert code == 2 and err.startswith("Failed to apply patch due to: Validate json patch: [{'op': 'add', 'path': "
                                        "'/VLAN_MEMBER', 'value': {}}, ") and "failed due to:member 'Vlan100|Ethernet8'" in err
    assert "VLAN_MEMBER" not in running(switch)


def test_a_redis_that_is_down_is_one_line(switch, tmp_path):
    redis_db.stop([str(tmp_path / "run")])
    code, _out, err = run_cmd(switch, "config", "checkpoint", "x")
    assert code == 1 and err.startswith("config: ") and len(err.splitlines()) == 1
    assert not os.path.exists(os.path.join(switch, "checkpoints", "x.cp.json"))
    redis_db.start(str(tmp_path / "run"))


class FakeLinks:
    """`ip` in a namespace holding the links ``links`` ({name: (up, mtu, master)}); records what it is told."""

    def __init__(self, links):
        self.links, self.calls = links, []

    def __call__(self, argv):
        self.calls.append(argv)
        if argv[:2] == ["ip", "-j"]:
            shown = [dict(ifname=name, flags=["BROADCAST", "UP"] if up else ["BROADCAST"], mtu=mtu,
                          **({"master": master} if master else {})) for name, (up, mtu, master) in self.links.items()]
            return type("Proc", (), {"stdout": json.dumps(shown)})()
        return type("Proc", (), {"stdout": ""})()


def test_portsorch_stand_in_sets_admin_state_and_mtu_of_the_cabled_ports_only():
    config = {"PORT": {"Ethernet0": {"admin_status": "down", "mtu": "9216"},     # a spare's port, taken down
                       "Ethernet8": {"admin_status": "up", "mtu": "9100"},       # an MTU change
                       "Ethernet16": {"admin_status": "up", "mtu": "9216"},      # as it is
                       "Ethernet24": {"admin_status": "up", "mtu": "1500"},      # a LAG member: its LAG's MTU
                       "Ethernet32": {"admin_status": "up", "mtu": "9216"}}}     # no cable on the twin
    ip = FakeLinks({"Ethernet0": (True, 9216, None), "Ethernet8": (True, 9216, None),
                    "Ethernet16": (True, 9216, None), "Ethernet24": (True, 9216, "PortChannel1")})
    assert orchagent.program_ports(config, ip) == ["Ethernet0 down", "Ethernet8 mtu 9100"]
    assert ip.calls[1:] == [["ip", "link", "set", "dev", "Ethernet0", "down"],
                            ["ip", "link", "set", "dev", "Ethernet8", "mtu", "9100"]]
    ip.links.update(Ethernet0=(False, 9216, None), Ethernet8=(True, 9100, None))
    assert orchagent.program_ports(config, ip) == []          # a second pass changes nothing


def test_frr_reload_of_a_vrf_leaf_reloads_only_its_frr_conf(switch, tmp_path, monkeypatch):
    """The bgp container's frr-reload.py on a twin leaf with tenant VRFs: only `--reload /etc/frr/frr.conf` can be
    translated (anything else is refused before a change); a switch with none runs FRR's own, unchanged."""
    conf = tmp_path / "frr.conf"
    conf.write_text("router bgp 64514\nexit\n!\nrouter bgp 64514 vrf Vrf-alpha\nexit\n")
    code, _out, err = run_cmd(switch, "frr-reload.py", "--test", str(conf))
    assert code == 2 and "only with --reload /etc/frr/frr.conf" in err and len(err.splitlines()) == 1
    execs = []
    monkeypatch.setattr(cli.os, "execv", lambda path, argv: execs.append(argv) or 0)
    conf.write_text("router bgp 64514\nexit\n")
    run_cmd(switch, "frr-reload.py", "--reload", str(conf))
    assert execs == [[orchagent.FRR_RELOAD, "--reload", str(conf)]]


RUNNING_CONFIG = "Building configuration...\n\nCurrent configuration:\n!\nfrr version 8.4.4\nrouter bgp 65101\n!\nend\n"


def fake_vtysh(tmp_path, monkeypatch, exit_code=0):
    """vtysh printing a running config (FRR's), or failing as vtysh does when no daemon answers."""
    script = tmp_path / "vtysh"
    script.write_text("#!/bin/sh\n[ \"$*\" = \"-c show running-config\" ] || exit 9\n"
                      + ("printf '%%s' '%s'\n" % RUNNING_CONFIG if exit_code == 0 else
                         "echo 'Exiting: failed to connect to any daemons.' >&2\n")
                      + "exit %d\n" % exit_code)
    script.chmod(0o755)
    monkeypatch.setattr(show, "VTYSH", str(script))


def test_show_runningconfiguration_all_adds_frrs_running_config_as_bgpraw(switch, leaf, tmp_path, monkeypatch):
    # sonic-utilities show/main.py, single-ASIC: CONFIG_DB as sonic-cfggen prints it, then "bgpraw" last.
    fake_vtysh(tmp_path, monkeypatch)
    code, out, err = run_cmd(switch, "show", "runningconfiguration", "all")
    shown = json.loads(out)
    assert (code, err) == (0, "") and list(shown)[-1] == "bgpraw"
    assert shown.pop("bgpraw") == RUNNING_CONFIG and shown == leaf
    assert "bgpraw" not in running(switch)                     # not in CONFIG_DB: sonic-cfggen does not print it
    fake_vtysh(tmp_path, monkeypatch, exit_code=1)            # vtysh fails: its output echoed, bgpraw ""
    code, out, err = run_cmd(switch, "show", "runningconfiguration", "all")
    assert code == 0 and "failed to connect" in err and json.loads(out)["bgpraw"] == ""


def test_replace_refuses_a_target_holding_bgpraw_as_gcu_does(switch, leaf, tmp_path, monkeypatch):
    # The target a deploy would send if it kept what `show runningconfiguration all` printed: GCU reads CONFIG_DB
    # without bgpraw (gu_common.get_config_db_as_json), so the patch adds a table with no YANG model.
    fake_vtysh(tmp_path, monkeypatch)
    path = tmp_path / "target.json"
    path.write_text(run_cmd(switch, "show", "runningconfiguration", "all")[1])
    code, out, err = run_cmd(switch, "config", "replace", str(path))
    assert (code, out) == (2, "")
    assert err == ('Failed to replace config\nUsage: config replace [OPTIONS] TARGET_FILE_PATH\nTry "config replace -h" '
                   'for help.\n\nError: Given patch is not valid because it has changes to tables without YANG models\n')
    assert running(switch) == leaf
    target = json.loads(path.read_text())
    del target["bgpraw"]
    path.write_text(json.dumps(target))
    assert run_cmd(switch, "config", "replace", str(path)) == (0, "Config replaced successfully.\n", "")


def test_config_refuses_a_user_who_is_not_root_as_sonic_does(switch, leaf, tmp_path, monkeypatch):
    # sonic-utilities config/main.py: the `config` group exits with this line before any subcommand runs; SONiC's
    # read commands stay open to the login user.
    path = tmp_path / "target.json"
    path.write_text(json.dumps(dict(leaf, PORT=dict(leaf["PORT"], Ethernet8=dict(leaf["PORT"]["Ethernet8"], mtu="9100")))))
    monkeypatch.setattr(cli.os, "geteuid", lambda: 1000)
    for argv in (["replace", str(path)], ["checkpoint", "x"], ["save", "-y"], ["rollback"]):
        assert run_cmd(switch, "config", *argv) == (1, "", "Root privileges are required for this operation\n")
    assert run_cmd(switch, "sonic-cfggen", "-d", "-v", "PORT.Ethernet8.mtu")[1] == leaf["PORT"]["Ethernet8"]["mtu"] + "\n"
    assert not os.path.exists(os.path.join(switch, "checkpoints", "x.cp.json"))
    monkeypatch.undo()
    # Run as root for a login user by the twin's command wrapper (plane.py), which says who called it.
    monkeypatch.setenv(cli.CALLER_UID, "999")
    assert run_cmd(switch, "config", "replace", str(path)) == (1, "", "Root privileges are required for this operation\n")
    monkeypatch.undo()
    assert run_cmd(switch, "config", "replace", str(path)) == (0, "Config replaced successfully.\n", "")
