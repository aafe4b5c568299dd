"""The part of a Cumulus deploy that runs through the switch's `nv` (over the switch's own connection, as the BGP
gate does): the apply armed with NVUE's confirm timer, confirmed once the read-back and the BGP gate pass, and the
deploy's record kept in the switch's revision history.

NVIDIA's Cumulus Linux 5.14 user guide ("NVUE CLI", Configuration Management Commands) and NVUE command reference
(Config Commands, `nv config apply`) give ``--confirm <time>``, ``--confirm-yes``, ``--confirm-no`` and ``-m
<message>`` for the CLI only (the API chapter's apply takes a state and prompt answers), so these go through `nv`:
- ``nv config apply <rev> -y --confirm <N>s -m <record>``: the revision applies and waits to be confirmed (state
  ``confirm``); not confirmed in time, the switch goes back to the previous configuration by itself, so a change
  that cuts the controller off from the switch is undone without the controller;
- ``nv config apply <rev> --confirm-yes`` keeps it, ``--confirm-no`` rolls it back at once;
- ``nv config history -o json``: the applies, each with its message. The deploy's message names the digest of the
  configuration it left (``RECORD``); the hand-change guard compares the switch with the last one, so a job with no
  files of the controller (AWX) is guarded too, and a switch with no record (factory-empty, or never deployed by this
  collection) is not refused.
"""
import hashlib
import json
import shlex
import time

RECORD = "gpucluster.fabric deploy sha256="
KEPT = ("applied", "applied_and_saved")


class DeployError(Exception):
    """A deploy that did not go through; the message names the switch, NVUE's words and what now runs."""


class CliError(Exception):
    """`nv` on the switch failed or could not be run; the message says which command and why."""


