"""Validation's expected values come from the structured configs (structured/switch.py, structured/server.py),
the contract every renderer reads: a port's MTU and a device's QoS as declared there, not worked out from the
spec a second time."""
import pytest
from conftest import load_example

from gpufabric.plan import build_plan
from gpufabric.structured import structured_configs
from gpufabric.structured.server import server_configs
from gpufabric.validate import expect as expect_module
from gpufabric.validate.expect import Expectation


@pytest.fixture(scope="module")
def plan():
    return build_plan(load_example("lab"))


def test_expected_mtus_and_qos_are_the_structured_configs(plan):
    want = Expectation(plan, networks=("backend", "frontend"))
    switches, servers = structured_configs(plan), server_configs(plan)
    leaf = switches["lab-r0-leaf01"]
    for iface in leaf["ethernet_interfaces"]:
        port = want.port("lab-r0-leaf01", iface["name"])
        if port is not None:
            assert port.mtu == iface["mtu"]
    for nic in servers["lab-gpu0001"]["nics"]:
        assert want.port("lab-gpu0001", nic["name"]).mtu == nic["mtu"]
    qos = leaf["qos"]
    assert want.qos("lab-r0-leaf01") == {"trust": qos["trust"], "pfc": qos["pfc_priorities"], "ecn": qos["ecn_queues"],
                                         "dscp_to_tc": qos["dscp_to_traffic_class"]}
    roce = servers["lab-gpu0001"]["roce"]
    assert want.qos("lab-gpu0001") == {"trust": roce["trust"], "pfc": roce["pfc_priorities"],
                                       "ecn": roce["ecn_priorities"]}
    frontend = [d.name for d in plan.devices if d.role == "frontend_spine"][0]
    assert want.qos(frontend) is None  # a frontend switch declares no QoS


def test_a_structured_config_that_says_otherwise_moves_the_expectation(plan, monkeypatch):
    """What the structured config declares is what is expected, even where the spec would say otherwise."""
    def changed(plan_, names=None):
        cfgs = structured_configs(plan_, names)
        for iface in cfgs["lab-r0-leaf01"]["ethernet_interfaces"]:
            iface["mtu"] = 4242
        cfgs["lab-r0-leaf01"]["qos"]["pfc_priorities"] = [3, 4]
        return cfgs
    monkeypatch.setattr(expect_module, "structured_configs", changed)
    want = Expectation(plan)
    ports = list(want.ports["lab-r0-leaf01"].values())
    assert ports and {p.mtu for p in ports} == {4242}
    assert want.qos("lab-r0-leaf01")["pfc"] == [3, 4]
    assert {p.mtu for p in want.ports["lab-r0-leaf02"].values()} == {plan.spec["backend"]["mtu"]}
