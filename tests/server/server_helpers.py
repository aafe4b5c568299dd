"""Helpers of the server tier: run ansible-playbook from the repository with this venv's Ansible."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV_BIN = os.path.dirname(sys.executable)


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
