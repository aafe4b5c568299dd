"""A stand-in for the NVUE REST API of one Cumulus Linux 5.x switch, strict where NVIDIA's is.

Written from NVIDIA's Cumulus Linux 5.14 user guide, chapter "NVUE API" (docs/twin.md cites the pages):
HTTPS with basic authentication on port 8765 under ``/nvue_v1``; ``POST /nvue_v1/revision`` creates a
revision (``{"<id>": {"state": "pending", "transition": {"issue": {}, "progress": ""}}}``);
``PATCH``/``DELETE /nvue_v1/<path>?rev=<id>`` change the revision (a root patch merges objects, ``null``
unsets a key); ``PATCH /nvue_v1/revision/<id>`` with ``{"state": "apply", "auto-prompt": {"ays": "ays_yes"}}``
applies it, and ``GET /nvue_v1/revision/<id>`` reports its state until ``applied`` (or ``invalid`` with
the issue's ``location``, ``ays_fail`` when a warning prompt was not answered, ``apply_fail`` when
the switch could not take it); ``GET /nvue_v1/<path>?rev=applied|startup|<id>&filled=false`` reads a
configuration; ``PATCH /nvue_v1/revision/applied`` with ``{"state": "save", ...}`` is ``nv config save``.

What is checked, as the switch checks it: the credentials of every request (401 otherwise); a PATCH
against the NVUE object model of the switch's release (400 naming the failing path, and the revision
keeps what it had); at apply, the dependency NVIDIA's guide shows failing (BGP enabled without a
router-id: state ``invalid``, location ``router.bgp.enable``); an apply either takes effect whole (the
revision becomes the applied one, the ``applier`` made it real) or fails and the previous revision stays
applied. The first apply made through NVUE asks "are you sure" (the guide's "first push with NVUE"):
without ``ays_yes`` it ends ``ays_fail``. The CLI's ``nv config apply --confirm`` timer and apply message have no
API form in NVIDIA's NVUE API chapter: the switch keeps them (nvue_confirm.py), the public API offers neither, and
only the twin's `nv` reaches them (nvue_http.py's internal route).

This module is the switch's side (revisions, patch, apply, save); nvue_http.py serves it over HTTPS.
The twin's emulator: it imports the standard library and its own JSON merge patch (merge_patch.py) and checks
(nvue_checks.py) only, nothing of the product it judges.
"""
import copy
import hmac
import os
import tempfile
import threading
import time

from .merge_patch import apply as merge
from .nvue_confirm import ConfirmHistory
from .nvue_checks import DEFAULT_RELEASE, _subtree, dependency_issues, schema_validator  # noqa: F401  (the API's names)

API_ROOT = "/nvue_v1"
DEFAULT_PORT = 8765
NAMED_REVISIONS = ("applied", "startup", "empty")


class ApplyError(Exception):
    """Raised by an applier: the switch could not take the configuration; it keeps the previous one."""


def _nest(keys, value):
    for key in reversed(keys):
        value = {key: value}
    return value


class Revision:
    def __init__(self, rev_id, config):
        self.id = rev_id
        self.config = config
        self.state = "pending"
        self.progress = ""
        self.issue = {}
        self.created = time.time()

    def view(self):
        return {"state": self.state, "transition": {"issue": copy.deepcopy(self.issue), "progress": self.progress}}


