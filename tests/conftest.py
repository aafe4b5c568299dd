"""Test setup shared by every tier: the core library is importable as ``gpufabric`` without Ansible."""
import os
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

EXAMPLES = ("lab", "metalsoft-16k", "superpod-1k", "h100-100k")


def load_example(name):
    with open(os.path.join(ROOT, "inventories", name, name + ".topology.yml")) as f:
        return yaml.safe_load(f)


@pytest.fixture
def lab_spec():
    return load_example("lab")
