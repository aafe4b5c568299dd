"""The NVUE REST API stand-in (twin/emulators/cumulus/nvue_api.py) and the deploy flow over it
(nos/cumulus/deploy.py, nvue_client.py), on a real HTTPS server on loopback: what NVIDIA's guide says the
API does, and a deploy that either takes effect whole or leaves the previous configuration running."""
import copy
import functools
import json
import ssl
import time
import urllib.error
import urllib.request

import pytest
import yaml

from gpufabric.nos.cumulus import deploy as cumulus_deploy
from gpufabric.nos.cumulus.confirm import NvCli
from gpufabric.nos.cumulus.nvue_client import NvueClient, NvueError
from gpufabric.twin.emulators.cumulus import nvue_api, nvue_http

USER, PASSWORD = "automation", "s3cret-Pw!"
BASE = {"system": {"hostname": "leaf01", "aaa": {"user": {USER: {"role": "system-admin"}}}},
        "interface": {"lo": {"type": "loopback", "ip": {"address": {"10.32.0.1/32": {}}}}}}
TARGET = {"system": {"hostname": "leaf01"},
          "interface": {"lo": {"type": "loopback", "ip": {"address": {"10.32.0.4/32": {}}}},
                        "swp1": {"type": "swp", "description": "gpu0001 ens4np0",
                                 "link": {"mtu": 9216, "state": {"up": {}}},
                                 "ip": {"address": {"10.0.0.12/31": {}}}}},
          "router": {"bgp": {"enable": "on", "autonomous-system": 64517, "router-id": "10.32.0.4"}}}


def strict_validator(hostname, config):
    """A validator standing in for the object model where the test needs a precise refusal: MTU is an integer
    552..9216 (NVIDIA's type of interface.<id>.link.mtu)."""
    out = nvue_api.schema_validator()(hostname, config)
    for name, iface in (config.get("interface") or {}).items():
        mtu = (iface.get("link") or {}).get("mtu")
        if mtu is not None and not (isinstance(mtu, int) and 552 <= mtu <= 9216):
            out.append("%s: revision set.interface.%s.link.mtu = %s: NVUE field 'mtu' is integer 552..9216"
                       % (hostname, name, json.dumps(mtu)))
    return out


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return nvue_http.self_signed_certificate(str(tmp_path_factory.mktemp("certs")))


@pytest.fixture
def standin(certs, tmp_path):
    servers = []

    def start(switch_class=nvue_api.NvueSwitch, **kwargs):
        kwargs.setdefault("validator", strict_validator)
        kwargs.setdefault("apply_seconds", 0.05)
        kwargs.setdefault("startup_path", str(tmp_path / "startup.yaml"))
        switch = switch_class("leaf01", {USER: PASSWORD}, **kwargs)
        switch.applied = copy.deepcopy(BASE)
        switch.startup = copy.deepcopy(BASE)
        server = nvue_http.NvueApiServer(switch, *certs).start()
        servers.append(server)
        return switch, server

    yield start
    for server in servers:
        server.stop()


def client(server, certs, password=PASSWORD, **kwargs):
    kwargs.setdefault("ca_path", certs[0])
    return NvueClient("leaf01", "127.0.0.1", USER, password, port=server.port, timeout=5, **kwargs)


def ended(nvue, rev, running=("pending", "apply")):
    """The revision's view once its state is no longer one of ``running`` (at most 5 s)."""
    deadline = time.monotonic() + 5
    view = nvue.revision(rev)
    while view["state"] in running and time.monotonic() < deadline:
        time.sleep(0.01)
        view = nvue.revision(rev)
    return view


