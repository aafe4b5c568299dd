"""Helpers shared by the tenant test modules (ACL and VRF modes): the lab's example assignments and the
structured configs rendered with an assignment attached to the plan."""
import os

from conftest import ROOT
from gpufabric.structured import structured_configs
from gpufabric.tenants import attach, load_assignment, plan_servers

EXAMPLES = os.path.join(ROOT, "examples", "tenants")
LEAVES = ("lab-r0-leaf01", "lab-r3-leaf02")


def example(plan, name):
    return load_assignment(os.path.join(EXAMPLES, name), plan_servers(plan), "lab")


def rendered(plan, assignment, names=None):
    """Structured configs of ``plan`` (of ``names`` only, when given) with ``assignment`` attached."""
    attach(plan, assignment)
    try:
        return structured_configs(plan, names)
    finally:
        attach(plan, None)


def match_golden(golden, files):
    """Each {name: text} equals golden/<name>; GOLDEN_UPDATE=1 (`make golden`) rewrites them first."""
    if os.environ.get("GOLDEN_UPDATE"):
        os.makedirs(golden, exist_ok=True)
        for name, text in files.items():
            with open(os.path.join(golden, name), "w", encoding="utf-8") as f:
                f.write(text)
    for name, text in files.items():
        with open(os.path.join(golden, name), encoding="utf-8") as f:
            assert f.read() == text, "%s differs; `make golden` after review" % name
