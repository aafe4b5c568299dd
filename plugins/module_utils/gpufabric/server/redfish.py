"""A minimal Redfish client (stdlib urllib): enough to read firmware inventory and BIOS, PATCH BIOS settings,
start SimpleUpdate and reset the system. Basic authentication; TLS verification on unless turned off."""
import base64
import json
import ssl
import urllib.error
import urllib.request


class RedfishError(Exception):
    pass


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

    def request(self, method, path, body=None):
        url = path if path.startswith("http") else self.root + path
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, headers=self.headers, method=method)
        try:
            with self.opener.open(req, timeout=self.timeout) as resp:
                text = resp.read().decode() or "{}"
                return json.loads(text), dict(resp.headers)
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")[:300]
            raise RedfishError("%s %s: HTTP %d %s" % (method, path, exc.code, detail.replace("\n", " ")))
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

    def simple_update(self, image_uri, targets=None):
        target = self.get("/redfish/v1/UpdateService").get("Actions", {}).get(
            "#UpdateService.SimpleUpdate", {}).get("target")
        if not target:
            raise RedfishError("the BMC's UpdateService has no SimpleUpdate action")
        body = {"ImageURI": image_uri}
        if targets:
            body["Targets"] = targets
        return self.request("POST", target, body)[1].get("Location")

    def reset(self, system, reset_type="GracefulRestart"):
        action = self.get(system).get("Actions", {}).get("#ComputerSystem.Reset", {}).get("target")
        if not action:
            raise RedfishError("%s has no Reset action" % system)
        self.request("POST", action, {"ResetType": reset_type})
