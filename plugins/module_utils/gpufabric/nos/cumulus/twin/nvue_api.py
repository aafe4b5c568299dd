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
without ``ays_yes`` it ends ``ays_fail``. The CLI's ``nv config apply --confirm`` timer has no API form
in NVIDIA's NVUE API chapter, so the stand-in offers none.

NOS home code: it imports the standard library and this home's NVUE merge and schema gate only.
"""
import base64
import copy
import datetime
import hmac
import http.server
import json
import os
import ssl
import tempfile
import threading
import time
import urllib.parse

from ..nvue_client import merge

API_ROOT = "/nvue_v1"
DEFAULT_PORT = 8765
DEFAULT_RELEASE = "5.14"
NAMED_REVISIONS = ("applied", "startup", "empty")
# The top-level objects of the NVUE object model (user guide, "NVUE API", Supported Objects), the
# fallback check when NVIDIA's models (the nvueschema package, behind this home's schema gate) are absent.
ROOT_OBJECTS = ("acl", "bridge", "evpn", "interface", "maintenance", "mlag", "nve", "platform", "qos", "router",
                "service", "system", "vrf")


class ApplyError(Exception):
    """Raised by an applier: the switch could not take the configuration; it keeps the previous one."""


def _subtree(tree, keys):
    for key in keys:
        if not isinstance(tree, dict) or key not in tree:
            return None
        tree = tree[key]
    return tree


def _nest(keys, value):
    for key in reversed(keys):
        value = {key: value}
    return value


def schema_validator(release=DEFAULT_RELEASE):
    """The check of a candidate configuration: this home's schema gate (NVIDIA's NVUE object model of
    ``release`` through nvueschema, strict), else the object model's top level only."""
    try:
        from .. import schema
    except ImportError:
        schema = None
    if schema is not None and release in schema.releases():
        def check(hostname, config):
            return schema.problems([{"set": config}], hostname, release, source="revision")
        check("boot", {})  # the models load now, as a switch loads its object model when it boots, not mid-request
        return check

    def top_level(hostname, config):
        return ["%s: revision set.%s: not an object of the NVUE model (it has %s)" % (hostname, key, ", ".join(ROOT_OBJECTS))
                for key in sorted(config) if key not in ROOT_OBJECTS]
    return top_level


def dependency_issues(config):
    """What NVUE refuses at apply although every field is valid, as the guide's examples show it."""
    issues = []
    bgp = _subtree(config, ("router", "bgp")) or {}
    if bgp.get("enable") == "on" and not bgp.get("router-id"):
        vrfs = config.get("vrf") or {}
        missing = [name for name, vrf in sorted(vrfs.items())
                   if (_subtree(vrf, ("router", "bgp")) or {}).get("enable") == "on"
                   and not (_subtree(vrf, ("router", "bgp")) or {}).get("router-id")]
        if missing or not vrfs:
            issues.append(("router.bgp.enable", "BGP requires router-id to be set globally or in the VRF.\n"))
    return issues


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


