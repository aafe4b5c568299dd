"""How the twin's ``nv`` reaches its switch's NVUE API (nvue_api.py, served by nvue_http.py) for ``nv config
patch/apply/save``, as NVIDIA's nv reaches nvued: a revision created, patched, applied with the prompt answered,
its state read until it ends, and the applied revision saved. The emulator's own small HTTPS client (standard
library only), written from NVIDIA's NVUE API chapter; not the deploy's client.
"""
import base64
import http.client
import json
import ssl
import time
import urllib.parse

ROOT = "/nvued/api"     # nv reaches nvued on the switch itself (nvue_http.py), not over the management network
NV = "/nvued"
# The states a revision ends an apply in (NVUE API chapter: applied, or one of its failures).
DONE = frozenset(("applied", "applied_and_saved", "invalid", "ays_fail", "ays_no", "apply_fail", "apply_error",
                  "ignore_fail", "confirm_fail", "confirm_no"))
# An apply with --confirm ends its first part waiting for confirmation.
CONFIRMING = "confirm"
APPLIED = frozenset(("applied", "applied_and_saved"))
YES = {"ays": "ays_yes"}


class ApiError(Exception):
    """The API refused a request or could not be reached; the text says which and why."""


class Api:
    def __init__(self, host, address, port, user, password, ca_file):
        self.host, self.address, self.port = host, address, port
        self._auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self._tls = ssl.create_default_context(cafile=ca_file)

    def call(self, method, path, body=None, root=ROOT, **query):
        url = root + path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Authorization": self._auth, "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn = http.client.HTTPSConnection(self.address, self.port, context=self._tls, timeout=60)
        try:
            conn.request(method, url, body=data, headers=headers)
            reply = conn.getresponse()
            text = reply.read().decode("utf-8", "replace")
        except (OSError, http.client.HTTPException) as exc:
            raise ApiError("%s: NVUE API at %s:%s unreachable: %s" % (self.host, self.address, self.port, exc)) from exc
        finally:
            conn.close()
        try:
            answer = json.loads(text) if text.strip() else {}
        except ValueError:
            answer = {"detail": text.strip()}
        if reply.status >= 400:
            detail = answer.get("detail") or answer.get("title") if isinstance(answer, dict) else None
            raise ApiError("%s: %s %s: %d %s" % (self.host, method, url, reply.status, detail or reply.reason))
        return answer

    def new_revision(self):
        answer = self.call("POST", "/revision")
        if not isinstance(answer, dict) or len(answer) != 1:
            raise ApiError("%s: POST %s/revision answered %r, not one revision" % (self.host, ROOT, answer))
        return next(iter(answer))

    def revision(self, rev):
        return self.call("GET", "/revision/" + urllib.parse.quote(rev, safe=""))

    def patch(self, rev, config):
        self.call("PATCH", "/", config, rev=rev)

    def replace(self, rev, config):
        """The revision's whole configuration replaced (`nv config replace`): emptied, then given ``config``."""
        self.call("DELETE", "/", rev=rev)
        self.call("PATCH", "/", config, rev=rev)

    def apply(self, rev, timeout, poll, confirm=None, message=None):
        """The revision applied (the "are you sure" prompt answered yes; ``confirm`` seconds to confirm it in,
        ``message`` for the history) and read until it ends, waits for confirmation, or ``timeout`` seconds pass;
        its last view."""
        path = "/revision/" + urllib.parse.quote(rev, safe="")
        body = {"state": "apply", "auto-prompt": YES}
        if confirm:
            body["confirm"] = confirm
        if message:
            body["message"] = message
        self.call("PATCH", path, body, root=NV)
        deadline = time.monotonic() + timeout
        while True:
            view = self.call("GET", path)
            if view.get("state") in DONE or (confirm and view.get("state") == CONFIRMING) or \
                    time.monotonic() >= deadline:
                return view
            time.sleep(poll)

    def confirm(self, rev, yes):
        """`--confirm-yes` or `--confirm-no` of a revision waiting for confirmation; its view after."""
        return self.call("PATCH", "/revision/" + urllib.parse.quote(rev, safe=""), {"confirm": "yes" if yes else "no"},
                         root=NV)

    def history(self, rev=None):
        return self.call("GET", "/history" + ("/" + urllib.parse.quote(rev, safe="") if rev else ""), root=NV)

    def confirm_status(self):
        return self.call("GET", "/confirm-status", root=NV)

    def config(self, rev):
        return self.call("GET", "/", rev=rev, filled="false")

    def save(self):
        self.call("PATCH", "/revision/applied", {"state": "save", "auto-prompt": YES})


def why(view):
    """The words of a revision's issues (with where, when NVUE says), else its progress."""
    transition = (view or {}).get("transition") or {}
    said = []
    for issue in (transition.get("issue") or {}).values():
        text = str(issue.get("message") or issue.get("code") or "").strip()
        where = (issue.get("data") or {}).get("location")
        if where and where not in text:
            text += " (at %s)" % where
        if text:
            said.append(text)
    return "; ".join(said) or transition.get("progress") or "no reason given"
