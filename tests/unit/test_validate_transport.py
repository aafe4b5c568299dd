"""A device's commands run as one shell script (one SSH session a device), each keeping its own output,
standard error and exit status; a device that cannot be reached fails every source at once."""
import os
import stat

import pytest

from gpufabric.validate.state import collect_commands
from gpufabric.device_command import Command
from gpufabric.validate.transport import (CommandFailed, SshTransport, Unavailable, batch_script,
                                          split_batch)

SCRIPTS = ["printf 'a\\nb\\n'", "echo oops >&2; exit 3", "printf 'no newline'", "# only a comment",
           "echo warning >&2; echo ok", "false"]


def _run_local(script):
    import subprocess
    return subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True).stdout


def test_each_command_keeps_its_output_and_status():
    script, mark = batch_script(SCRIPTS)
    out = split_batch(_run_local(script), mark, len(SCRIPTS), SCRIPTS)
    assert out[0] == "a\nb\n" and out[2] == "no newline" and out[3] == "" and out[4] == "ok\n"
    assert isinstance(out[1], CommandFailed) and "exited 3: oops" in str(out[1])
    assert isinstance(out[5], CommandFailed) and "exited 1" in str(out[5])


def test_output_that_stops_early_fails_only_the_commands_it_lacks():
    script, mark = batch_script(SCRIPTS[:3])
    text = _run_local(script)
    cut = text[:text.index("%s out 2" % mark)]
    out = split_batch(cut, mark, 3, SCRIPTS[:3])
    assert out[0] == "a\nb\n" and isinstance(out[1], CommandFailed)
    assert isinstance(out[2], CommandFailed) and "ended early" in str(out[2])


def test_a_marker_in_the_output_of_a_command_is_not_taken_for_the_batch():
    script, mark = batch_script(["echo '@@gpufabric-0000 out 1'", "echo two"])
    assert split_batch(_run_local(script), mark, 2, ["one", "two"]) == ["@@gpufabric-0000 out 1\n", "two\n"]


@pytest.fixture
def fake_ssh(tmp_path, monkeypatch):
    """An `ssh` on PATH that logs each call and runs the remote command here (exit 255 for host 'down')."""
    log = tmp_path / "calls"
    ssh = tmp_path / "ssh"
    ssh.write_text('#!/bin/sh\necho call >> %s\nfor last; do :; done\n'
                   'case " $* " in *" down "*) echo "ssh: connect: No route to host" >&2; exit 255;; esac\n'
                   'exec sh -c "$last"\n' % log)
    ssh.chmod(ssh.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", "%s:%s" % (tmp_path, os.environ["PATH"]))
    return log


def test_ssh_runs_a_device_in_one_session(fake_ssh):
    transport = SshTransport(hosts={"leaf1": {"host": "leaf1", "flavour": "linux"}})
    out = transport.run_many("leaf1", [Command("sh", "echo one"), Command("native", "x"), Command("sh", "exit 4")])
    assert out[0] == "one\n" and isinstance(out[1], Unavailable) and isinstance(out[2], CommandFailed)
    assert fake_ssh.read_text().count("call") == 1


def test_an_unreachable_device_fails_every_source_and_says_why(fake_ssh):
    transport = SshTransport(hosts={"leaf1": {"host": "down"}})
    state = collect_commands(transport, "leaf1", "backend_leaf", ["bgp", "links", "routes"])
    assert set(state.errors) == {"bgp", "links", "routes"}
    assert all("No route to host" in text for text in state.errors.values())
    assert fake_ssh.read_text().count("call") == 1


def test_napalm_without_a_driver_assumes_no_nos():
    from gpufabric.validate.napalm_state import collect_napalm
    state = collect_napalm("leaf1", "backend_leaf", ["bgp", "lldp"], None, "leaf1")
    assert set(state.errors) == {"bgp", "lldp"}
    assert all("no napalm_driver for leaf1" in text for text in state.errors.values())