class NvueSwitch:
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

    def apply(self, rev_id, body):
        with self.lock:
            revision = self.revisions.get(rev_id)
            if revision is None:
                return 404, problem(404, "revision %s does not exist" % rev_id)
            bad = _revision_body_problem(body, ("apply",))
            if bad:
                return 400, problem(400, bad)
            if revision.state != "pending":
                return 400, problem(400, "revision %s is %s: only a pending revision can be applied" % (rev_id, revision.state))
            revision.state = "apply"
            answer = ((body.get("auto-prompt") or {}).get("ays"))
            threading.Thread(target=self._apply, args=(revision, answer), daemon=True).start()
            return 200, revision.view()

    def _apply(self, revision, answer):
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
                self.applied = config
                self.applied_id = revision.id
                self.applies += 1
                revision.state = "applied"
                revision.progress = ""

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
            if revision.state in ("apply", "applied"):
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


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "nginx"

    def log_message(self, *args):  # the tests read results, not access logs
        pass

    def _send(self, status, body):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="NVUE"')
        if data:
            self.send_header("Content-Type", "application/problem+json" if status >= 400 else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self):
        header = self.headers.get("Authorization", "")
        if header.startswith("Basic "):
            try:
                user, _sep, password = base64.b64decode(header[6:]).decode().partition(":")
            except ValueError:
                return False
            return self.server.switch.authenticate(user, password)
        return False

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None, None
        try:
            return json.loads(raw), None
        except ValueError as exc:
            return None, "the body is not JSON: %s" % exc

    def _route(self, method):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        if not (url.path == API_ROOT or url.path.startswith(API_ROOT + "/")):
            return self._send(404, problem(404, "%s is not under %s" % (url.path, API_ROOT)))
        body, bad = self._body()
        if not self._authorized():
            return self._send(401, problem(401, "the user name or password is not correct"))
        if bad:
            return self._send(400, problem(400, bad))
        keys = [urllib.parse.unquote(k) for k in url.path[len(API_ROOT):].split("/") if k]
        switch = self.server.switch
        if keys[:1] == ["revision"]:
            return self._send(*self._revision(method, keys[1:], body))
        if method == "GET":
            rev = query.get("rev", "applied")
            config = switch.config_of(rev)
            if config is None:
                return self._send(404, problem(404, "revision %s does not exist" % rev))
            found = _subtree(config, keys)
            if found is None and keys:
                return self._send(404, problem(404, "%s is not in revision %s" % (_dotted(keys), rev)))
            return self._send(200, found if keys else config)
        if method in ("PATCH", "DELETE"):
            rev = query.get("rev")
            if not rev or rev in NAMED_REVISIONS:
                return self._send(400, problem(400, "rev=<id> of a pending revision is required to change the configuration"))
            return self._send(*switch.change(rev, keys, body if method == "PATCH" else None))
        return self._send(405, problem(405, "%s is not allowed on %s" % (method, url.path)))

    def _revision(self, method, rest, body):
        switch = self.server.switch
        if not rest:
            if method == "POST":
                revision = switch.create_revision()
                return 200, {revision.id: revision.view()}
            if method == "GET":
                with switch.lock:
                    return 200, {r.id: r.view() for r in switch.revisions.values()}
            return 405, problem(405, "%s is not allowed on %s/revision" % (method, API_ROOT))
        rev_id = rest[0]
        if method == "GET":
            with switch.lock:
                revision = switch.revisions.get(rev_id)
                return (200, revision.view()) if revision else (404, problem(404, "revision %s does not exist" % rev_id))
        if method == "PATCH":
            return switch.save(body) if rev_id == "applied" else switch.apply(rev_id, body)
        if method == "DELETE":
            return switch.delete_revision(rev_id)
        return 405, problem(405, "%s is not allowed on a revision" % method)

    def do_GET(self):
        self._route("GET")

    def do_POST(self):
        self._route("POST")

    def do_PATCH(self):
        self._route("PATCH")

    def do_DELETE(self):
        self._route("DELETE")


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def self_signed_certificate(directory, names=("localhost",), addresses=("127.0.0.1",)):
    """A certificate and key as a Cumulus switch makes at first boot (self-signed), valid for ``names`` and
    ``addresses``; returns (certificate path, key path). The certificate is its own CA bundle for clients."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])])
    now = datetime.datetime.now(datetime.timezone.utc)
    alt = [x509.DNSName(n) for n in names] + [x509.IPAddress(ipaddress.ip_address(a)) for a in addresses]
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path = os.path.join(directory, "nvue-api.pem")
    key_path = os.path.join(directory, "nvue-api.key")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return cert_path, key_path


class NvueApiServer:
    """The API of one NvueSwitch over HTTPS, in a thread: ``start()``, ``url``, ``stop()``."""

    def __init__(self, switch, certfile, keyfile, host="127.0.0.1", port=0):
        self.switch = switch
        self.httpd = _Server((host, port), _Handler)
        self.httpd.switch = switch
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(certfile, keyfile)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.thread = None

    @property
    def port(self):
        return self.httpd.server_address[1]

    @property
    def url(self):
        return "https://%s:%d%s" % (self.httpd.server_address[0], self.port, API_ROOT)

    def start(self):
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.thread:
            self.thread.join(timeout=5)


def main(argv=None):
    """Run one switch's stand-in until killed: the integration tests start it as a process."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hostname", required=True)
    parser.add_argument("--user", default="cumulus")
    parser.add_argument("--password-file", required=True, help="a file holding the user's password")
    parser.add_argument("--certfile", required=True)
    parser.add_argument("--keyfile", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--startup", help="the switch's startup.yaml (read at start, written by a save)")
    parser.add_argument("--release", default=DEFAULT_RELEASE)
    parser.add_argument("--fail-apply-when", help="refuse an apply whose configuration holds this JSON path "
                        "(dotted), as a switch that cannot take it: apply_fail, the previous revision stays")
    parser.add_argument("--port-file", help="write the listening port here once serving")
    args = parser.parse_args(argv)
    with open(args.password_file, encoding="utf-8") as f:
        password = f.read().strip()
    applier = None
    if args.fail_apply_when:
        keys = args.fail_apply_when.split(".")

        def applier(config, previous):
            if _subtree(config, keys) is not None:
                raise ApplyError("%s: the switch could not apply %s" % (args.hostname, args.fail_apply_when))
    switch = NvueSwitch(args.hostname, {args.user: password}, release=args.release, applier=applier,
                        startup_path=args.startup)
    server = NvueApiServer(switch, args.certfile, args.keyfile, host=args.host, port=args.port).start()
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(server.port))
        os.replace(tmp, args.port_file)
    try:
        server.thread.join()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
