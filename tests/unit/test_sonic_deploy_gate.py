"""The deploy's BGP gate: which planned sessions must come up after a change, from FRR's summary."""
import json

import pytest

from gpufabric.frr_linux.bgp import deploy_gate, established_sessions, required_sessions


def _summary(**states):
    return json.dumps({"ipv4Unicast": {"peers": {addr.replace("_", "."): {"state": state}
                                                 for addr, state in states.items()}}})


PLANNED = ["10.16.0.0", "10.16.0.2"]


def test_established_reads_frr_summary_and_tolerates_anything_else():
    assert established_sessions(_summary(**{"10_16_0_0": "Established", "10_16_0_2": "Active"})) == ["10.16.0.0"]
    for text in ("", "% bgpd is not running", "{}", json.dumps({"ipv4Unicast": {}}), "[]"):
        assert established_sessions(text) == []


@pytest.mark.parametrize("gate, before, required", [
    ("all", "", PLANNED),
    ("established_before", _summary(**{"10_16_0_2": "Established"}), ["10.16.0.2"]),
    ("auto", "", []),                                                   # first bring-up: nothing was up
    ("auto", _summary(**{"10_16_0_0": "Active", "10_16_0_2": "Established"}), PLANNED),  # running: all it had
    ("auto", _summary(**{"10_16_0_2": "Established"}), ["10.16.0.2"]),  # 10.16.0.0 is new with this change
    ("auto", _summary(**{"10_99_0_1": "Established"}), []),             # an unplanned peer does not count
])
def test_required_sessions_by_gate(gate, before, required):
    assert required_sessions(PLANNED, before, gate) == required


def test_unknown_gate_is_refused_with_the_variable_name():
    with pytest.raises(ValueError, match="^bgp_gate: 'some' is not one of auto, all, established_before$"):
        required_sessions(PLANNED, "", "some")
    # The deploy gate names the variable of the switch's NOS's deploy role.
    for nos in ("sonic", "cumulus"):
        with pytest.raises(ValueError, match="^%s_deploy_bgp_gate: 'some' is not one of" % nos):
            deploy_gate("", {"nos": nos, "bgp": {"neighbors": []}}, "", "some")