class NvueSwitch(ConfirmHistory):
    """The NVUE configuration database of one switch: revisions, the applied one and the startup file.

    ``applier(config, previous)`` makes an applied configuration real (the twin's namespace); it raises
    ApplyError when it cannot, after putting ``previous`` back. ``startup_path`` is the switch's
    /etc/nvue.d/startup.yaml: read at start (the boot configuration), written by a save."""

    def __init__(self, hostname, users, release=DEFAULT_RELEASE, validator=None, applier=None, startup_path=None,
                 apply_seconds=0.2, prompt_first_apply=True):
        self.hostname = hostname
        self.users = dict(users)
        self.release = release
        self.validator = validator or schema_validator(release)
        self.applier = applier
        self.startup_path = startup_path
        self.apply_seconds = apply_seconds
        self.prompt_first_apply = prompt_first_apply
        self.lock = threading.RLock()
        self.apply_lock = threading.Lock()
        self.revisions = {}
        self.next_id = 1
        self.applied = self._read_startup()
        self.startup = copy.deepcopy(self.applied)
        self.applied_id = None
        self.applies = 0  # applies made through NVUE since boot
        self.reachable = lambda: True   # whether the management network reaches the API (the plane decides)
        self._history_init()

    # --- persistence --------------------------------------------------------------------------------

    def _read_startup(self):
        if not self.startup_path or not os.path.exists(self.startup_path):
            return {}
        import yaml

        with open(self.startup_path, encoding="utf-8") as f:
            docs = yaml.safe_load(f) or []
        config = {}
        for doc in docs:
            if isinstance(doc, dict) and "set" in doc:
                config = merge(config, doc["set"])
        return config

    def _write_startup(self, config):
        import yaml

        header = {"model": "stand-in", "nvue-api-version": "nvue_v1", "rev-id": 1.0,
                  "version": "Cumulus Linux %s.0" % self.release}
        text = yaml.safe_dump([{"header": header}, {"set": config}], sort_keys=False, default_flow_style=False)
        directory = os.path.dirname(os.path.abspath(self.startup_path))
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".startup.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, self.startup_path)

    # --- the operations the API maps onto -----------------------------------------------------------

    def authenticate(self, user, password):
        known = self.users.get(user)
        return known is not None and hmac.compare_digest(known.encode(), password.encode())

    def config_of(self, rev):
        with self.lock:
            if rev == "applied":
                return copy.deepcopy(self.applied)
            if rev == "startup":
                return copy.deepcopy(self.startup)
            if rev == "empty":
                return {}
            revision = self.revisions.get(rev)
            return None if revision is None else copy.deepcopy(revision.config)

    def create_revision(self):
        with self.lock:
            rev_id = str(self.next_id)
            self.next_id += 1
            self.revisions[rev_id] = Revision(rev_id, copy.deepcopy(self.applied))
            return self.revisions[rev_id]

    def change(self, rev_id, keys, patch):
        """PATCH (``patch`` a dict) or DELETE (``patch`` None) at ``keys`` of a pending revision; returns
        (status, body). The revision is checked whole against the object model before it keeps the change."""
        with self.lock:
            revision = self.revisions.get(rev_id)
            if revision is None:
                return 404, problem(404, "revision %s does not exist" % rev_id)
            if revision.state != "pending":
                return 400, problem(400, "revision %s is %s: only a pending revision can change" % (rev_id, revision.state))
            if patch is None:
                if keys:
                    parent = _subtree(revision.config, keys[:-1])
                    candidate = merge(revision.config, _nest(keys, None)) if isinstance(parent, dict) else revision.config
                else:
                    candidate = {}
            else:
                if not isinstance(patch, dict):
                    return 400, problem(400, "%s: the body of a PATCH is a JSON object, got %s"
                                        % (_dotted(keys), type(patch).__name__))
                candidate = merge(revision.config, _nest(keys, patch))
            problems = self.validator(self.hostname, candidate)
            if problems:
                return 400, problem(400, "; ".join(problems))
            revision.config = candidate
            return (204, None) if patch is None else (200, patch)

    def apply(self, rev_id, body, user="cumulus", method="REST API", confirm=None, message=None):
        """Apply a pending revision in the background; ``confirm`` (seconds) arms the confirm timer (`nv`'s
        ``--confirm``), ``message`` is what `nv config history` shows for it (`nv config apply -m`)."""
        with self.lock:
            revision = self.revisions.get(rev_id)
            if revision is None:
                return 404, problem(404, "revision %s does not exist" % rev_id)
            bad = _revision_body_problem(body, ("apply",))
            if bad:
                return 400, problem(400, bad)
            if revision.state != "pending":
                return 400, problem(400, "revision %s is %s: only a pending revision can be applied" % (rev_id, revision.state))
            if self.confirming is not None:
                return 400, problem(400, "revision %s is waiting for confirmation: confirm it (--confirm-yes) or roll it "
                                    "back (--confirm-no) first" % self.confirming[0].id)
            revision.state = "apply"
            answer = ((body.get("auto-prompt") or {}).get("ays"))
            how = (user, method, confirm, message)
            threading.Thread(target=self._apply, args=(revision, answer, how), daemon=True).start()
            return 200, revision.view()

    def _apply(self, revision, answer, how=("cumulus", "REST API", None, None)):
        # NVUE applies one revision at a time; the switch's state stays readable (and polled) meanwhile.
        with self.apply_lock:
            time.sleep(self.apply_seconds / 2)
            with self.lock:
                revision.progress = "checking"
                issues = dependency_issues(revision.config)
                if issues:
                    revision.state = "invalid"
                    revision.progress = "Invalid config"
                    revision.issue = {str(n): {"code": "config_invalid", "data": {"location": loc, "reason": reason},
                                               "message": "Config invalid at %s: %s" % (loc, reason), "severity": "error"}
                                      for n, (loc, reason) in enumerate(issues)}
                    return
                if self.prompt_first_apply and self.applies == 0 and answer != "ays_yes":
                    revision.state = "ays_fail"
                    revision.progress = "Aborted apply after warnings"
                    revision.issue = {"0": {"code": "client_timeout", "data": {},
                                            "message": "Timeout while waiting for client response", "severity": "error"}}
                    return
                revision.progress = "applying"
                previous = copy.deepcopy(self.applied)
                config = copy.deepcopy(revision.config)
            time.sleep(self.apply_seconds / 2)
            try:
                if self.applier is not None:
                    self.applier(config, previous)
            except ApplyError as exc:
                with self.lock:
                    revision.state = "apply_fail"
                    revision.progress = "Apply failed; the previous configuration is still applied"
                    revision.issue = {"0": {"code": "apply_failed", "data": {}, "message": str(exc), "severity": "error"}}
                return
            with self.lock:
                previous_id = self.applied_id
                self.applied = config
                self.applied_id = revision.id
                self.applies += 1
                revision.state = "applied"
                revision.progress = ""
                entry = self._record(revision.id, how[0], how[1], how[3], "applied")
                if how[2]:
                    self._arm(revision, previous, previous_id, how[2], entry)

    def save(self, body):
        with self.lock:
            bad = _revision_body_problem(body, ("save",))
            if bad:
                return 400, problem(400, bad)
            self.startup = copy.deepcopy(self.applied)
            if self.startup_path:
                self._write_startup(self.startup)
            return 200, {"state": "save", "transition": {"issue": {}, "progress": ""}}

    def delete_revision(self, rev_id):
        with self.lock:
            revision = self.revisions.get(rev_id)
            if revision is None:
                return 404, problem(404, "revision %s does not exist" % rev_id)
            if revision.state in ("apply", "applied", "confirm"):
                return 400, problem(400, "revision %s is %s: it cannot be deleted" % (rev_id, revision.state))
            del self.revisions[rev_id]
            return 204, None


def _revision_body_problem(body, states):
    if not isinstance(body, dict):
        return "the body is a JSON object with state"
    unknown = sorted(set(body) - {"state", "auto-prompt"})
    if unknown:
        return "unknown key(s) %s: a revision PATCH takes state and auto-prompt" % ", ".join(unknown)
    if body.get("state") not in states:
        return "state %r: one of %s here" % (body.get("state"), ", ".join(states))
    prompt = body.get("auto-prompt", {})
    if not isinstance(prompt, dict) or set(prompt) - {"ays", "ignore_fail"} or \
            prompt.get("ays", "ays_yes") not in ("ays_yes", "ays_no"):
        return "auto-prompt: {\"ays\": \"ays_yes\"} or {\"ays\": \"ays_no\"}"
    return None


def _dotted(keys):
    return ".".join(keys) or "/"


def problem(status, detail):
    """An error body: HTTP status, its title and what was wrong."""
    titles = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed"}
    return {"detail": detail, "status": status, "title": titles.get(status, "Error"), "type": "about:blank"}
