"""YANG validation of config_db against SONiC's models (../shared/sonic-reference/yang-models)."""
import copy
import json
import os

import pytest

from conftest import SONIC_REFERENCE, needs_sonic_yang

needs_sonic_yang()

from gpufabric.nos.sonic import yang as sonic_yang  # noqa: E402  (after the skips: needs libyang and the models)


@pytest.fixture(scope="module")
def samples():
    with open(os.path.join(SONIC_REFERENCE, "sample_config_db.json")) as f:
        return json.load(f)


@pytest.fixture
def sample(samples):
    return copy.deepcopy(samples["SAMPLE_CONFIG_DB_JSON"])


def test_sonic_own_sample_config_is_valid(sonic_models, samples):
    # The mapping is right if SONiC's own valid example passes: 198 tables, maps, multi-lists, leaf-lists.
    assert sonic_yang.validate(sonic_models, samples["SAMPLE_CONFIG_DB_JSON"], "sample") == []
    assert sonic_yang.validate(sonic_models, samples["SAMPLE_CONFIG_DB_SPECIAL_CASE"], "special") == []


def test_table_without_model_is_refused(sonic_models, samples):
    problems = sonic_yang.validate(sonic_models, samples["SAMPLE_CONFIG_DB_UNKNOWN"], "sw1")
    assert len(problems) == 1
    assert problems[0].startswith("sw1: UNKNOWN_TABLE: no YANG model has a table UNKNOWN_TABLE")


def test_leafref_to_missing_buffer_profile(sonic_models, sample):
    key = sorted(sample["BUFFER_PG"])[0]
    sample["BUFFER_PG"][key] = {"profile": "no_such_profile"}
    (problem,) = sonic_yang.validate(sonic_models, sample, "leaf1")
    assert problem.startswith("leaf1: BUFFER_PG/%s/profile: " % key)
    assert "no_such_profile" in problem and "BUFFER_PROFILE_LIST" in problem


def test_broken_field_names_table_key_field_and_rule(sonic_models, sample):
    sample["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = "splitted"
    (problem,) = sonic_yang.validate(sonic_models, sample, "leaf1")
    assert problem.startswith("leaf1: DEVICE_METADATA/localhost/docker_routing_config_mode: Unsatisfied pattern")
    assert '"splitted"' in problem


def test_range_is_checked(sonic_models, sample):
    port = sorted(sample["PORT"])[0]
    sample["PORT"][port]["mtu"] = "70000"
    (problem,) = sonic_yang.validate(sonic_models, sample, "leaf1")
    assert problem.startswith("leaf1: PORT/%s/mtu: " % port) and "70000" in problem


def test_must_condition_is_checked(sonic_models, sample):
    # sonic-vlan: a VLAN interface with static_anycast_gateway needs SAG|GLOBAL's gateway_mac.
    sample.pop("SAG", None)
    vlan = sorted(k for k in sample["VLAN_INTERFACE"] if "|" not in k)[0]
    sample["VLAN_INTERFACE"][vlan]["static_anycast_gateway"] = "true"
    (problem,) = sonic_yang.validate(sonic_models, sample, "leaf1")
    assert problem.startswith("leaf1: VLAN_INTERFACE/%s/static_anycast_gateway: " % vlan)
    assert "SAG" in problem


def test_field_without_leaf_is_named(sonic_models, sample):
    port = sorted(sample["PORT"])[0]
    sample["PORT"][port]["spede"] = "100000"
    (problem,) = sonic_yang.validate(sonic_models, sample, "leaf1")
    assert problem.startswith("leaf1: PORT/%s/spede: no leaf spede in PORT_LIST" % port)


def test_key_with_wrong_number_of_parts(sonic_models, sample):
    sample["INTERFACE"]["Ethernet0|10.0.0.0/31|extra"] = {}
    (problem,) = sonic_yang.validate(sonic_models, sample, "leaf1")
    assert problem == "leaf1: INTERFACE/Ethernet0|10.0.0.0/31|extra: key has 3 part(s); INTERFACE takes name or" \
        " name|ip-prefix"


def test_map_entry_is_checked(sonic_models, sample):
    name = sorted(sample["DSCP_TO_TC_MAP"])[0]
    sample["DSCP_TO_TC_MAP"][name]["64"] = "1"
    (problem,) = sonic_yang.validate(sonic_models, sample, "leaf1")
    assert problem.startswith("leaf1: DSCP_TO_TC_MAP/%s/DSCP_TO_TC_MAP" % name)


def test_models_dir_without_sonic_models(tmp_path):
    with pytest.raises(sonic_yang.ModelsError, match="no sonic-\\*.yang models there"):
        sonic_yang.load(str(tmp_path))
