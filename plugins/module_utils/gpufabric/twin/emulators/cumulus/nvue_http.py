"""The NVUE REST API stand-in over HTTPS (nvue_api.py is the switch behind it): the routes of NVIDIA's NVUE API
chapter under ``/nvue_v1`` with basic authentication, a self-signed certificate for the twin, and a process entry
point (``python -m gpufabric.twin.emulators.cumulus.nvue_http --hostname sw1 ...``) the integration tests start.

A switch whose management network no longer reaches it (``switch.reachable()`` false: the plane works it out from
the applied configuration) answers nothing on ``/nvue_v1``: the connection is closed unanswered, as a client sees a
switch it lost. ``/nvued`` is not NVIDIA's API: it stands for what the switch's own `nv` reaches nvued by (local to
the switch, so a lost management network does not cut it): an apply with ``confirm`` (seconds) and ``message``,
``{"confirm": "yes"|"no"}`` on a revision waiting for it, ``GET /nvued/history[/<rev>]`` and
``GET /nvued/confirm-status``, and under ``/nvued/api`` the API's own routes; the twin's `nv` alone uses it.
"""
import base64
import datetime
import http.server
import json
import os
import ssl
import threading
import urllib.parse

from .nvue_api import (API_ROOT, DEFAULT_PORT, DEFAULT_RELEASE, NAMED_REVISIONS, ApplyError, NvueSwitch, _dotted,
                       _subtree, problem)

NV_ROOT = "/nvued"


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
        body, bad = self._body()
        path, local = url.path, url.path.startswith(NV_ROOT + "/")
        if path.startswith(NV_ROOT + "/api"):
            path = API_ROOT + path[len(NV_ROOT + "/api"):]     # nv's own reads and changes, as the API's
        elif local:
            if not self._authorized():
                return self._send(401, problem(401, "the user name or password is not correct"))
            return self._send(*(_nv_route(self.server.switch, method, path[len(NV_ROOT) + 1:].split("/"), body)
                                if not bad else (400, problem(400, bad))))
        url = url._replace(path=path)
        if not local and not self.server.switch.reachable():
            self.close_connection = True    # a switch the management network no longer reaches: no answer
            return None
        if not (url.path == API_ROOT or url.path.startswith(API_ROOT + "/")):
            return self._send(404, problem(404, "%s is not under %s" % (url.path, API_ROOT)))
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
            if query.get("filled", "true").lower() != "false":
                # NVUE fills in the defaults of what is set unless asked filled=false (factory.py's table).
                from .factory import filled
                config = filled(config)
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


def _nv_route(switch, method, keys, body):
    """The switch's own `nv` to nvued (not NVIDIA's REST API): history, confirm status, apply with confirm, confirm."""
    if method == "GET" and keys[:1] == ["history"]:
        return 200, switch.history_view(keys[1] if len(keys) > 1 else None)
    if method == "GET" and keys == ["confirm-status"]:
        left = switch.confirm_status()
        return 200, {"confirm": None if left is None else switch.confirming[0].id, "seconds-left": left}
    if method == "PATCH" and len(keys) == 2 and keys[0] == "revision" and isinstance(body, dict):
        if set(body) == {"confirm"} and body["confirm"] in ("yes", "no"):
            return switch.confirm(keys[1], body["confirm"] == "yes")
        confirm, message = body.get("confirm"), body.get("message")
        plain = {k: v for k, v in body.items() if k not in ("confirm", "message")}
        if confirm is not None and (not isinstance(confirm, (int, float)) or confirm <= 0):
            return 400, problem(400, "confirm: seconds, more than 0")
        return switch.apply(keys[1], plain, method="CLI", confirm=confirm, message=message)
    return 404, problem(404, "%s %s/%s is not nv's" % (method, NV_ROOT, "/".join(keys)))


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
