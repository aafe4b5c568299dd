"""eAPI over HTTPS for the twin's EOS switches: ``POST /command-api`` with a JSON-RPC 2.0 ``runCmds`` request and HTTP
basic authentication (Arista's eAPI documentation; what pyeapi's https transport sends), each switch on a port of
its own on 127.0.0.1, its certificate issued by the twin's CA (``make_ca``/``issue``), so a client checks it."""
import base64
import datetime
import hmac
import http.server
import ipaddress
import json
import os
import socketserver
import ssl
import threading

from .eapi import dumps


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "nginx"

    def log_message(self, *args):
        pass

    def _send(self, status, body, content="application/json"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content)
        self.send_header("Content-Length", str(len(data)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="eAPI"')
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self):
        header = self.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        try:
            user, _sep, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return False
        return user == self.server.user and hmac.compare_digest(password, self.server.password)

    def do_GET(self):
        self._send(404, "<html><body>Not Found</body></html>", "text/html")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.split("?")[0] != "/command-api":
            return self._send(404, "<html><body>Not Found</body></html>", "text/html")
        if not self._authorized():
            return self._send(401, "Unable to authenticate user: Bad username/password combination", "text/plain")
        self._send(200, dumps(answer(self.server.switch, raw)))


def answer(switch, raw):
    """The JSON-RPC response object to the request body ``raw``."""
    try:
        request = json.loads(raw)
    except ValueError:
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    rid = request.get("id") if isinstance(request, dict) else None
    if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or not isinstance(request.get("params"), dict):
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32600, "message": "Invalid request"}}
    if request.get("method") != "runCmds":
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found: %s"
                                                       % request.get("method")}}
    params = request["params"]
    cmds, fmt = params.get("cmds"), params.get("format", "json")
    if not isinstance(cmds, list) or fmt not in ("json", "text") or params.get("version", 1) not in (1, "latest"):
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Invalid params"}}
    results, error = switch.run_cmds(cmds, fmt)
    if error:
        return {"jsonrpc": "2.0", "id": rid, "error": error}
    return {"jsonrpc": "2.0", "id": rid, "result": results}


class EapiServer:
    """One switch's eAPI in a thread: ``start()``, ``port``, ``stop()``."""

    def __init__(self, switch, certfile, keyfile, user, password, host="127.0.0.1", port=0):
        self.httpd = _Server((host, port), _Handler)
        self.httpd.switch = switch
        self.httpd.user = user
        self.httpd.password = password
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(certfile, keyfile)
        self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _save(cert_path, key_path, cert, key):
    """Write ``key`` (0600) and ``cert`` as PEM to their paths; returns the paths."""
    from cryptography.hazmat.primitives import serialization
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def _builder(subject, issuer, key):
    """A certificate of ``subject`` for the public half of ``key``: a random serial, valid from five minutes ago
    for 30 days."""
    from cryptography import x509

    now = datetime.datetime.now(datetime.timezone.utc)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=30)))


def make_ca(directory):
    """The twin's CA (``ca.pem``, ``ca.key`` in ``directory``), made once; returns their paths."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    cert_path, key_path = os.path.join(directory, "ca.pem"), os.path.join(directory, "ca.key")
    if os.path.exists(cert_path) and os.path.exists(key_path):
        return cert_path, key_path
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "gpufabric twin eAPI CA")])
    cert = (_builder(name, name, key)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return _save(cert_path, key_path, cert, key)


def issue(ca_dir, directory, host):
    """A certificate for the switch ``host`` (its name, localhost, 127.0.0.1) issued by the twin's CA, kept in
    ``directory`` (``eapi.pem``, ``eapi.key``); returns their paths."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    cert_path, key_path = os.path.join(directory, "eapi.pem"), os.path.join(directory, "eapi.key")
    if os.path.exists(cert_path) and os.path.exists(key_path):
        return cert_path, key_path
    ca_cert_path, ca_key_path = make_ca(ca_dir)
    with open(ca_cert_path, "rb") as f:
        ca_cert = x509.load_pem_x509_certificate(f.read())
    with open(ca_key_path, "rb") as f:
        ca_key = serialization.load_pem_private_key(f.read(), None)
    key = ec.generate_private_key(ec.SECP256R1())
    alt = [x509.DNSName(host), x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    cert = (_builder(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]), ca_cert.subject, key)
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return _save(cert_path, key_path, cert, key)
