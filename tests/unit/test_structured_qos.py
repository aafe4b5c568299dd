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
