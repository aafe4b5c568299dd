"""What an AWX job has instead of the spec as its inventory, and what a sliced validation carries between jobs:
- the spec the inventory plugin recorded at the sync (fabric_spec_file) is found when no inventory source is a spec;
- a DeviceState survives its trip through JSON (AWX's fact cache) unchanged, tuples, sets and int keys included;
- the check job's collector makes a device no slice collected, or a source no slice collected, an ERROR."""
import json
import os

import pytest

from gpufabric.errors import SpecError
from gpufabric.specfile import RECORDED_SPEC, find_spec, recorded_spec_path
from gpufabric.validate.observations import FACT, carried, decode, encode, recording
from gpufabric.validate.state import DeviceState


class Dev:
    def __init__(self, name, role="backend_leaf"):
        self.name, self.role = name, role


def test_the_recorded_spec_is_found_when_no_source_is_a_spec(tmp_path, monkeypatch):
    (tmp_path / "inventory").mkdir()
    spec = tmp_path / "inventory" / "lab.topology.yml"
    spec.write_text("plugin: gpucluster.fabric.topology\n")
    script = tmp_path / "hosts"
    script.write_text("#!/bin/sh\n")
    monkeypatch.chdir(tmp_path)
    assert recorded_spec_path(str(spec)) == os.path.join("inventory", "lab.topology.yml")
    assert recorded_spec_path("/elsewhere/x.topology.yml") == "/elsewhere/x.topology.yml"
    assert find_spec([str(script)], "inventory/lab.topology.yml") == "inventory/lab.topology.yml"
    # A spec among the sources wins over the record.
    assert find_spec([str(tmp_path / "inventory")], "other.topology.yml") == str(spec)


def test_a_recorded_spec_missing_from_the_project_is_one_line_naming_the_variable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SpecError) as err:
        find_spec([str(tmp_path / "hosts")], "inventory/gone.topology.yml")
    assert str(err.value).startswith(RECORDED_SPEC + ": 'inventory/gone.topology.yml'")
    assert "\n" not in str(err.value)
    with pytest.raises(SpecError, match="no cluster spec"):
        find_spec([str(tmp_path / "hosts")], None)


def sample_state():
    state = DeviceState("lab-r0-leaf01", "backend_leaf")
    state.bgp = {"peers": {"10.0.0.1": {"state": "Established", "pfx": 3}}, "as": 65001}
    state.routes = {"10.1.0.0/24": ("10.0.0.1", "10.0.0.3")}
    state.qos = {"Ethernet0": {"pfc": {3: True, 4: True}, "queues": {3, 4}}}
    state.interfaces = {"Ethernet0": {"up": True, "mtu": 9100, "flaps": None, "speed": 400000}}
    state.unavailable = {"optics": "the twin has no transceivers"}
    state.errors = {"lldp": "timed out"}
    state.virtual, state.seconds = True, 0.25
    return state


def test_a_state_comes_back_equal_from_json():
    state = sample_state()
    back = decode(json.loads(json.dumps(encode(state, ["bgp", "routes"]))))
    for field in DeviceState.__slots__:
        assert getattr(back, field) == getattr(state, field), field
    assert isinstance(back.routes["10.1.0.0/24"], tuple) and 3 in back.qos["Ethernet0"]["pfc"]


def test_the_check_job_reads_what_the_slices_kept():
    kept = {}
    collect = recording(lambda dev, sources, expect: sample_state(), kept)
    collect(Dev("lab-r0-leaf01"), ["bgp", "routes"], None)
    facts = {"lab-r0-leaf01": json.loads(json.dumps(kept["lab-r0-leaf01"]))}
    checked = carried(facts.get)
    state = checked(Dev("lab-r0-leaf01"), ["bgp", "routes"], None)
    assert state.bgp == sample_state().bgp and state.problem("bgp", "routes") is None
    # A source the collect job was not asked for is an error, not an empty (passing) observation.
    state = checked(Dev("lab-r0-leaf01"), ["bgp", "links"], None)
    assert state.problem("links")[0] == "ERROR"


def test_a_device_no_slice_collected_is_an_error_of_every_source():
    state = carried({}.get)(Dev("lab-spine01", "backend_spine"), ["bgp", "lldp"], None)
    assert sorted(state.errors) == ["bgp", "lldp"]
    status, message = state.problem("bgp")
    assert status == "ERROR" and FACT in message
    state = carried({"lab-spine01": {"format": 99}}.get)(Dev("lab-spine01"), ["bgp"], None)
    assert "unreadable" in state.errors["bgp"]


def test_observations_travel_in_the_form_awxs_fact_cache_reads(tmp_path):
    from gpufabric.validate.observations import read_fact_file, write_fact_files
    kept = {"lab-r0-leaf01": encode(sample_state(), ["bgp"])}
    write_fact_files(str(tmp_path), kept)
    # AWX reads <dir>/<host> as plain JSON: the host's facts, the observation one of them.
    with open(tmp_path / "lab-r0-leaf01") as f:
        assert json.load(f) == {FACT: json.loads(json.dumps(kept["lab-r0-leaf01"]))}
    assert decode(read_fact_file(str(tmp_path), "lab-r0-leaf01")).bgp == sample_state().bgp
    assert read_fact_file(str(tmp_path), "lab-spine01") is None and read_fact_file(None, "lab-r0-leaf01") is None


def test_a_spec_recorded_elsewhere_is_found_by_its_tail_in_the_project(tmp_path, monkeypatch):
    (tmp_path / "inventory").mkdir()
    (tmp_path / "inventory" / "lab.topology.yml").write_text("plugin: gpucluster.fabric.topology\n")
    monkeypatch.chdir(tmp_path)
    # Synced from /runner/project with another working directory: the absolute path of that run's copy.
    assert find_spec([str(tmp_path / "hosts")], "/runner/project/inventory/lab.topology.yml") == \
        os.path.join("inventory", "lab.topology.yml")


def test_the_observation_joins_the_facts_awx_wrote_before_the_job(tmp_path):
    from gpufabric.validate.observations import write_fact_files
    (tmp_path / "lab-spine01").write_text(json.dumps({"ansible_distribution": "Debian"}))
    write_fact_files(str(tmp_path), {"lab-spine01": encode(DeviceState("lab-spine01", "backend_spine"))})
    facts = json.loads((tmp_path / "lab-spine01").read_text())
    assert facts["ansible_distribution"] == "Debian" and facts[FACT]["name"] == "lab-spine01"
