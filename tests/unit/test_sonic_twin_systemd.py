"""The twin SONiC switch's `systemd-run` / `systemctl` (twin/emulators/sonic/systemd.py): transient timers as systemd
252 makes them for the options modelled (systemd-run(1), systemd.timer(5), systemd.time(7), systemctl(1)), everything
else refused; and its management port as its live MGMT_INTERFACE says (mgmt.py), which the netns connection obeys."""
import io
import json
import os
import time

import pytest

from gpufabric.twin.emulators.sonic import mgmt, systemctl, systemd


@pytest.fixture
def switch(tmp_path):
    etc = tmp_path / "etc-sonic"
    etc.mkdir()
    (etc / "database_config.json").write_text(json.dumps(
        {"INSTANCES": {"redis": {"unix_socket_path": str(tmp_path / "run" / "redis.sock")}}}))
    return str(etc)


def cmd(switch, *argv, uid=0):
    out, err = io.StringIO(), io.StringIO()
    code = systemctl.main(list(argv), etc_sonic=switch, out=out, err=err, uid=uid)
    return code, out.getvalue(), err.getvalue()


def until(condition, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_time_spans_as_systemd_reads_them():
    assert systemd.span("30") == 30 and systemd.span("30s") == 30 and systemd.span("2min 5s") == 125
    assert systemd.span("1.5h") == 5400 and systemd.span("100ms") == pytest.approx(0.1)
    for bad in ("", "10x", "s", "-5s"):
        with pytest.raises(systemd.Refused, match="Failed to parse timer value"):
            systemd.span(bad)


def test_a_timer_runs_its_command_when_due_then_is_gone(switch, tmp_path):
    mark = tmp_path / "fired"
    code, _out, err = cmd(switch, "systemd-run", "--on-active=0.3s", "--timer-property=AccuracySec=100ms",
                          "--unit=undo", "/bin/sh", "-c", "echo \"$PATH\" > %s; id -u >> %s" % (mark, mark))
    assert code == 0 and err == "Running timer as unit: undo.timer\nWill run service as unit: undo.service\n"
    assert cmd(switch, "systemctl", "is-active", "undo.timer")[:2] == (0, "active\n")
    assert until(lambda: mark.exists() and len(mark.read_text().splitlines()) == 2)
    path, uid = mark.read_text().split()
    assert path == systemd.SERVICE_PATH and uid == str(os.geteuid())     # the manager's PATH, not the caller's
    # RemainAfterElapse=no and a service that succeeded: both unloaded.
    assert until(lambda: cmd(switch, "systemctl", "is-active", "undo.timer", "undo")[1] == "inactive\ninactive\n")
    code, _out, err = cmd(switch, "systemctl", "stop", "undo.timer")
    assert code == 5 and err == "Failed to stop undo.timer: Unit undo.timer not loaded.\n"


def test_stop_disarms_and_ends_the_timers_process(switch, tmp_path):
    assert cmd(switch, "systemd-run", "-q", "--on-active=30", "--unit=undo", "/bin/true") == (0, "", "")
    record = systemd.load(systemd.unit_dir(switch), "undo.timer")
    assert record["due"] - time.time() > 30 + 55        # AccuracySec= defaults to 1min: the latest it may elapse
    code, out, _err = cmd(switch, "systemctl", "list-timers")
    assert code == 0 and "undo.timer undo.service" in out and "1 timers listed." in out
    code, _out, err = cmd(switch, "systemd-run", "--on-active=30", "--unit=undo", "/bin/true")
    assert code == 1 and "Unit undo.timer was already loaded" in err
    assert cmd(switch, "systemctl", "stop", "undo.timer") == (0, "", "")
    assert until(lambda: not os.path.exists("/proc/%d" % record["pid"]) or
                 open("/proc/%d/stat" % record["pid"]).read().split()[2] == "Z")
    assert cmd(switch, "systemctl", "is-active", "undo.timer") == (3, "inactive\n", "")


def test_a_unit_whose_process_is_gone_is_not_loaded(switch):
    # A transient unit does not survive a reboot: the twin switch brought down and up has none.
    units = systemd.unit_dir(switch)
    os.makedirs(units)
    with open(os.path.join(units, "undo.timer.json"), "w") as f:
        json.dump({"unit": "undo.timer", "pid": 2 ** 22 + 7, "started": "1", "due": time.time() + 60}, f)
    assert cmd(switch, "systemctl", "is-active", "undo.timer")[:2] == (3, "inactive\n")
    assert not os.path.exists(os.path.join(units, "undo.timer.json"))


def test_a_failed_service_stays_until_reset_unless_collected(switch):
    args = ["--on-active=0.1", "--timer-property=AccuracySec=1ms", "--unit=bad", "/bin/false"]
    assert cmd(switch, "systemd-run", "-q", *args)[0] == 0
    assert until(lambda: cmd(switch, "systemctl", "is-active", "bad")[1] == "failed\n")
    assert cmd(switch, "systemd-run", "-q", *args)[0] == 1                # the failed service blocks the name
    assert cmd(switch, "systemctl", "reset-failed", "bad.service")[0] == 0
    assert cmd(switch, "systemd-run", "-q", "--collect", *args)[0] == 0
    assert until(lambda: cmd(switch, "systemctl", "is-active", "bad.timer", "bad")[1] == "inactive\ninactive\n")


@pytest.mark.parametrize("args, message", [
    (["--on-active=5", "--bogus", "/bin/true"], "systemd-run: unrecognized option '--bogus'"),
    (["--on-calendar=daily", "/bin/true"], "option --on-calendar is not modelled by the twin"),
    (["--on-active=5", "--timer-property=Persistent=yes", "/bin/true"], "--timer-property=Persistent is not modelled"),
    (["--on-active=5x", "/bin/true"], "Failed to parse timer value: 5x"),
    (["/bin/true"], "the twin models transient timers only"),
    (["--on-active=5", "--unit=a/b", "/bin/true"], "Failed to mangle unit name: Invalid argument"),
    (["--on-active=5", "no-such-command-x"], "Failed to find executable no-such-command-x: No such file or directory"),
    (["--on-active", "5"], "COMMAND missing"),
])
def test_what_systemd_run_refuses(switch, args, message):
    code, _out, err = cmd(switch, "systemd-run", *args)
    assert code == 1 and message in err and err.count("\n") == 1


def test_a_user_who_is_not_root_is_refused(switch):
    code, _out, err = cmd(switch, "systemd-run", "--on-active=5", "/bin/true", uid=1000)
    assert code == 1 and err == "Failed to start transient timer unit: Interactive authentication required.\n"
    assert cmd(switch, "systemctl", "stop", "x.timer", uid=1000)[0] == 4
    assert cmd(switch, "systemctl", "frobnicate")[2] == "Unknown command verb frobnicate.\n"


def test_eth0_answers_on_mgmt_interface_or_dhcp(tmp_path):
    assert mgmt.addresses({}) is None
    config = {"MGMT_INTERFACE": {"eth0|10.0.0.5/24": {"gwaddr": "10.0.0.1"}, "eth1|10.9.9.9/24": {}}}
    assert mgmt.addresses(config) == ["10.0.0.5"]
    assert mgmt.publish(str(tmp_path), config) and not mgmt.publish(str(tmp_path), config)
    assert json.loads((tmp_path / mgmt.FILE).read_text()) == {"addresses": ["10.0.0.5"]}


def test_the_connection_refuses_an_address_the_switch_does_not_answer_on(tmp_path):
    from test_twin_nos_wiring import _connection
    from gpufabric.twin import netns_env
    conn = _connection()
    assert conn.REACH_FILE == mgmt.FILE
    netns_env.write(str(tmp_path / "lab"), "lab-leaf1", path=["/run/nos/bin"])
    env = conn.device_env("lab-leaf1", root=str(tmp_path))
    assert "reach" not in env and conn.unreachable("lab-leaf1", env, "10.0.0.5") is None
    mgmt.publish(str(tmp_path / "lab" / "lab-leaf1"), {"MGMT_INTERFACE": {"eth0|10.0.0.6/24": {}}})
    env = conn.device_env("lab-leaf1", root=str(tmp_path))
    assert "10.0.0.5 port 22: Connection timed out" in conn.unreachable("lab-leaf1", env, "10.0.0.5")
    assert conn.unreachable("lab-leaf1", env, "10.0.0.6") is None
    mgmt.publish(str(tmp_path / "lab" / "lab-leaf1"), {})       # DHCP: the planned address
    assert conn.unreachable("lab-leaf1", conn.device_env("lab-leaf1", root=str(tmp_path)), "10.0.0.5") is None
