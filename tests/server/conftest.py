"""Fixtures of the server tier: a real Redfish emulator process, and the lab plan's host data."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_BIN = os.path.dirname(sys.executable)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redfish():
    """sushy-tools' emulator on 127.0.0.1 (see redfish_emulator.py); yields its base URI, stops it after."""
    pytest.importorskip("sushy_tools", reason="sushy-tools is not installed (requirements-dev.txt)")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "server", "redfish_emulator.py"), str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = "http://127.0.0.1:%d" % port
    try:
        for dummy in range(100):
            try:
                urllib.request.urlopen(base + "/redfish/v1/", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("Redfish emulator exited: %s" % proc.stderr.read().decode()[-500:])
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def ansible_env():
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH=VENV_BIN + os.pathsep + os.environ.get("PATH", ""))
    env.pop("ANSIBLE_STDOUT_CALLBACK", None)
    return env


def run_playbook(args, cwd=ROOT, prefix=(), check=True):
    cmd = list(prefix) + [os.path.join(VENV_BIN, "ansible-playbook")] + args
    res = subprocess.run(cmd, cwd=cwd, env=dict(ansible_env(), ANSIBLE_STDOUT_CALLBACK="json"),
                         capture_output=True, text=True, timeout=300, check=False)
    if check and res.returncode != 0:
        raise AssertionError("ansible-playbook failed (%d):\n%s\n%s"
                             % (res.returncode, res.stdout[-4000:], res.stderr[-2000:]))
    return res


def play_stats(res):
    return json.loads(res.stdout[res.stdout.index("{"):])["stats"]


@pytest.fixture(scope="session")
def lab_hostvars():
    out = subprocess.run([os.path.join(VENV_BIN, "ansible-inventory"), "-i", "inventories/lab", "--list"], cwd=ROOT,
                         env=ansible_env(), capture_output=True, text=True, check=True).stdout
    return json.loads(out)["_meta"]["hostvars"]
