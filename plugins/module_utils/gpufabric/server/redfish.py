"""A minimal Redfish client (stdlib urllib): enough to read firmware inventory and BIOS, stage BIOS settings,
start updates (SimpleUpdate or a multipart push), follow jobs and reset the system. Basic authentication; TLS
verification on unless turned off. Errors carry the BMC's own message (its @Message.ExtendedInfo), on one line."""
import base64
import json
import os
import ssl
import urllib.error
import urllib.request
import uuid


class RedfishError(Exception):
    pass


def bmc_message(text):
    """The BMC's explanation in an error body: the first @Message.ExtendedInfo Message (and MessageId), else the
    error message, else the raw text; one line."""
    try:
        body = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    err = body.get("error", body) if isinstance(body, dict) else {}
    info = err.get("@Message.ExtendedInfo") or body.get("@Message.ExtendedInfo") or []
    if info and info[0].get("Message"):
        ident = info[0].get("MessageId")
        return "%s%s" % (info[0]["Message"], " (%s)" % ident if ident else "")
    return " ".join(str(err.get("message") or text).split())[:300]


class Redfish:
    def __init__(self, baseuri, username, password, validate_certs=True, timeout=30):
        if "://" not in baseuri:
            baseuri = "https://" + baseuri
        self.root = baseuri.rstrip("/")
        token = base64.b64encode(("%s:%s" % (username, password)).encode()).decode()
        self.headers = {"Authorization": "Basic " + token, "Content-Type": "application/json",
                        "Accept": "application/json", "OData-Version": "4.0"}
        # One opener per BMC with its own TLS context (BMCs usually ship self-signed certificates).
        context = ssl.create_default_context()
        if not validate_certs:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        self.opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=context))
        self.timeout = timeout

    def request(self, method, path, body=None, data=None, content_type=None):
        url = path if path.startswith("http") else self.root + path
        if body is not None:
            data = json.dumps(body).encode()
        headers = dict(self.headers, **({"Content-Type": content_type} if content_type else {}))
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self.opener.open(req, timeout=self.timeout) as resp:
                text = resp.read().decode() or "{}"
                return json.loads(text), dict(resp.headers)
        except urllib.error.HTTPError as exc:
            detail = bmc_message(exc.read().decode(errors="replace"))
            raise RedfishError("%s %s: HTTP %d: %s" % (method, path, exc.code, detail))
        except (urllib.error.URLError, OSError) as exc:
            raise RedfishError("%s %s: %s" % (method, url, getattr(exc, "reason", exc)))

    def get(self, path):
        return self.request("GET", path)[0]

    def system_path(self, system_id=None):
        members = self.get("/redfish/v1/Systems").get("Members", [])
        paths = [m["@odata.id"] for m in members]
        if system_id:
            paths = [p for p in paths if p.rstrip("/").rsplit("/", 1)[-1] == system_id]
        if len(paths) != 1:
            raise RedfishError("expected one system%s, the BMC lists %d: set system_id" % (
                " named %r" % system_id if system_id else "", len(paths)))
        return paths[0]

    def firmware_inventory(self):
        """Members of /redfish/v1/UpdateService/FirmwareInventory (SoftwareInventory resources)."""
        service = self.get("/redfish/v1/UpdateService")
        collection = service.get("FirmwareInventory", {}).get("@odata.id")
        if not collection:
            raise RedfishError("the BMC's UpdateService has no FirmwareInventory")
        return [self.get(m["@odata.id"]) for m in self.get(collection).get("Members", [])]

    def bios(self, system):
        """(current Attributes, pending Attributes, settings URI)."""
        bios_path = self.get(system).get("Bios", {}).get("@odata.id")
        if not bios_path:
            raise RedfishError("%s has no Bios resource" % system)
        bios = self.get(bios_path)
        settings = bios.get("@Redfish.Settings", {}).get("SettingsObject", {}).get("@odata.id")
        pending = self.get(settings).get("Attributes", {}) if settings else {}
        return bios.get("Attributes", {}), pending, settings or bios_path

    def simple_update(self, image_uri, apply_time="OnReset"):
        """Start SimpleUpdate the way iDRAC accepts it: ImageURI with TransferProtocol and an apply time, never
        Targets (iDRAC picks the component from the package). Returns the task or job URI."""
        service = self.get("/redfish/v1/UpdateService")
        target = service.get("Actions", {}).get("#UpdateService.SimpleUpdate", {}).get("target")
        if not target:
            raise RedfishError("the BMC's UpdateService has no SimpleUpdate action")
        body = {"ImageURI": image_uri, "TransferProtocol": image_uri.split("://")[0].upper(),
                "@Redfish.OperationApplyTime": apply_time}
        return self.request("POST", target, body)[1].get("Location")

    def multipart_push(self, path, apply_time="OnReset"):
        """Upload a local image to MultipartHttpPushUri (UpdateParameters + UpdateFile). Returns the task URI."""
        push = self.get("/redfish/v1/UpdateService").get("MultipartHttpPushUri")
        if not push:
            raise RedfishError("the BMC's UpdateService has no MultipartHttpPushUri: give an image URI instead")
        boundary = uuid.uuid4().hex
        params = json.dumps({"Targets": [], "@Redfish.OperationApplyTime": apply_time}).encode()
        with open(path, "rb") as f:
            image = f.read()
        name = os.path.basename(path).encode()
        data = b"".join([
            b"--%s\r\nContent-Disposition: form-data; name=\"UpdateParameters\"\r\n"
            b"Content-Type: application/json\r\n\r\n%s\r\n" % (boundary.encode(), params),
            b"--%s\r\nContent-Disposition: form-data; name=\"UpdateFile\"; filename=\"%s\"\r\n"
            b"Content-Type: application/octet-stream\r\n\r\n%s\r\n" % (boundary.encode(), name, image),
            b"--%s--\r\n" % boundary.encode()])
        return self.request("POST", push, data=data,
                            content_type="multipart/form-data; boundary=%s" % boundary)[1].get("Location")

    def reset(self, system, reset_type="GracefulRestart"):
        action = self.get(system).get("Actions", {}).get("#ComputerSystem.Reset", {}).get("target")
        if not action:
            raise RedfishError("%s has no Reset action" % system)
        self.request("POST", action, {"ResetType": reset_type})
