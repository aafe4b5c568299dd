"""Fixtures of the server tier: the iDRAC9 double as a process, the lab's build, and the lab plan's host data."""
import json
import os
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from server_helpers import ROOT, VENV_BIN, ansible_env


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def tls_pair(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1, as an iDRAC ships one."""
    d = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=idrac",
                    "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")], check=True, capture_output=True)
    return str(d / "cert.pem"), str(d / "key.pem")


class Idrac:
    """A running iDRAC9 double: ``address`` (host:port), ``state()`` as it dumps it after every change."""

    def __init__(self, address, state_file):
        self.address, self.state_file = address, state_file

    def state(self):
        with open(self.state_file, encoding="utf-8") as f:
            return json.load(f)


@pytest.fixture
def idrac(tls_pair, tmp_path):
    """tests/server/idrac9_double.py on 127.0.0.1 (HTTPS, root/calvin), stopped after the test."""
    port = _free_port()
    state_file = str(tmp_path / "idrac-state.json")
    with open(state_file, "w", encoding="utf-8") as f:
        json.dump({}, f)
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "server", "idrac9_double.py"), str(port),
                             tls_pair[0], tls_pair[1], state_file], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    try:
        for dummy in range(100):
            try:
                urllib.request.urlopen("https://127.0.0.1:%d/redfish/v1" % port, timeout=1, context=context)
            except urllib.error.HTTPError:
                break       # 401 without credentials: it is up
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("iDRAC double exited: %s" % proc.stderr.read().decode()[-500:])
                time.sleep(0.1)
        yield Idrac("127.0.0.1:%d" % port, state_file)
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
    from gpufabric.plan import build_plan

    with open(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml"), encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    root = tmp_path_factory.mktemp("build")
    write_build(build_plan(spec), str(root))
    return str(root)