def digest(config):
    """A short digest of a configuration (the record of what a deploy left; no value is kept)."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:24]


def record_message(config):
    return RECORD + digest(config)


class NvCli:
    """`nv` on the switch through ``run(command) -> (rc, stdout, stderr)`` (the task's connection)."""

    def __init__(self, hostname, run):
        self.hostname = hostname
        self._run = run

    def call(self, *words):
        line = "nv " + " ".join(shlex.quote(str(w)) for w in words)
        rc, out, err = self._run(line)
        if rc != 0:
            raise CliError("%s: `%s` failed (rc %s): %s" % (self.hostname, line, rc, (err or out or "").strip()[-400:]))
        return out

    def history(self):
        out = self.call("config", "history", "-o", "json")
        try:
            return json.loads(out or "{}")
        except ValueError:
            raise CliError("%s: `nv config history -o json` answered something that is not JSON" % self.hostname) from None

    def apply(self, rev, confirm, message):
        words = ["config", "apply", rev, "-y", "-m", message]
        if confirm:
            words += ["--confirm", "%ds" % int(confirm)]
        return self.call(*words)

    def diff(self, first, second):
        """`nv config diff <first> <second>`: NVUE's own difference between two revisions (YAML, ``- unset:`` and
        ``- set:`` documents; empty when they are the same)."""
        return self.call("config", "diff", first, second)

    def confirm(self, rev, yes):
        return self.call("config", "apply", rev, "--confirm-yes" if yes else "--confirm-no")


def _entries(history):
    """The history's applies, oldest first: a dict keyed by apply id (or a list) of entries."""
    if isinstance(history, dict):
        items = sorted(history.items(), key=lambda kv: int(kv[0]) if str(kv[0]).isdigit() else 0)
        return [dict(v, **{"apply-id": k}) for k, v in items if isinstance(v, dict)]
    return [e for e in history or () if isinstance(e, dict)]


def last_record(history):
    """(the last apply the deploy recorded and kept, the applies after it) from `nv config history`; (None, [])."""
    entries = _entries(history)
    for n in range(len(entries) - 1, -1, -1):
        entry = entries[n]
        if str(entry.get("message", "")).startswith(RECORD) and entry.get("state", "applied") in KEPT:
            return entry, entries[n + 1:]
    return None, []


def changed_by_hand(history, applied, config_of, fingerprint, changed_since):
    """What changed on the switch since the last deploy recorded in its history, [] when nothing did or there is no
    record. Paths where the recorded revision can still be read (``config_of(rev)``, None otherwise), else the applies
    made since. ``fingerprint``/``changed_since`` are deploy.py's."""
    entry, since = last_record(history)
    if entry is None or digest(applied) == entry["message"][len(RECORD):].strip():
        return []
    before = config_of(str(entry.get("rev-id", "")))
    if isinstance(before, dict):
        paths = [p for p in changed_since(fingerprint(before), applied) if p]
        if paths:
            return paths
    return ["revision %s (%s, %s by %s)" % (e.get("rev-id", "?"), e.get("date", "?"), e.get("method", "?"),
                                            e.get("user", "?")) for e in since] or ["the applied configuration"]


def nvue_diff(client, cli, patch):
    """The switch's own difference (``nv config diff applied <rev>``) between what runs and ``patch`` in a pending
    revision that is never applied and deleted afterwards (check mode changes nothing): Ansible's ``prepared`` diff."""
    from .nvue_client import NvueError

    rev = client.create_revision()
    try:
        client.patch(rev, patch)
        text = cli.diff("applied", rev)
    except (NvueError, CliError) as exc:
        raise DeployError("%s: the NVUE difference could not be had (%s); nothing was applied"
                          % (client.hostname, exc)) from None
    finally:
        try:
            client.delete_revision(rev)
        except NvueError:
            pass  # a pending revision never applied changes nothing; the switch drops it with the others
    return {"prepared": "--- %s (NVUE applied)\n+++ %s (NVUE revision %s, pending, not applied)\n%s"
            % (client.hostname, client.hostname, rev, text if text.endswith("\n") or not text else text + "\n")}


def wait_state(client, rev, states, timeout, poll):
    """The revision's view once its state is one of ``states``, or the last one after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        view = client.revision(rev)
        if view.get("state") in states or time.monotonic() >= deadline:
            return view
        time.sleep(poll)


def wait_back(client, before, timeout, poll):
    """True once the switch answers again with ``before`` applied (its confirm timer rolled it back), within
    ``timeout`` seconds; False otherwise. Unanswered requests count as not yet."""
    from .nvue_client import NvueError

    deadline = time.monotonic() + timeout
    while True:
        try:
            if client.config("applied") == before:
                return True
        except NvueError:
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)


def lost(client, rev, before, confirm, poll, why):
    """The switch stopped answering after revision ``rev`` was applied: wait (bounded by the confirm time) for its
    confirm timer to bring back ``before``; raises DeployError saying what happened either way."""
    host = client.hostname
    if not confirm:
        raise DeployError("%s: lost the switch after applying NVUE revision %s (%s); no confirm timer was armed "
                          "(cumulus_deploy_confirm_timeout 0), so the new configuration stays" % (host, rev, why))
    if wait_back(client, before, confirm + max(30.0, confirm / 2), poll):
        raise DeployError("%s: lost the switch after applying NVUE revision %s (%s); not confirmed, the switch's confirm "
                          "timer (%ds) rolled it back to the previous configuration, which runs again (nv config "
                          "history shows the rollback): the change cut the controller off from the switch"
                          % (host, rev, why, confirm))
    raise DeployError("%s: lost the switch after applying NVUE revision %s (%s) and it did not come back with the "
                      "previous configuration within %ds of its confirm timer: reach it on its console"
                      % (host, rev, why, confirm + max(30.0, confirm / 2)))


def apply_confirmed(client, cli, rev, desired, before, confirm, timeout, poll, check_after):
    """Apply ``rev`` through `nv` with the confirm timer (``confirm`` seconds, 0: none) and the deploy's record,
    run ``check_after()`` (the read-back and the BGP gate: a problem, or None), then confirm it, or roll it back
    (``--confirm-no``) when the check found a problem. Returns None once kept; raises DeployError otherwise (the
    story of what runs on the switch). With no timer, a problem is returned for the caller's own rollback."""
    from .nvue_client import APPLIED, FAILED, NvueError, issue_text

    host = client.hostname
    try:
        cli.apply(rev, confirm, record_message(desired))
    except CliError as exc:
        try:
            view = client.revision(rev)
        except NvueError as lost_exc:
            return lost(client, rev, before, confirm, poll, str(lost_exc))
        if view.get("state") in FAILED:
            raise DeployError("%s: NVUE revision %s %s: %s; the previous configuration is still applied"
                              % (host, rev, view.get("state"), issue_text(view))) from None
        raise DeployError("%s; revision %s is %s: %s" % (exc, rev, view.get("state"), issue_text(view))) from None
    try:
        view = wait_state(client, rev, APPLIED | FAILED | {"confirm"}, timeout, poll)
        state = view.get("state")
        if state in FAILED:
            raise DeployError("%s: NVUE revision %s %s: %s; the previous configuration is still applied"
                              % (host, rev, state, issue_text(view)))
        if state not in APPLIED | {"confirm"}:
            return "NVUE revision %s did not end within %ss (state %s)" % (rev, timeout, state)
        problem = check_after()
    except NvueError as exc:
        return lost(client, rev, before, confirm, poll, str(exc))
    if not confirm or state != "confirm":
        return problem
    try:
        cli.confirm(rev, problem is None)
    except CliError as exc:
        return lost(client, rev, before, confirm, poll, str(exc))
    if problem is None:
        return None
    if not wait_back(client, before, timeout, poll):
        raise DeployError("%s: %s; nv config apply %s --confirm-no did not bring the previous configuration back within "
                          "%ss" % (host, problem, rev, timeout))
    raise DeployError("%s: %s; rolled back to the previous configuration (nv config apply %s --confirm-no)"
                      % (host, problem, rev))
