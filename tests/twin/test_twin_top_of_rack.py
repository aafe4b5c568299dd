"""A top-of-rack backend as a virtual twin: built, brought up, checked against its plan and torn
down with the playbooks users run (inventories/tor-lab: 2 leaves, each taking all 16 GPUs of the
2 servers of its rack, and 2 spines).

Needs root, FRR and lldpd (`make setup`); skipped with the reason otherwise.
"""
import os
import subprocess
import sys

import pytest

from gpufabric import twin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
PLAYBOOK = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")


def play(name, *extra):
    proc = subprocess.run([PLAYBOOK, "-i", "inventories/tor-lab", "playbooks/%s.yml" % name] + list(extra),
                          cwd=ROOT, capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def tor_twin():
    rc, out = play("build")
    assert rc == 0, out
    rc, out = play("twin")
    try:
        assert rc == 0, out
        yield out
    finally:
        play("twin", "-e", "twin_state=absent")


def test_top_of_rack_twin_checks_clean_against_its_plan(tor_twin):
    rc, out = play("twin", "-e", "twin_state=verified")
    assert rc == 0, out
    assert "checks passed" in out and "failed=0" in out


def test_top_of_rack_twin_teardown_leaves_no_namespace(tor_twin):
    rc, out = play("twin", "-e", "twin_state=absent")
    assert rc == 0, out
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert "torlab-" not in names
