"""A client of the NVUE REST API of one Cumulus Linux switch (user guide, "NVUE API"): HTTPS with basic
authentication, certificate checking on unless told otherwise, every error one line naming the switch.

Standard library only: it runs in the controller's Python, beside Ansible.
"""
import base64
import json
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request

API_ROOT = "/nvue_v1"
DEFAULT_PORT = 8765
# A revision's states after an apply (user guide, "NVUE API", Troubleshoot Configuration Changes; `nv config
# revision`): these end it; any other state (apply, checking, ...) is still on its way.
APPLIED = frozenset({"applied", "applied_and_saved"})
FAILED = frozenset({"invalid", "ays_fail", "ays_no", "apply_fail", "apply_error", "ignore_fail", "confirm_fail",
                    "rejected"})
APPLY_BODY = {"state": "apply", "auto-prompt": {"ays": "ays_yes"}}
SAVE_BODY = {"state": "save", "auto-prompt": {"ays": "ays_yes"}}


def merge(tree, patch):
    """``patch`` merged into ``tree`` as NVUE merges a PATCH: objects merge key by key, ``null`` unsets a key,
    anything else replaces. Returns a new tree."""
    import copy

    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(tree) if isinstance(tree, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge(out.get(key), value)
    return out


class NvueError(Exception):
    """A request the switch refused or could not answer; the message names the switch and NVUE's words."""


def issue_text(revision):
    """NVUE's own words for a revision's failure: each issue's message (and location), else its progress."""
    transition = (revision or {}).get("transition") or {}
    words = []
    for issue in (transition.get("issue") or {}).values():
        location = (issue.get("data") or {}).get("location")
        message = (issue.get("message") or issue.get("code") or "").strip()
        words.append("%s%s" % (message, " (at %s)" % location if location and location not in message else ""))
    return "; ".join(w for w in words if w) or transition.get("progress") or "no reason given"


class NvueClient:
    def __init__(self, hostname, host, user, password, port=DEFAULT_PORT, validate_certs=True, ca_path=None,
                 timeout=30.0):
        self.hostname = hostname
        self.base = "https://%s:%d%s" % (host if ":" not in host else "[%s]" % host, int(port), API_ROOT)
        self._auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.user = user
        self.timeout = timeout
        if validate_certs:
            self._context = ssl.create_default_context(cafile=ca_path or None)
        else:
            self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            self._context.check_hostname = False
            self._context.verify_mode = ssl.CERT_NONE
        self.ca_path = ca_path
        # An opener of its own: no proxy from the environment between the controller and a switch's API.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                                   urllib.request.HTTPSHandler(context=self._context))

    def request(self, method, path, body=None, query=None):
        url = self.base + path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method,
                                     headers={"Authorization": self._auth, "Accept": "application/json"})
        if data is not None:
            req.add_header("Content-Type", "application/json")
        where = "%s %s" % (method, path + ("?" + urllib.parse.urlencode(query) if query else ""))
        try:
            with self._opener.open(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            raise NvueError(self._http_error(exc, where)) from None
        except urllib.error.URLError as exc:
            raise NvueError(self._unreachable(exc.reason)) from None
        except (socket.timeout, TimeoutError, ConnectionError, ssl.SSLError) as exc:
            raise NvueError(self._unreachable(exc)) from None
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise NvueError("%s: NVUE API %s answered something that is not JSON" % (self.hostname, where)) from None

    def _http_error(self, exc, where):
        try:
            body = json.loads(exc.read() or b"{}")
        except ValueError:
            body = {}
        detail = body.get("detail") or body.get("title") or exc.reason
        if exc.code == 401:
            return ("%s: NVUE API refused the credentials of user %r (401 Unauthorized): set cumulus_deploy_user and "
                    "cumulus_deploy_password (vault) to an account of the switch" % (self.hostname, self.user))
        if exc.code == 403:
            return ("%s: NVUE API forbids %s for user %r (403): the account must be in the nvapply group, and on "
                    "Cumulus Linux 5.6+ the default cumulus password must have been changed" % (self.hostname, where,
                                                                                                self.user))
        return "%s: NVUE API %s: %d %s" % (self.hostname, where, exc.code, detail)

    def _unreachable(self, reason):
        if isinstance(reason, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(reason):
            return ("%s: the certificate of %s is not trusted (%s): give cumulus_deploy_ca_path, the CA bundle that "
                    "signed the switch's certificate" % (self.hostname, self.base, getattr(reason, "verify_message", reason)))
        return "%s: NVUE API at %s unreachable: %s" % (self.hostname, self.base, reason)

    # --- NVUE's operations ---------------------------------------------------------------------------

    def config(self, rev="applied"):
        """A revision's configuration as set (``filled=false``: without the defaults NVUE fills in)."""
        return self.request("GET", "/", query={"rev": rev, "filled": "false"}) or {}

    def create_revision(self):
        created = self.request("POST", "/revision")
        if not isinstance(created, dict) or len(created) != 1:
            raise NvueError("%s: NVUE API POST /revision answered %r, not one new revision" % (self.hostname, created))
        return next(iter(created))

    def patch(self, rev, patch):
        return self.request("PATCH", "/", body=patch, query={"rev": rev})

    def replace(self, rev, config):
        """The revision's whole configuration replaced (the guide's "Replace an Entire Configuration")."""
        self.request("DELETE", "/", query={"rev": rev})
        return self.request("PATCH", "/", body=config, query={"rev": rev})

    def revision(self, rev):
        found = self.request("GET", "/revision/%s" % urllib.parse.quote(rev, safe=""))
        # Some releases key the answer by the revision's id, others do not.
        if isinstance(found, dict) and "state" not in found and rev in found:
            found = found[rev]
        return found or {}

    def apply(self, rev, timeout, poll):
        """Apply ``rev`` answering yes to NVUE's prompts and wait, at most ``timeout`` seconds, for it to end.
        Returns the revision's last view; its state says how it ended (a state not in APPLIED or FAILED: timed out)."""
        self.request("PATCH", "/revision/%s" % urllib.parse.quote(rev, safe=""), body=APPLY_BODY)
        deadline = time.monotonic() + timeout
        while True:
            found = self.revision(rev)
            if found.get("state") in APPLIED | FAILED or time.monotonic() >= deadline:
                return found
            time.sleep(min(poll, max(0.0, deadline - time.monotonic())))

    def save(self):
        """`nv config save`: the applied revision becomes the startup configuration."""
        return self.request("PATCH", "/revision/applied", body=SAVE_BODY)

    def delete_revision(self, rev):
        self.request("DELETE", "/revision/%s" % urllib.parse.quote(rev, safe=""))
