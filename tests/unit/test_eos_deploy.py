"""The EOS home's deploy flow (nos/eos/deploy.py) over a stand-in of napalm's eos driver that keeps a running config
and one configuration session as EOS does (napalm 5.2, napalm/eos/eos.py: load_replace_candidate, load_merge_candidate,
compare_config, commit_config(revert_in), confirm_commit, rollback, discard_config)."""
import difflib
import os

import pytest
from conftest import ROOT

from gpufabric.nos.eos import deploy, drain

BUILD = """!
hostname sw1
!
interface Ethernet1/1
   no switchport
   ip address 10.0.0.0/31
!
router bgp 65001
   neighbor 10.0.0.1 remote-as 65002
!
end
"""
MGMT = """management api http-commands
   protocol https ssl profile EAPI
   no shutdown
username admin privilege 15 secret sha512 $6$x
"""


class FakeEos:
    """A running config, one session, a commit timer, and the record as EOS keeps a global comment."""

    def __init__(self, running="", fail_load=None):
        self.running = running
        self.config_session = None
        self.candidate = None
        self.pending = False
        self.before = None
        self.calls = []
        self.fail_load = fail_load

    def get_config(self, retrieve="all"):
        if retrieve == "candidate":
            return {"candidate": self._shown(self.candidate) if self.config_session else ""}
        return {"running": self.running}

    @staticmethod
    def _shown(text):
        return "\n".join(line for line in (text or "").splitlines() if line.strip() and line.strip() != "end") + "\n"

    def load_replace_candidate(self, config=None):
        self.calls.append("replace")
        if self.fail_load and self.fail_load in config:
            raise RuntimeError("% Invalid input (at token 1: 'bogus')")
        self.config_session = "napalm_1"
        self.candidate = config

    def load_merge_candidate(self, config=None):
        self.calls.append("merge")
        if self.config_session is None:
            self.config_session = "napalm_1"
            self.candidate = self.running
        lines = config.splitlines() if isinstance(config, str) else list(config)
        if any(deploy.is_record(line) for line in lines):     # the route-map entry's description: one, replaced
            kept = [line for line in self.candidate.splitlines() if not deploy.is_record(line)
                    and not line.startswith("route-map %s " % deploy.RECORD_MAP)]
            self.candidate = "\n".join(kept + lines) + "\n"
        else:
            self.candidate = self.candidate.rstrip("\n") + "\n" + "\n".join(lines) + "\n"

    def compare_config(self):
        a = self._shown(self.running).splitlines()
        b = self._shown(self.candidate).splitlines()
        return "\n".join(difflib.unified_diff(a, b, lineterm="", n=0))

    def commit_config(self, revert_in=None):
        self.calls.append("commit timer %s" % revert_in if revert_in else "commit")
        self.before, self.running = self.running, self._shown(self.candidate)
        self.pending = bool(revert_in)
        if not revert_in:
            self.config_session = None

    def confirm_commit(self):
        assert self.pending
        self.calls.append("confirm")
        self.pending, self.config_session = False, None

    def rollback(self):
        self.calls.append("rollback")
        self.running, self.pending, self.config_session = self.before, False, None

    def discard_config(self):
        if self.config_session:
            self.calls.append("abort")
        self.config_session, self.candidate = None, None


def test_a_first_deploy_commits_with_the_timer_confirms_and_leaves_its_record():
    eos = FakeEos(MGMT)
    out = deploy.deploy(eos, "sw1", BUILD, confirm=300)
    assert out["changed"] and "+hostname sw1" in out["diff"]
    assert eos.calls == ["replace", "merge", "commit timer 300", "confirm"]
    assert deploy.record_of(eos.running) == deploy.digest(eos.running)
    # What the switch keeps and the build lacks is still there: the eAPI the deploy talks through, the accounts.
    assert "management api http-commands" in eos.running and "username admin privilege 15 secret sha512 $6$x" in eos.running
    assert not deploy.changed_by_hand(eos.running)


def test_a_second_deploy_of_the_same_build_changes_nothing():
    eos = FakeEos(MGMT)
    deploy.deploy(eos, "sw1", BUILD)
    eos.calls = []
    out = deploy.deploy(eos, "sw1", BUILD)
    assert out == {"changed": False, "diff": "", "session": "napalm_1"}
    assert eos.calls == ["replace", "merge", "abort"]


def test_check_mode_shows_the_session_diff_and_aborts_it():
    eos = FakeEos(MGMT)
    out = deploy.deploy(eos, "sw1", BUILD, check=True)
    assert out["changed"] and "+router bgp 65001" in out["diff"]
    assert eos.calls == ["replace", "merge", "abort"] and eos.running == MGMT


