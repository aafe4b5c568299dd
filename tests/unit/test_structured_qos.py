"""The RoCEv2 lossless profile: DSCP 26 on a PFC priority, CNP strict, ECN on the lossless queue, overrides."""
import pytest

from gpufabric.errors import SpecError
from gpufabric.structured.qos import resolve_profile


def test_default_profile_matches_the_domain_numbers():
    q = resolve_profile("rocev2_lossless")
    assert q["dscp_to_traffic_class"][26] == 3
    assert q["pfc_priorities"] == [3]
    assert q["dscp_to_traffic_class"][48] == 6 and q["strict_priority_queues"] == [6]
    assert q["ecn_queues"] == [3]
    assert q["ecn"] == {"min_threshold_bytes": 153600, "max_threshold_bytes": 1572864, "mark_probability_percent": 100}
    assert q["pfc_watchdog"]["detection_time_ms"] == 200
    # Everything else is lossy: no other DSCP may land on the PFC priority.
    assert [d for d, tc in q["dscp_to_traffic_class"].items() if tc == 3] == [26]
    assert len(q["dscp_to_traffic_class"]) == 64


def test_overrides_merge_into_the_profile():
    q = resolve_profile("rocev2_lossless", {"ecn": {"min_threshold_bytes": 100000}})
    assert q["ecn"]["min_threshold_bytes"] == 100000 and q["ecn"]["max_threshold_bytes"] == 1572864


def test_unknown_profile_names_the_key():
    with pytest.raises(SpecError, match=r"switch_config.qos_profile.*unknown QoS profile 'nope'; known: rocev2_lossless"):
        resolve_profile("nope")


def test_a_profile_without_lossless_class_is_refused():
    classes = [{"name": "all", "dscp": [26], "traffic_class": 0, "dwrr_weight": 100}]
    with pytest.raises(SpecError, match="no lossless class"):
        resolve_profile("rocev2_lossless", {"classes": classes})


def _lab_with(overrides):
    from conftest import load_example
    spec = load_example("lab")
    spec["switch_config"] = {"qos_overrides": overrides}
    return spec


@pytest.mark.parametrize("overrides, message", [
    ({"ecn": {"min_treshold_bytes": 1}},
     "switch_config.qos_overrides.ecn.min_treshold_bytes: unknown key; did you mean 'min_threshold_bytes'?"),
    ({"clases": []}, "switch_config.qos_overrides.clases: unknown key; did you mean 'classes'?"),
    ({"classes": [{"name": "roce", "dscp": [64], "traffic_class": 3}]},
     "switch_config.qos_overrides.classes[0].dscp[0]: 64 is too large: the maximum is 63"),
    ({"pfc_watchdog": {"action": "dorp"}},
     "switch_config.qos_overrides.pfc_watchdog.action: 'dorp' is not one of drop, forward, alert; did you mean 'drop'?"),
])
def test_qos_overrides_typos_are_refused_with_the_key(overrides, message):
    from gpufabric.plan import build_plan
    with pytest.raises(SpecError) as info:
        build_plan(_lab_with(overrides))
    assert str(info.value).startswith(message)


def test_validated_class_overrides_reach_the_profile():
    from gpufabric.plan import build_plan
    from gpufabric.structured.context import FabricContext
    plan = build_plan(_lab_with({"classes": [
        {"name": "rocev2", "dscp": [24], "traffic_class": 4, "lossless": True, "ecn": True, "dwrr_weight": 60},
        {"name": "cnp", "dscp": [48], "traffic_class": 6, "strict_priority": True},
        {"name": "best_effort", "traffic_class": 0, "dwrr_weight": 40}]}))
    q = FabricContext(plan).qos
    assert q["dscp_to_traffic_class"][24] == 4 and q["dscp_to_traffic_class"][26] == 0
    assert q["pfc_priorities"] == [4] and q["ecn_queues"] == [4] and q["strict_priority_queues"] == [6]
    assert q["dwrr_weights"] == {0: 40, 4: 60}
