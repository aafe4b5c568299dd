"""Fixtures of the server tier: a real Redfish emulator process, and the lab plan's host data."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from server_helpers import ROOT, VENV_BIN, ansible_env


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


@pytest.fixture(scope="session")
def lab_hostvars():
    out = subprocess.run([os.path.join(VENV_BIN, "ansible-inventory"), "-i", "inventories/lab", "--list"], cwd=ROOT,
                         env=ansible_env(), capture_output=True, text=True, check=True).stdout
    return json.loads(out)["_meta"]["hostvars"]


@pytest.fixture(scope="session")
def lab_build(tmp_path_factory):
    """The lab's build (what playbooks/build.yml writes), in a scratch directory: the role installs from it."""
    import yaml
    from gpufabric.build import write_build
    from gpufabric.planner import build_plan

    with open(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml"), encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    root = tmp_path_factory.mktemp("build")
    write_build(build_plan(spec), str(root))
    return str(root)
