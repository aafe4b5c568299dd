"""The Cumulus emulator's own pieces, written apart from the product it judges: the JSON merge patch NVUE applies
(RFC 7386, its appendix A examples) and nv's HTTPS client to the switch's NVUE API (nv_api.py), against the
emulator's API on loopback."""
import copy

import pytest

from gpufabric.twin.emulators.cumulus import merge_patch, nv_api, nvue_api, nvue_http

USER, PASSWORD = "cumulus", "Pw-1"
BASE = {"system": {"hostname": "leaf01"}}


@pytest.mark.parametrize("target,patch,result", [
    # RFC 7386, appendix A
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
])
def test_merge_patch_is_rfc_7386(target, patch, result):
    before = copy.deepcopy(target)
    assert merge_patch.apply(target, patch) == result
    assert target == before


def test_merge_patch_shares_nothing_with_its_inputs():
    target, patch = {"a": {"b": [1]}}, {"c": {"d": {}}}
    out = merge_patch.apply(target, patch)
    out["a"]["b"].append(2)
    out["c"]["d"]["e"] = 1
    assert target == {"a": {"b": [1]}} and patch == {"c": {"d": {}}}


@pytest.fixture
def api(tmp_path):
    cert, key = nvue_http.self_signed_certificate(str(tmp_path))
    switch = nvue_api.NvueSwitch("leaf01", {USER: PASSWORD}, validator=lambda host, config: [], apply_seconds=0.05,
                                 startup_path=str(tmp_path / "startup.yaml"))
    switch.applied = copy.deepcopy(BASE)
    switch.startup = copy.deepcopy(BASE)
    server = nvue_http.NvueApiServer(switch, cert, key).start()
    yield switch, nv_api.Api("leaf01", "127.0.0.1", server.port, USER, PASSWORD, cert), cert, server
    server.stop()


def test_nv_creates_patches_applies_and_saves_a_revision(api):
    switch, client, _cert, _server = api
    rev = client.new_revision()
    assert client.revision(rev)["state"] == "pending"
    client.patch(rev, {"system": {"hostname": None, "timezone": "Etc/UTC"}})
    ended = client.apply(rev, timeout=10, poll=0.05)
    assert ended["state"] in nv_api.APPLIED
    assert switch.applied == {"system": {"timezone": "Etc/UTC"}}
    client.save()
    assert switch.startup == switch.applied


def test_nv_reports_the_api_refusal_and_bad_credentials(api):
    _switch, client, cert, server = api
    with pytest.raises(nv_api.ApiError, match=r"leaf01: GET /nvued/api/revision/nosuch: 404 .*does not exist"):
        client.revision("nosuch")
    stranger = nv_api.Api("leaf01", "127.0.0.1", server.port, USER, "wrong", cert)
    with pytest.raises(nv_api.ApiError, match=r": 401 "):
        stranger.new_revision()


def test_why_a_revision_failed_in_nvues_words():
    issue = {"message": "BGP needs a router-id", "data": {"location": "router.bgp.enable"}}
    view = {"state": "invalid", "transition": {"issue": {"1": issue}}}
    assert nv_api.why(view) == "BGP needs a router-id (at router.bgp.enable)"
    assert nv_api.why({"transition": {"progress": "Aborted"}}) == "Aborted"
    assert nv_api.why({}) == "no reason given"


def test_the_switch_checks_a_revision_against_nvidias_model_itself():
    from gpufabric.twin.emulators.cumulus import nvue_checks

    if "5.14" not in nvue_checks.model_releases():
        pytest.skip("nvueschema is not installed")
    check = nvue_checks.schema_validator("5.14")
    assert check("sw1", {"system": {"hostname": "sw1"}}) == []
    (unknown,) = check("sw1", {"system": {"hostname": "sw1", "colour": "blue"}})
    assert unknown.startswith("sw1: revision set.system.colour = \"blue\": refused by NVUE 5.14's object model")
    (coerced,) = check("sw1", {"interface": {"swp1": {"type": "swp", "link": {"mtu": "9216"}}}})
    assert coerced.startswith("sw1: revision set.interface.swp1.link.mtu = \"9216\"")
    # The emulator's classes are its own copy: nvueschema's own module is left as the package has it.
    model = nvue_checks._switch_model("5.14")
    assert model.__module__ != "nvueschema.models.v5_14"


def test_the_switch_reads_its_startup_file_with_yaml_1_2_booleans():
    from gpufabric.twin.emulators.cumulus import nvue_checks

    docs = nvue_checks.startup_documents("- header:\n    version: Cumulus Linux 5.14.0\n- set:\n    router:\n"
                                         "      bgp:\n        enable: on\n        x: true\n")
    assert docs[1]["set"]["router"]["bgp"] == {"enable": "on", "x": True}
