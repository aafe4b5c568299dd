"""What a Cumulus Linux 5.x switch keeps of its applies, and its confirm timer: the part of nvued behind
`nv config history` and `nv config apply --confirm <time>` (nvue_api.py's NvueSwitch takes it as a base class).

Written from NVIDIA's Cumulus Linux 5.14 user guide, "NVUE CLI" (Configuration Management Commands; "Add
Configuration Apply Messages") and the NVUE command reference, Config Commands (`nv config apply`):
- ``--confirm [<time>]`` applies the revision, which then waits to be confirmed (its state ``confirm``, as `nv
  config revision` shows it); not confirmed within the time (ten minutes by default; ``60`` is an hour, so a bare
  number counts minutes, ``30s``/``5m``/``1h`` say their unit), the switch goes back to the configuration applied
  before, by itself; ``--confirm-yes`` keeps it (state ``applied``), ``--confirm-no`` rolls it back now,
  ``--confirm-status`` says how long is left;
- every apply is recorded: `nv config history` lists each with its revision, date and time, user, how it was made
  (CLI, REST API) and the message `nv config apply -m <message>` gave it; a rollback by the timer is recorded too.
The guide gives the confirm options for the CLI only (the API chapter's apply is ``{"state": "apply",
"auto-prompt": ...}``), so only the twin's `nv` reaches them (nvue_http.py's internal route, as nv reaches nvued).
"""
import copy
import datetime
import json
import os
import re
import threading
import time

DEFAULT_CONFIRM = 600.0
_TIME = re.compile(r"^(\d+)([smh]?)$")


def confirm_seconds(text):
    """Seconds of an ``--confirm <time>`` (``60`` minutes, ``30s``, ``5m``, ``1h``); ValueError otherwise."""
    found = _TIME.match(str(text).strip())
    if not found or int(found.group(1)) == 0:
        raise ValueError("--confirm %s: a time such as 30s, 10m or 1h (a bare number counts minutes)" % text)
    return float(int(found.group(1)) * {"s": 1, "m": 60, "h": 3600, "": 60}[found.group(2)])


class ConfirmHistory:
    """The apply history and the pending confirmation of one switch. Needs of its subclass: ``lock``,
    ``apply_lock``, ``applied``, ``applied_id``, ``applier`` and ``startup_path``."""

    def _history_init(self):
        self.history = []
        self.confirming = None    # (revision, previous config, previous id, deadline, timer, history entry)
        path = self._history_path()
        if path and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                self.history = json.load(f)

    def _history_path(self):
        return os.path.join(os.path.dirname(os.path.abspath(self.startup_path)), "history.json") \
            if self.startup_path else None

    def _record(self, rev_id, user, method, message, state):
        entry = {"apply-id": str(len(self.history) + 1), "rev-id": str(rev_id), "user": user, "method": method,
                 "message": message or "", "state": state,
                 "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")}
        self.history.append(entry)
        self._write_history()
        return entry

    def _write_history(self):
        path = self._history_path()
        if path:
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(self.history, f, indent=1)
            os.replace(tmp, path)

    def history_view(self, rev_id=None):
        """`nv config history [<revision>]`: {apply-id: entry}, the newest last."""
        with self.lock:
            return {e["apply-id"]: copy.deepcopy(e) for e in self.history if rev_id is None or e["rev-id"] == rev_id}

    def confirm_status(self):
        """Seconds left before the pending confirmation rolls back, or None when none is pending."""
        with self.lock:
            if self.confirming is None:
                return None
            return max(0.0, self.confirming[3] - time.monotonic())

    def _arm(self, revision, previous, previous_id, seconds, entry):
        timer = threading.Timer(seconds, self._expired, args=(revision,))
        timer.daemon = True
        self.confirming = (revision, previous, previous_id, time.monotonic() + seconds, timer, entry)
        revision.state = entry["state"] = "confirm"
        self._write_history()
        revision.progress = "Waiting for confirmation (%d s)" % seconds
        timer.start()

    def confirm(self, rev_id, yes):
        """`nv config apply <rev> --confirm-yes` (keep) or `--confirm-no` (roll back now); (status, body)."""
        with self.lock:
            pending = self.confirming
            if pending is None or pending[0].id != rev_id:
                return 400, {"detail": "revision %s is not waiting for confirmation" % rev_id, "status": 400,
                             "title": "Bad Request", "type": "about:blank"}
            if yes:
                pending[4].cancel()
                self.confirming = None
                pending[0].state, pending[0].progress = "applied", ""
                pending[5]["state"] = "applied"
                self._write_history()
                return 200, pending[0].view()
        self._roll_back(pending[0], "confirm_no", "rolled back: revision %s confirmed no" % rev_id)
        return 200, pending[0].view()

    def _expired(self, revision):
        self._roll_back(revision, "confirm_fail", "rolled back: revision %s was not confirmed in time" % revision.id)

    def _roll_back(self, revision, state, why):
        with self.apply_lock:
            with self.lock:
                pending = self.confirming
                if pending is None or pending[0] is not revision:
                    return
                self.confirming = None
                previous, previous_id = copy.deepcopy(pending[1]), pending[2]
                current = copy.deepcopy(self.applied)
            problem = None
            try:
                if self.applier is not None:
                    self.applier(previous, current)
            except Exception as exc:  # noqa: BLE001 -- the switch reports it; its state says what runs
                problem = str(exc)
            with self.lock:
                if problem is None:
                    self.applied, self.applied_id = previous, previous_id
                revision.state = state
                revision.progress = why if problem is None else "rollback failed: %s" % problem
                revision.issue = {"0": {"code": state, "data": {}, "message": revision.progress, "severity": "error"}}
                pending[5]["state"] = state
                self._record(previous_id or "empty", "system", "rollback", why, "applied" if problem is None else
                             "apply_fail")