def raw(server, certs, method, path, body=None, auth=(USER, PASSWORD)):
    """One request as curl would send it; returns (status, JSON body or None)."""
    import base64

    req = urllib.request.Request(server.url + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    if auth:
        req.add_header("Authorization", "Basic " + base64.b64encode(("%s:%s" % auth).encode()).decode())
    req.add_header("Content-Type", "application/json")
    context = ssl.create_default_context(cafile=certs[0])
    try:
        with urllib.request.urlopen(req, context=context, timeout=5) as resp:
            data = resp.read()
            return resp.status, json.loads(data) if data else None
    except urllib.error.HTTPError as exc:
        data = exc.read()
        return exc.code, json.loads(data) if data else None


def test_credentials_are_checked_on_every_request(standin, certs):
    _switch, server = standin()
    assert raw(server, certs, "GET", "/?rev=applied", auth=None)[0] == 401
    status, body = raw(server, certs, "POST", "/revision", auth=(USER, "wrong"))
    assert status == 401 and body["title"] == "Unauthorized"
    with pytest.raises(NvueError, match=r"leaf01: NVUE API refused the credentials of user 'automation' \(401"):
        client(server, certs, password="wrong").config()


def test_revision_lifecycle_as_the_guide_shows_it(standin, certs):
    switch, server = standin()
    status, created = raw(server, certs, "POST", "/revision")
    assert status == 200 and created == {"1": {"state": "pending", "transition": {"issue": {}, "progress": ""}}}
    assert raw(server, certs, "PATCH", "/interface/lo/ip/address?rev=1", {"99.99.99.99/32": {}}) == \
        (200, {"99.99.99.99/32": {}})
    # the change is in the revision, not applied yet
    assert "99.99.99.99/32" in raw(server, certs, "GET", "/interface/lo/ip/address?rev=1")[1]
    assert "99.99.99.99/32" not in raw(server, certs, "GET", "/interface/lo/ip/address?rev=applied")[1]
    status, view = raw(server, certs, "PATCH", "/revision/1", {"state": "apply", "auto-prompt": {"ays": "ays_yes"}})
    assert status == 200 and view["state"] == "apply"
    assert ended(client(server, certs), "1")["state"] == "applied"     # polled as the guide's script does
    assert raw(server, certs, "GET", "/interface/lo/ip/address?rev=applied")[1] == \
        {"10.32.0.1/32": {}, "99.99.99.99/32": {}}
    # an applied revision is history: it takes no more changes
    status, body = raw(server, certs, "PATCH", "/?rev=1", {"system": {"hostname": "x"}})
    assert status == 400 and "only a pending revision" in body["detail"]
    assert switch.applied_id == "1"


def test_a_patch_outside_the_object_model_is_400_naming_the_path_and_changes_nothing(standin, certs):
    switch, server = standin()
    rev = client(server, certs).create_revision()
    status, body = raw(server, certs, "PATCH", "/?rev=%s" % rev, {"interface": {"swp1": {"link": {"mtu": "9216"}}}})
    assert status == 400
    assert "set.interface.swp1.link.mtu" in body["detail"] and "integer 552..9216" in body["detail"]
    status, body = raw(server, certs, "PATCH", "/?rev=%s" % rev, {"routing": {}})
    assert status == 400 and "set.routing" in body["detail"]
    assert switch.config_of(rev) == BASE      # the revision kept what it had
    status, body = raw(server, certs, "PATCH", "/?rev=applied", {"system": {"hostname": "x"}})
    assert status == 400 and "pending revision is required" in body["detail"]


def test_an_invalid_dependency_fails_the_apply_and_the_previous_revision_stays(standin, certs):
    switch, server = standin()
    nvue = client(server, certs)
    rev = nvue.create_revision()
    nvue.patch(rev, {"router": {"bgp": {"enable": "on", "autonomous-system": 65999}}})
    view = nvue.apply(rev, timeout=5, poll=0.02)
    assert view["state"] == "invalid"
    issue = view["transition"]["issue"]["0"]
    assert issue["code"] == "config_invalid" and issue["data"]["location"] == "router.bgp.enable"
    assert nvue.config("applied") == BASE and switch.applied_id is None


def test_the_first_apply_prompts_and_fails_without_ays_yes(standin, certs):
    _switch, server = standin()
    rev = client(server, certs).create_revision()
    assert raw(server, certs, "PATCH", "/revision/%s" % rev, {"state": "apply"})[0] == 200
    view = ended(client(server, certs), rev)
    assert view["state"] == "ays_fail" and view["transition"]["issue"]["0"]["code"] == "client_timeout"
    status, body = raw(server, certs, "PATCH", "/revision/%s" % rev, {"state": "apply", "confirm": 60})
    assert status == 400 and "unknown key(s) confirm" in body["detail"]


def test_save_writes_the_startup_file_the_switch_boots_from(standin, certs, tmp_path):
    _switch, server = standin()
    nvue = client(server, certs)
    rev = nvue.create_revision()
    nvue.patch(rev, {"system": {"hostname": "leaf01-new"}})
    assert nvue.apply(rev, timeout=5, poll=0.02)["state"] == "applied"
    assert nvue.config("startup")["system"]["hostname"] == "leaf01"
    nvue.save()
    assert nvue.config("startup")["system"]["hostname"] == "leaf01-new"
    docs = yaml.safe_load((tmp_path / "startup.yaml").read_text())
    assert docs[0]["header"]["nvue-api-version"] == "nvue_v1" and docs[1]["set"]["system"]["hostname"] == "leaf01-new"
    rebooted = nvue_api.NvueSwitch("leaf01", {USER: PASSWORD}, startup_path=str(tmp_path / "startup.yaml"))
    assert rebooted.config_of("applied")["system"]["hostname"] == "leaf01-new"


def test_certificate_checking(standin, certs):
    _switch, server = standin()
    with pytest.raises(NvueError, match="certificate of https://127.0.0.1:%d/nvue_v1 is not trusted.*cumulus_deploy_ca_path"
                       % server.port):
        client(server, certs, ca_path=None).config()
    assert client(server, certs, ca_path=None, validate_certs=False).config() == BASE
    assert client(server, certs).config() == BASE


def test_unreachable_api_names_the_switch(certs):
    nvue = NvueClient("leaf09", "127.0.0.1", USER, PASSWORD, port=1, timeout=2, ca_path=certs[0])
    with pytest.raises(NvueError, match=r"^leaf09: NVUE API at https://127.0.0.1:1/nvue_v1 unreachable"):
        nvue.config()


# --- the deploy flow ---------------------------------------------------------------------------------


def test_deploy_applies_saves_keeps_accounts_and_is_idempotent(standin, certs):
    switch, server = standin()
    nvue = client(server, certs)
    checked = cumulus_deploy.deploy(nvue, TARGET, check=True, poll=0.02)
    assert checked["changed"] and "10.32.0.4/32" in checked["diff"]["after"] and "10.32.0.1/32" in checked["diff"]["before"]
    assert switch.applied == BASE and not switch.revisions       # check mode sends nothing
    done = cumulus_deploy.deploy(nvue, TARGET, poll=0.02)
    assert done["changed"] and switch.applied_id == done["revision"]
    want = copy.deepcopy(TARGET)
    want["system"]["aaa"] = BASE["system"]["aaa"]                # the account the deploy logs in with stays
    assert nvue.config("applied") == want and nvue.config("startup") == want
    again = cumulus_deploy.deploy(nvue, TARGET, poll=0.02)
    assert not again["changed"] and "revision" not in again


def test_a_refused_change_leaves_the_previous_configuration(standin, certs):
    switch, server = standin()
    nvue = client(server, certs)
    cumulus_deploy.deploy(nvue, TARGET, poll=0.02)
    before = nvue.config("applied")
    bad = copy.deepcopy(TARGET)
    bad["interface"]["swp1"]["link"]["mtu"] = 99999
    with pytest.raises(cumulus_deploy.DeployError) as exc:
        cumulus_deploy.deploy(nvue, bad, poll=0.02)
    text = str(exc.value)
    assert text.startswith("leaf01: NVUE API PATCH /?rev=2: 400")
    assert "set.interface.swp1.link.mtu" in text and "previous configuration is still running" in text
    assert nvue.config("applied") == before and "2" not in switch.revisions   # the refused revision was removed
    no_router_id = copy.deepcopy(TARGET)
    del no_router_id["router"]["bgp"]["router-id"]
    with pytest.raises(cumulus_deploy.DeployError, match=r"revision 3 invalid: Config invalid at router.bgp.enable: "
                       r"BGP requires router-id.*previous configuration is still applied"):
        cumulus_deploy.deploy(nvue, no_router_id, poll=0.02)
    assert nvue.config("applied") == before


def test_an_apply_the_switch_cannot_take_fails_and_the_previous_stays(standin, certs):
    def applier(config, previous):
        if "swp1" in config.get("interface", {}):
            raise nvue_api.ApplyError("swp1: no such port on this switch")

    switch, server = standin(applier=applier)
    nvue = client(server, certs)
    with pytest.raises(cumulus_deploy.DeployError, match=r"apply_fail: swp1: no such port.*previous configuration is still applied"):
        cumulus_deploy.deploy(nvue, TARGET, poll=0.02)
    assert nvue.config("applied") == BASE and switch.applied_id is None


class DriftingSwitch(nvue_api.NvueSwitch):
    """A switch whose applied configuration ends up other than the revision asked for (after its first apply)."""

    def _apply(self, revision, answer, *how):
        super()._apply(revision, answer, *how)
        with self.lock:
            if revision.state == "applied" and revision.id == "1":
                self.applied["system"]["hostname"] = "renamed-by-something"


def test_an_apply_that_does_not_take_the_target_is_rolled_back(standin, certs):
    switch, server = standin(switch_class=DriftingSwitch)
    nvue = client(server, certs)
    with pytest.raises(cumulus_deploy.DeployError, match=r"^leaf01: NVUE revision 1 is applied but the applied "
                       r"configuration differs from the target; rolled back to the previous configuration \(revision 2\)"):
        cumulus_deploy.deploy(nvue, TARGET, poll=0.02)
    assert nvue.config("applied") == BASE and switch.applied_id == "2"
    assert nvue.config("startup") == BASE


def test_merge_patch_is_what_nvue_merges():
    before = {"a": {"b": 1, "c": {"d": {}}}, "e": {"f": {}}}
    after = {"a": {"b": 2, "c": {"g": {}}}, "h": "on"}
    patch = cumulus_deploy.merge_patch(before, after)
    assert patch == {"a": {"b": 2, "c": {"d": None, "g": {}}}, "e": None, "h": "on"}
    from gpufabric.nos.cumulus.nvue_client import merge
    from gpufabric.twin.emulators.cumulus import merge_patch

    assert merge(before, patch) == after
    assert merge_patch.apply(before, patch) == after     # the emulator's own RFC 7386 agrees
    assert cumulus_deploy.merge_patch(after, after) is None


def test_target_of_a_startup_file():
    docs = cumulus_deploy.load_documents("- header:\n    version: Cumulus Linux 5.14.0\n- set:\n    system:\n"
                                         "      hostname: a\n- set:\n    router:\n      bgp:\n        enable: 'on'\n")
    header, config = cumulus_deploy.target_of(docs, "a")
    assert cumulus_deploy.release_of(header) == "5.14"
    assert config == {"system": {"hostname": "a"}, "router": {"bgp": {"enable": "on"}}}
    with pytest.raises(cumulus_deploy.DeployError, match="a: startup.yaml document 1: one key"):
        cumulus_deploy.target_of([{"unset": {}}], "a")


class SwitchNv:
    """`nv` on the stand-in's switch, as the deploy runs it through the connection: the lines confirm.NvCli sends,
    carried out with the emulator's own nv client (nv_api.py, the route the twin's nv takes)."""

    def __init__(self, server, certs):
        from gpufabric.twin.emulators.cumulus.nv_api import Api

        self.api = Api("leaf01", "127.0.0.1", server.port, USER, PASSWORD, certs[0])
        self.lines = []

    def __call__(self, line):
        import shlex

        self.lines.append(line)
        words = shlex.split(line)[1:]
        try:
            if words == ["config", "history", "-o", "json"]:
                return 0, json.dumps(self.api.history()), ""
            rev, rest = words[2], words[3:]
            if rest in (["--confirm-yes"], ["--confirm-no"]):
                self.api.confirm(rev, rest == ["--confirm-yes"])
                return 0, "", ""
            message = rest[rest.index("-m") + 1]
            confirm = float(rest[rest.index("--confirm") + 1].rstrip("s")) if "--confirm" in rest else None
            view = self.api.apply(rev, timeout=5, poll=0.02, confirm=confirm, message=message)
            return (0, "", "") if view.get("state") in ("applied", "confirm") else (1, "", view.get("state"))
        except Exception as exc:  # noqa: BLE001 -- what nv prints when it fails
            return 1, "", str(exc)


def test_a_switch_changed_since_the_last_deploy_is_refused_untouched(standin, certs):
    """The record is the apply message in the switch's history: a second deploy is guarded with no file of the
    controller, a change by hand is refused naming what changed, and a switch with no record deploys."""
    switch, server = standin()
    nvue = client(server, certs)
    nv = NvCli("leaf01", SwitchNv(server, certs))
    assert cumulus_deploy.deploy(nvue, TARGET, poll=0.02, cli=nv, confirm=30)["changed"]
    entry = list(switch.history_view().values())[-1]
    assert entry["message"].startswith("gpucluster.fabric deploy sha256=") and entry["state"] == "applied"
    assert entry["method"] == "CLI" and switch.confirm_status() is None     # confirmed
    assert "10.0.0.12" not in entry["message"]      # a digest, no values
    assert cumulus_deploy.deploy(nvue, TARGET, poll=0.02, cli=nv)["changed"] is False
    rev = nvue.create_revision()
    nvue.patch(rev, {"interface": {"lo": {"ip": {"address": {"10.99.0.1/32": {}}}}}})
    nvue.apply(rev, timeout=5, poll=0.02)
    by_hand = nvue.config("applied")
    with pytest.raises(cumulus_deploy.DeployError, match=r"^leaf01: the configuration running on the switch changed "
                       r"since the last deploy \(interface.lo\), by hand"):
        cumulus_deploy.deploy(nvue, TARGET, poll=0.02, cli=nv)
    assert nvue.config("applied") == by_hand and "3" not in switch.revisions   # no revision made
    assert cumulus_deploy.deploy(nvue, TARGET, poll=0.02, cli=nv, guard=False)["changed"]     # told to overwrite


def test_the_confirm_timer_is_the_clis_only_and_rolls_back_on_no(standin, certs):
    """The public API takes no confirm (the guide gives it to the CLI only); nv's apply with confirm waits in state
    confirm, a second apply meanwhile is refused, and --confirm-no puts the previous configuration back at once."""
    from gpufabric.twin.emulators.cumulus.nv_api import Api

    switch, server = standin()
    nvue = client(server, certs)
    rev = nvue.create_revision()
    nvue.patch(rev, {"system": {"hostname": "renamed"}})
    with pytest.raises(NvueError, match="unknown key"):
        nvue.request("PATCH", "/revision/%s" % rev, body={"state": "apply", "confirm": 30})
    nv = Api("leaf01", "127.0.0.1", server.port, USER, PASSWORD, certs[0])
    assert nv.apply(rev, timeout=5, poll=0.02, confirm=30, message="mine")["state"] == "confirm"
    assert nvue.config("applied")["system"]["hostname"] == "renamed" and 0 < switch.confirm_status() <= 30
    other = nvue.create_revision()
    with pytest.raises(NvueError, match="waiting for confirmation"):
        nvue.request("PATCH", "/revision/%s" % other, body={"state": "apply", "auto-prompt": {"ays": "ays_yes"}})
    nv.confirm(rev, False)
    assert nvue.config("applied") == BASE and nvue.revision(rev)["state"] == "confirm_no"
    assert [(e["message"], e["state"], e["method"]) for e in nv.history().values()] == [
        ("mine", "confirm_no", "CLI"), ("rolled back: revision %s confirmed no" % rev, "applied", "rollback")]


def test_the_guard_reads_the_last_kept_record():
    from gpufabric.nos.cumulus import confirm

    applied = {"system": {"hostname": "a"}, "interface": {"lo": {"type": "loopback"}}}
    mine = {"message": confirm.record_message(applied), "rev-id": "4", "state": "applied"}
    guard = functools.partial(confirm.changed_by_hand, fingerprint=cumulus_deploy.fingerprint,
                              changed_since=cumulus_deploy.changed_since)
    assert guard({}, {}, lambda rev: None) == []                         # factory-empty: no record, deployed
    assert guard({"1": mine}, applied, lambda rev: None) == []
    # A rolled-back apply of the deploy's (confirm timer) is not the record; the one before it is.
    lost = dict(mine, message=confirm.record_message({"other": {}}), state="confirm_fail", **{"rev-id": "5"})
    back = {"message": "rolled back", "rev-id": "4", "state": "applied", "method": "rollback"}
    assert guard({"1": mine, "2": lost, "3": back}, applied, lambda rev: None) == []
    changed = dict(applied, system={"hostname": "b"})
    by_hand = {"rev-id": "6", "state": "applied", "user": "cumulus", "method": "CLI", "date": "d"}
    assert guard({"1": mine, "2": by_hand}, changed, lambda rev: applied if rev == "4" else None) == ["system.hostname"]
    assert guard({"1": mine, "2": by_hand}, changed, lambda rev: None) == ["revision 6 (d, CLI by cumulus)"]
    # No empty path, whatever the configurations: a factory-empty one has no object to record.
    assert cumulus_deploy.fingerprint({}) == {}
    assert "" not in cumulus_deploy.changed_since(cumulus_deploy.fingerprint({}), applied)


def test_a_change_that_cuts_the_management_access_is_rolled_back_by_the_confirm_timer(standin, certs):
    """A target moving eth0 off the address the controller knows: the API stops answering after the apply, the
    deploy cannot confirm, the switch's timer puts the previous configuration back by itself (history shows it),
    and the deploy says so once the switch answers again."""
    from gpufabric.twin.emulators.cumulus import mgmt

    switch, server = standin()
    switch.reachable = lambda: mgmt.reachable(switch.applied, ["192.168.200.11/24"])
    nvue = client(server, certs)
    nv = NvCli("leaf01", SwitchNv(server, certs))
    cut = copy.deepcopy(TARGET)
    cut["interface"]["eth0"] = {"type": "eth", "ip": {"address": {"192.168.201.11/24": {}}}}
    started = time.monotonic()
    with pytest.raises(cumulus_deploy.DeployError, match=r"^leaf01: lost the switch after applying NVUE revision 1 .*"
                       r"the switch's confirm timer \(2s\) rolled it back to the previous configuration"):
        cumulus_deploy.deploy(nvue, cut, poll=0.05, cli=nv, confirm=2)
    assert time.monotonic() - started < 30
    assert nvue.config("applied") == BASE and switch.revisions["1"].state == "confirm_fail"
    entries = list(switch.history_view().values())
    assert [(e["rev-id"], e["state"], e["method"]) for e in entries] == [("1", "confirm_fail", "CLI"),
                                                                         ("empty", "applied", "rollback")]
    # The same change with the access kept is confirmed and stays.
    kept = copy.deepcopy(cut)
    kept["interface"]["eth0"]["ip"]["address"] = {"192.168.200.11/24": {}}
    assert cumulus_deploy.deploy(nvue, kept, poll=0.05, cli=nv, confirm=2)["changed"]
    # Confirmed: no timer left that could roll it back, and the revision is applied.
    assert switch.confirm_status() is None and switch.revisions["2"].state == "applied"
    assert nvue.config("applied")["interface"]["eth0"] == kept["interface"]["eth0"]


def test_a_change_the_bgp_gate_refuses_is_rolled_back_before_the_save(standin, certs):
    """The BGP gate runs after the apply: a change it never passes is replaced by the previous configuration (a new
    revision) and nothing is saved; one it passes after a while (sessions coming back) is kept and saved."""
    switch, server = standin()
    nvue = client(server, certs)
    asked = []

    def failing():
        asked.append(nvue.config("applied") == BASE)
        return ["session 10.16.0.0 (spine01) is Active"]

    with pytest.raises(cumulus_deploy.DeployError, match=r"^leaf01: NVUE revision 1 is applied but the BGP gate did "
                       r"not pass within 0.1s: session 10.16.0.0 \(spine01\) is Active; rolled back to the previous "
                       r"configuration \(revision 2\)"):
        cumulus_deploy.deploy(nvue, TARGET, poll=0.02, gate=failing, gate_timeout=0.1, gate_poll=0.02)
    assert asked and not any(asked), "the gate looks at the switch with the change applied"
    assert nvue.config("applied") == BASE and nvue.config("startup") == BASE and switch.applied_id == "2"
    answers = [["session 10.16.0.0 (spine01) is Connect"], []]
    done = cumulus_deploy.deploy(nvue, TARGET, poll=0.02, gate=lambda: answers.pop(0), gate_timeout=5, gate_poll=0.02)
    assert done["changed"] and not answers and nvue.config("startup") == nvue.config("applied") != BASE


def test_through_nv_a_refused_change_goes_back_and_the_record_follows(standin, certs):
    """Through nv: with the confirm timer the gate's refusal answers --confirm-no; without one, a rollback revision
    carries the deploy's record. Either way the next deploy finds the switch as the deploy left it, not changed by
    hand, and deploys."""
    switch, server = standin()
    nvue = client(server, certs)
    lines = SwitchNv(server, certs)
    nv = NvCli("leaf01", lines)
    refused = dict(TARGET, system={"hostname": "refused"})
    with pytest.raises(cumulus_deploy.DeployError, match=r"BGP gate did not pass .*; rolled back to the previous "
                       r"configuration \(nv config apply 1 --confirm-no\)"):
        cumulus_deploy.deploy(nvue, refused, poll=0.02, gate=lambda: ["down"], gate_timeout=0.1, gate_poll=0.02,
                              cli=nv, confirm=30)
    assert nvue.config("applied") == BASE and any("--confirm-no" in line for line in lines.lines)
    assert cumulus_deploy.deploy(nvue, TARGET, poll=0.02, cli=nv, confirm=30)["changed"]
    with pytest.raises(cumulus_deploy.DeployError, match=r"; rolled back to the previous configuration \(revision 4\)"):
        cumulus_deploy.deploy(nvue, refused, poll=0.02, gate=lambda: ["down"], gate_timeout=0.1, gate_poll=0.02,
                              cli=nv, confirm=0)
    assert nvue.config("applied")["system"]["hostname"] == "leaf01"
    assert list(switch.history_view().values())[-1]["message"].startswith("gpucluster.fabric deploy sha256=")
    assert cumulus_deploy.deploy(nvue, TARGET, poll=0.02, cli=nv)["changed"] is False     # not "changed by hand"


def test_the_drain_step_adds_only_the_drain_to_what_runs_and_a_failed_change_goes_back_to_it(standin, certs):
    """The drain before a change (roles/cumulus_deploy/tasks/drained_apply.yml): step 1 merges into the running
    configuration only what the drained form adds (the route-map and the peer group's outbound policy), not the
    build's other changes, and is not saved; step 3's change to the drained build, refused by the gate, goes back to
    step 1's configuration, so the switch stays drained."""
    switch, server = standin()
    nvue = client(server, certs)
    cumulus_deploy.deploy(nvue, TARGET, poll=0.02)
    running = nvue.config("applied")
    build = copy.deepcopy(TARGET)
    build["interface"]["swp1"]["description"] = "gpu0002 ens4np0"       # the change the deploy is for
    drained = copy.deepcopy(build)
    drained["router"]["policy"] = {"route-map": {"GPUFABRIC_DRAIN": {"rule": {"10": {
        "action": {"permit": {}}, "set": {"as-path-prepend": {"as": "64517,64517,64517"}}}}}}}
    overlay = cumulus_deploy.merge_patch(build, drained)
    assert overlay == {"router": {"policy": drained["router"]["policy"]}}
    done = cumulus_deploy.deploy(nvue, None, poll=0.02, save=False, overlay=overlay)
    after_drain = nvue.config("applied")
    assert done["changed"] and after_drain["router"]["policy"] == drained["router"]["policy"]
    assert after_drain["interface"]["swp1"]["description"] == "gpu0001 ens4np0"   # the build's change not yet
    assert nvue.config("startup") == running                                      # the drain is not saved
    with pytest.raises(cumulus_deploy.DeployError, match="rolled back to the previous configuration"):
        cumulus_deploy.deploy(nvue, drained, poll=0.02, gate=lambda: ["session 10.16.0.0 (spine01) is Active"],
                              gate_timeout=0.05, gate_poll=0.02)
    assert nvue.config("applied") == after_drain                                  # still drained
    assert not cumulus_deploy.deploy(nvue, None, poll=0.02, overlay=overlay)["changed"]   # drained already


def test_the_undrain_step_takes_only_the_drain_away_from_what_runs(standin, certs):
    """undrain.yml on Cumulus (action step undrain): the merge patch from the drained form to the build, over what runs,
    removes the drain (the route-map) and nothing else; a hand-made difference elsewhere stays; once undrained, the
    step changes nothing."""
    switch, server = standin()
    nvue = client(server, certs)
    cumulus_deploy.deploy(nvue, TARGET, poll=0.02)
    build = copy.deepcopy(TARGET)
    drained = copy.deepcopy(build)
    drained["router"]["policy"] = {"route-map": {"GPUFABRIC_DRAIN": {"rule": {"10": {
        "action": {"permit": {}}, "set": {"as-path-prepend": {"as": "64517,64517,64517"}}}}}}}
    cumulus_deploy.deploy(nvue, None, poll=0.02, overlay=cumulus_deploy.merge_patch(build, drained))
    # Something else differs on the switch (say a description set for a spare): the undrain leaves it alone.
    rev = nvue.create_revision()
    nvue.patch(rev, {"interface": {"swp1": {"description": "spare"}}})
    assert nvue.apply(rev, 10, 0.02)["state"] in cumulus_deploy.APPLIED
    undrain = cumulus_deploy.merge_patch(drained, build)
    assert undrain == {"router": {"policy": None}}
    done = cumulus_deploy.deploy(nvue, None, poll=0.02, overlay=undrain)
    after = nvue.config("applied")
    assert done["changed"] and "policy" not in after.get("router", {})
    assert after["interface"]["swp1"]["description"] == "spare"
    assert nvue.config("startup") == after
    assert not cumulus_deploy.deploy(nvue, None, poll=0.02, overlay=undrain)["changed"]