def test_a_hand_changed_switch_is_refused_untouched_unless_overwritten():
    eos = FakeEos(MGMT)
    deploy.deploy(eos, "sw1", BUILD)
    eos.running = eos.running.replace("ip address 10.0.0.0/31", "ip address 10.9.9.9/31")
    before, eos.calls = eos.running, []
    with pytest.raises(deploy.DeployError, match="sw1: the running config changed since the last deploy .* nothing "
                                                 "sent.*eos_deploy_overwrite_changes=true"):
        deploy.deploy(eos, "sw1", BUILD)
    assert eos.calls == [] and eos.running == before
    assert deploy.deploy(eos, "sw1", BUILD, guard=False)["changed"]
    assert "10.0.0.0/31" in eos.running and not deploy.changed_by_hand(eos.running)


def test_a_switch_without_a_record_is_not_refused():
    assert not deploy.changed_by_hand(MGMT)
    assert deploy.record_of(MGMT) is None


def test_a_failed_bgp_gate_rolls_the_session_back_and_says_so():
    eos = FakeEos(MGMT)
    deploy.deploy(eos, "sw1", BUILD)
    good, eos.calls = eos.running, []
    asked = []

    def gate():
        asked.append(1)
        return ["session 10.0.0.1 (sw2) is Active"]
    with pytest.raises(deploy.DeployError, match=r"sw1: session napalm_1 is committed but the BGP gate did not pass "
                                                 r"within 0.05s: session 10.0.0.1 \(sw2\) is Active; rolled back to "
                                                 r"the previous configuration \(configure session napalm_1 abort\)"):
        deploy.deploy(eos, "sw1", BUILD.replace("65002", "65009"), gate=gate, gate_timeout=0.05, gate_poll=0.01)
    assert eos.running == good and eos.calls[-1] == "rollback" and len(asked) >= 2


def test_a_gate_that_passes_is_asked_until_it_does_then_confirmed():
    eos = FakeEos("")
    answers = [["session 10.0.0.1 (sw2) is Connect"], []]
    out = deploy.deploy(eos, "sw1", BUILD, gate=lambda: answers.pop(0), gate_timeout=5, gate_poll=0.01)
    assert out["changed"] and eos.calls[-1] == "confirm" and answers == []


def test_a_lost_switch_is_left_to_its_commit_timer():
    eos = FakeEos("")

    def gate():
        raise ConnectionError("[Errno 111] Connection refused")
    with pytest.raises(deploy.DeployError, match="lost the switch after committing session napalm_1 with a 600s "
                                                 "commit timer .*EOS rolls it back"):
        deploy.deploy(eos, "sw1", BUILD, gate=gate)
    assert "rollback" not in eos.calls and "confirm" not in eos.calls


def test_a_config_eos_refuses_changes_nothing_in_one_line():
    eos = FakeEos(MGMT, fail_load="bogus")
    with pytest.raises(deploy.DeployError) as err:
        deploy.deploy(eos, "sw1", BUILD + "bogus line\n")
    assert str(err.value).startswith("sw1: EOS refused the change session: % Invalid input")
    assert "\n" not in str(err.value) and eos.running == MGMT


def test_the_drain_merges_its_lines_over_what_runs_and_keeps_the_record():
    eos = FakeEos(MGMT)
    deploy.deploy(eos, "sw1", BUILD)
    out = deploy.deploy(eos, "sw1", BUILD, merge=drain.commands({"asn": 65001}), step="drain")
    assert out["changed"] and "+neighbor FABRIC route-map GPUFABRIC_DRAIN out" in out["diff"]
    assert drain.RUNNING_MARKER in eos.running and "hostname sw1" in eos.running
    assert not deploy.changed_by_hand(eos.running)


def test_the_drain_lines_are_what_the_renderer_writes_for_a_drained_switch():
    lines = drain.commands({"asn": 64513})
    assert lines[0] == "configure" and lines[-1] == "end"
    assert "route-map GPUFABRIC_DRAIN permit 10" in lines and "neighbor FABRIC route-map GPUFABRIC_DRAIN out" in lines
    undo = drain.commands({"asn": 64513}, drain=False)
    assert "no neighbor FABRIC route-map GPUFABRIC_DRAIN out" in undo and "no route-map GPUFABRIC_DRAIN permit 10" in undo


def test_the_kept_blocks_are_the_running_configs_under_a_kept_prefix_only():
    running = MGMT + "interface Ethernet9/1\n   shutdown\n"
    assert deploy.kept_blocks(running, BUILD) == MGMT.rstrip("\n").splitlines()
    assert deploy.kept_blocks(running, BUILD + MGMT) == []


def test_the_digest_ignores_comments_the_record_and_end():
    text = ("! Command: show running-config\nhostname a\n!\nroute-map %s deny 10\n   description %sabc\n!\nend\n"
            % (deploy.RECORD_MAP, deploy.RECORD))
    assert deploy.digest(text) == deploy.digest("hostname a\n")
    assert deploy.record_of(text) == "abc"


def test_the_golden_build_is_a_candidate_as_it_is():
    path = os.path.join(ROOT, "tests/golden/eos-lab/rendered/devices/eoslab-spine02/startup-config")
    with open(path) as f:
        text = f.read()
    assert deploy.candidate(text, "") == text.rstrip("\n") + "\n"
