"""Test setup shared by every tier: the core library is importable as ``gpufabric`` without Ansible."""
import json
import os
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

EXAMPLES = ("lab", "metalsoft-16k", "superpod-1k", "h100-100k", "planes-3tier-small", "railonly-small", "tor-lab",
            "meta-24k", "h100-100k-4tier", "meta-32k", "semianalysis-98k-tor", "th5-1k", "th5-lab", "b300-512",
            "planes-lab", "th6-131k")


def _shared_dir():
    """../shared beside the checkout; for a git worktree, beside the main checkout it belongs to."""
    candidates = [os.path.join(ROOT, "..", "shared")]
    dot_git = os.path.join(ROOT, ".git")
    if os.path.isfile(dot_git):
        with open(dot_git) as f:
            gitdir = f.read().split("gitdir:", 1)[-1].strip()  # <main>/.git/worktrees/<name>
        candidates.append(os.path.join(gitdir, "..", "..", "..", "..", "shared"))
    return os.path.realpath(next((c for c in candidates if os.path.isdir(c)), candidates[0]))


SHARED = _shared_dir()
SONIC_REFERENCE = os.path.join(SHARED, "sonic-reference")
YANG_MODELS = os.path.join(SONIC_REFERENCE, "yang-models")


def needs_sonic_yang():
    """Skip the calling test module unless the libyang Python package and SONiC's models are here
    (both come with `make setup`); call it at module level before importing gpufabric.nos.sonic.yang."""
    pytest.importorskip("libyang", reason="YANG validation needs the libyang Python package (make setup)")
    if not os.path.isdir(YANG_MODELS):
        pytest.skip("SONiC reference models absent: %s" % YANG_MODELS, allow_module_level=True)


@pytest.fixture(scope="session")
def sonic_models():
    """SONiC's YANG models loaded once for the session (loading takes seconds)."""
    needs_sonic_yang()
    from gpufabric.nos.sonic import yang as sonic_yang
    return sonic_yang.load(YANG_MODELS)


@pytest.fixture(scope="session")
def emulator_models():
    """SONiC's YANG models as the twin's SONiC emulator loads them itself (its own libyang check), once."""
    needs_sonic_yang()
    from gpufabric.twin.emulators.sonic import yang_check
    return yang_check.load(YANG_MODELS)


def load_example(name):
    with open(os.path.join(ROOT, "inventories", name, name + ".topology.yml")) as f:
        return yaml.safe_load(f)


@pytest.fixture
def lab_spec():
    return load_example("lab")


def lab_leaf_config_db():
    """The lab golden's lab-r0-leaf01 config_db.json, with the Dell hwsku and platform a real switch reports
    (what SONiC's tooling looks up per switch)."""
    with open(os.path.join(ROOT, "tests/golden/lab/rendered/devices/lab-r0-leaf01/config_db.json")) as f:
        config = json.load(f)
    config["DEVICE_METADATA"]["localhost"].update(hwsku="DellEMC-Z9332f-O32", platform="x86_64-dellemc_z9332f_d1508-r0")
    return config


def ansible_playbook(*args, inventory_plugins="gpucluster.fabric.topology,yaml", timeout=600):
    """``ansible-playbook args...`` from the checkout with its ansible.cfg, no colour; the CompletedProcess (text).
    ``inventory_plugins`` None keeps ansible.cfg's list."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    if inventory_plugins:
        env["ANSIBLE_INVENTORY_ENABLED"] = inventory_plugins
    return subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook")] + list(args), cwd=ROOT,
                          env=env, check=False, capture_output=True, text=True, timeout=timeout)


def built_by_playbook(build_dir, inventory, cluster, *extra, **kwargs):
    """``build.yml -i inventories/<inventory>`` into ``build_dir`` (``extra``: more arguments, ``kwargs`` those of
    ansible_playbook), asserted to succeed; the cluster's build directory."""
    proc = ansible_playbook("-i", "inventories/" + inventory, "playbooks/build.yml", "-e", "build_dir=%s" % build_dir,
                            *extra, **kwargs)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return build_dir / cluster
