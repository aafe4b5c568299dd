"""An iDRAC9-like Redfish service for one XE9680 (stdlib HTTPS server), as strict as an iDRAC9 (firmware 6.x/7.x)
where the role depends on it. Behaviour written from Dell's iDRAC Redfish API guide, the DMTF Redfish schemas and
Dell's public answers (sources in docs/gpu-server.md):

- BIOS: PATCH of /Bios/Settings only stages values (pending); with @Redfish.SettingsApplyTime OnReset it also
  schedules a BIOSConfiguration job; POST .../Jobs {"TargetSettingsURI"} schedules one for staged values. While
  that job waits, a second PATCH or job is refused with iDRAC's SYS011 message. The job runs at the next reset.
- Lifecycle Controller job queue /redfish/v1/Managers/iDRAC.Embedded.1/Jobs: JID_ ids, JobState New ->
  Downloading -> Scheduled (waits for a host reboot) -> Running -> Completed, or Failed with a Message.
- Firmware: SimpleUpdate with ImageURI (+ TransferProtocol, @Redfish.OperationApplyTime); "Targets" is refused.
  MultipartHttpPushUri accepts multipart/form-data (UpdateParameters + UpdateFile, Targets empty). The target
  component and the version come from the package, here from its Dell-style file name (BIOS_..._1.7.5.EXE,
  Network_Firmware_..._28.39.10.02.EXE, iDRAC-with-Lifecycle-Controller_..._7.10.30.00_A00.EXE); a name containing
  "corrupt" fails the job as a package with a bad signature does. Host components change version only at the
  reset that runs their job; iDRAC's own firmware completes without one.
- FirmwareInventory: Installed-<ComponentID>-<version>[__FQDD] and, for devices, Current- entries; four-part
  ConnectX-7 versions; NIC names "NVIDIA ConnectX-7 ... - MAC".

Usage: python idrac9_double.py PORT CERTFILE KEYFILE STATEFILE   (user root, password calvin)
Each job advances one step per GET, so clients must poll; STATEFILE gets the state after every change.
"""
import base64
import email.parser
import email.policy
import http.server
import itertools
import json
import re
import ssl
import sys

SYSTEM = "/redfish/v1/Systems/System.Embedded.1"
MANAGER = "/redfish/v1/Managers/iDRAC.Embedded.1"
JOBS = MANAGER + "/Jobs"
INVENTORY = "/redfish/v1/UpdateService/FirmwareInventory"
AUTH = "Basic " + base64.b64encode(b"root:calvin").decode()
SYS011 = ("IDRAC.2.8.SYS011", "Pending configuration values are already committed, unable to perform another set "
                              "operation.")
# A subset of the XE9680 BIOS registry: attribute -> allowed values (None: any string).
BIOS_REGISTRY = {"SysProfile": ["PerfPerWattOptimizedDapc", "PerfPerWattOptimizedOs", "PerfOptimized", "Custom"],
                 "LogicalProc": ["Enabled", "Disabled"], "ProcVirtualization": ["Enabled", "Disabled"],
                 "SriovGlobalEnable": ["Enabled", "Disabled"], "MmioAbove4Gb": ["Enabled", "Disabled"],
                 "ProcCStates": ["Enabled", "Disabled"], "BootMode": ["Uefi", "Bios"], "NodeInterleave": ["Enabled", "Disabled"]}
BIOS_DEFAULTS = {"SysProfile": "PerfPerWattOptimizedDapc", "LogicalProc": "Enabled", "ProcVirtualization": "Enabled",
                 "SriovGlobalEnable": "Disabled", "MmioAbove4Gb": "Enabled", "ProcCStates": "Enabled",
                 "BootMode": "Uefi", "NodeInterleave": "Disabled"}
NIC_MACS = ["C4:70:BD:5A:00:%02X" % (0x10 + i) for i in range(8)]


def components():
    """kind -> [{cid, fqdd, name, version}]: one BIOS, one iDRAC, eight ConnectX-7 rail NICs."""
    return {"bios": [{"cid": "159", "fqdd": None, "name": "BIOS", "version": "1.6.4"}],
            "idrac": [{"cid": "25227", "fqdd": None, "name": "Integrated Dell Remote Access Controller",
                       "version": "7.00.00.00"}],
            "nic": [{"cid": "105126", "fqdd": "NIC.Slot.%d-1-1" % (31 + i), "version": "28.36.10.10",
                     "name": "NVIDIA ConnectX-7 Single Port NDR OSFP Adapter - %s" % mac} for i, mac in enumerate(NIC_MACS)]}


def package(name):
    """(kind, version) a Dell Update Package name stands for, or None."""
    version = re.findall(r"_(\d+(?:\.\d+)+)(?:_A\d+)?\.EXE$", name, re.I)
    kind = ("bios" if name.upper().startswith("BIOS") else "nic" if name.startswith("Network_Firmware")
            else "idrac" if name.startswith("iDRAC") else None)
    return (kind, version[0]) if kind and version else None


class State:
    def __init__(self):
        self.bios, self.pending = dict(BIOS_DEFAULTS), {}
        self.components = components()
        self.previous = {}
        self.jobs = {}
        self.power = "On"
        self.resets = 0
        self.ids = itertools.count(758240000001)

    def job(self, job_type, name, kind=None, version=None, state="Scheduled", fail=False):
        jid = "JID_%d" % next(self.ids)
        self.jobs[jid] = {"@odata.id": "%s/%s" % (JOBS, jid), "Id": jid, "Name": name, "JobType": job_type,
                          "JobState": state, "PercentComplete": 0, "Message": "Task successfully scheduled.",
                          "MessageId": "JCP001", "_kind": kind, "_version": version, "_fail": fail}
        return jid

    def pending_bios_job(self):
        return [j for j in self.jobs.values() if j["JobType"] == "BIOSConfiguration" and j["JobState"] == "Scheduled"]

    def advance(self, job):
        """One step of a firmware job per look: download, then wait for the reset (host parts) or finish (iDRAC)."""
        if job["JobType"] != "FirmwareUpdate" or job["JobState"] != "Downloading":
            return
        if job["_fail"]:
            job.update(JobState="Failed", Message="Unable to verify Update Package signature.", MessageId="RED007",
                       PercentComplete=100)
        elif job["_kind"] == "idrac":
            self.install(job)
        else:
            job.update(JobState="Scheduled", PercentComplete=0,
                       Message="Task successfully scheduled.", MessageId="JCP001")

    def install(self, job):
        for comp in self.components[job["_kind"]]:
            self.previous[comp["name"]] = dict(comp)
            comp["version"] = job["_version"]
        job.update(JobState="Completed", PercentComplete=100, Message="Job completed successfully.", MessageId="PR19")

    def reset(self):
        """A host reboot: every scheduled job runs, then the host is back on."""
        self.resets += 1
        for job in self.jobs.values():
            if job["JobState"] != "Scheduled":
                continue
            if job["JobType"] == "BIOSConfiguration":
                self.bios.update(self.pending)
                self.pending = {}
                job.update(JobState="Completed", PercentComplete=100, Message="Job completed successfully.",
                           MessageId="PR19")
            else:
                self.install(job)
        self.power = "On"

    def inventory(self):
        items = []
        for kind, comps in self.components.items():
            for c in comps:
                suffix = "__" + c["fqdd"] if c["fqdd"] else ""
                items.append(("Installed-%s-%s%s" % (c["cid"], c["version"], suffix), c, True))
                if c["fqdd"]:
                    items.append(("Current-%s-%s%s" % (c["cid"], c["version"], suffix), c, False))
                old = self.previous.get(c["name"])
                if old:
                    items.append(("Previous-%s-%s%s" % (c["cid"], old["version"], suffix), old, False))
        return items

    def dump(self):
        return {"bios": self.bios, "pending": self.pending, "power": self.power, "resets": self.resets,
                "versions": {c["name"]: c["version"] for comps in self.components.values() for c in comps},
                "jobs": [{k: v for k, v in j.items() if not k.startswith("_")} for j in self.jobs.values()]}


def error(status, message_id, message, resolution="Correct the request and resubmit."):
    return status, {"error": {"code": "Base.1.12.GeneralError", "message": "A general error has occurred. See "
                              "ExtendedInfo for more information", "@Message.ExtendedInfo": [
                                  {"MessageId": message_id, "Message": message, "Resolution": resolution,
                                   "Severity": "Warning"}]}}, {}


class Handler(http.server.BaseHTTPRequestHandler):
    state = None
    state_file = None
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, status, body=None, headers=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json;odata.metadata=minimal;charset=utf-8")
        self.send_header("OData-Version", "4.0")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self, method):
        if self.headers.get("Authorization") != AUTH:
            return self._send(401, {"error": {"message": "Unauthorized"}})
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0].rstrip("/")
        try:
            status, body, headers = ROUTES(self, method, path, raw)
        except (ValueError, KeyError) as exc:
            status, body, headers = error(400, "Base.1.12.MalformedJSON", "The request body submitted was malformed "
                                          "JSON and could not be parsed by the receiving service: %s" % exc)
        if method != "GET" and self.state_file:
            with open(self.state_file, "w", encoding="utf-8") as f:
                json.dump(self.state.dump(), f)
        self._send(status, body, headers)

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_PATCH(self):
        self._handle("PATCH")

    def do_DELETE(self):
        self._handle("DELETE")


def _collection(path, members):
    return {"@odata.id": path, "Members": [{"@odata.id": m} for m in members], "Members@odata.count": len(members)}


def _job_view(job, as_task=False):
    body = {k: v for k, v in job.items() if not k.startswith("_")}
    if as_task:
        task_state = {"Completed": "Completed", "Failed": "Exception", "Scheduled": "Pending"}.get(job["JobState"], "Running")
        body = {"@odata.id": "/redfish/v1/TaskService/Tasks/" + job["Id"], "Id": job["Id"], "Name": job["Name"],
                "TaskState": task_state, "PercentComplete": job["PercentComplete"],
                "Messages": [{"Message": job["Message"], "MessageId": job["MessageId"]}],
                "Oem": {"Dell": body}}
    return body


def _bios_patch(state, body):
    attrs = body.get("Attributes")
    if not isinstance(attrs, dict):
        return error(400, "Base.1.12.PropertyMissing", "The property Attributes is a required property and must be "
                     "included in the request.")
    if state.pending_bios_job():
        return error(400, *SYS011)
    for name, value in attrs.items():
        if name not in BIOS_REGISTRY:
            return error(400, "Base.1.12.PropertyUnknown", "The property %s is not in the list of valid properties "
                         "for the resource." % name)
        if BIOS_REGISTRY[name] and value not in BIOS_REGISTRY[name]:
            return error(400, "Base.1.12.PropertyValueNotInList", "The value %s for the property %s is not in the "
                         "list of acceptable values." % (value, name))
    state.pending.update(attrs)
    apply_time = (body.get("@Redfish.SettingsApplyTime") or {}).get("ApplyTime")
    if apply_time is None:
        return 200, {"@Message.ExtendedInfo": [{"MessageId": "SYS413", "Message": "The operation successfully "
                                                "completed."}]}, {}
    if apply_time not in ("OnReset", "Immediate"):
        return error(400, "Base.1.12.PropertyValueNotInList", "The value %s for the property ApplyTime is not in the "
                     "list of acceptable values." % apply_time)
    jid = state.job("BIOSConfiguration", "Configure: BIOS")
    if apply_time == "Immediate":
        state.reset()
    return 202, None, {"Location": "%s/%s" % (JOBS, jid)}


def _create_job(state, body):
    if body.get("TargetSettingsURI") != SYSTEM + "/Bios/Settings":
        return error(400, "Base.1.12.PropertyValueNotInList", "The value %s for the property TargetSettingsURI is "
                     "not in the list of acceptable values." % body.get("TargetSettingsURI"))
    if state.pending_bios_job():
        return error(400, *SYS011)
    if not state.pending:
        return error(400, "IDRAC.2.8.SYS019", "Unable to create a configuration job because no pending changes are "
                     "present.")
    jid = state.job("BIOSConfiguration", "Configure: BIOS")
    return 200, None, {"Location": "%s/%s" % (JOBS, jid)}


def _start_update(state, image_name):
    found = package(image_name)
    if not found:
        return error(400, "IDRAC.2.8.RED014", "Unable to update firmware: %s is not a valid Update Package." % image_name)
    kind, version = found
    name = {"bios": "BIOS", "nic": "Network", "idrac": "iDRAC"}[kind]
    jid = state.job("FirmwareUpdate", "Firmware Update: " + name, kind, version, state="Downloading",
                    fail="corrupt" in image_name.lower())
    return 202, None, {"Location": "/redfish/v1/TaskService/Tasks/" + jid}


def _simple_update(state, body):
    if "Targets" in body:
        return error(400, "Base.1.12.ActionParameterNotSupported", "The parameter Targets for the action "
                     "UpdateService.SimpleUpdate is not supported on the target resource.")
    uri = body.get("ImageURI")
    if not uri:
        return error(400, "Base.1.12.ActionParameterMissing", "The action UpdateService.SimpleUpdate requires the "
                     "parameter ImageURI to be present in the request body.")
    protocol = body.get("TransferProtocol") or uri.split("://")[0].upper()
    if protocol not in ("HTTP", "HTTPS", "NFS", "CIFS", "TFTP", "FTP", "SCP"):
        return error(400, "Base.1.12.ActionParameterValueNotInList", "The value %s for the parameter "
                     "TransferProtocol is not in the list of acceptable values." % protocol)
    return _start_update(state, uri.rsplit("/", 1)[-1])


def _multipart(state, handler, raw):
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + handler.headers.get("Content-Type", "").encode() + b"\r\n\r\n" + raw)
    if not message.is_multipart():
        return error(400, "Base.1.12.UnsupportedMediaType", "The request specified a Content-Type header that is "
                     "not supported.")
    parts = {p.get_param("name", header="content-disposition"): p for p in message.iter_parts()}
    if "UpdateFile" not in parts:
        return error(400, "Base.1.12.ActionParameterMissing", "The action MultipartUpload requires the parameter "
                     "UpdateFile to be present in the request body.")
    params = json.loads(parts["UpdateParameters"].get_content()) if "UpdateParameters" in parts else {}
    if params.get("Targets"):
        return error(400, "Base.1.12.ActionParameterNotSupported", "The parameter Targets for the action "
                     "MultipartUpload is not supported on the target resource.")
    return _start_update(state, parts["UpdateFile"].get_filename() or "")


def ROUTES(handler, method, path, raw):  # pylint: disable=invalid-name
    state = handler.state
    body = json.loads(raw) if raw and method in ("POST", "PATCH") and not path.endswith("MultipartUpload") else {}
    if method == "GET":
        return _get(state, path)
    if method == "PATCH" and path == SYSTEM + "/Bios/Settings":
        return _bios_patch(state, body)
    if method == "POST" and path == SYSTEM + "/Actions/ComputerSystem.Reset":
        if body.get("ResetType") not in ("On", "ForceOff", "ForceRestart", "GracefulRestart", "GracefulShutdown",
                                         "PushPowerButton", "Nmi", "PowerCycle"):
            return error(400, "Base.1.12.ActionParameterValueNotInList", "The value %s for the parameter ResetType "
                         "is not in the list of acceptable values." % body.get("ResetType"))
        state.reset()
        return 204, None, {}
    if method == "POST" and path == JOBS:
        return _create_job(state, body)
    if method == "DELETE" and path.startswith(JOBS + "/"):
        job = state.jobs.pop(path.rsplit("/", 1)[-1], None)
        if job and job["JobType"] == "BIOSConfiguration" and job["JobState"] == "Scheduled":
            state.pending = {}
        if job is None:
            return error(404, "Base.1.12.ResourceMissingAtURI", "The resource at the URI %s was not found." % path)
        return 200, {}, {}
    if method == "POST" and path == "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate":
        return _simple_update(state, body)
    if method == "POST" and path == "/redfish/v1/UpdateService/MultipartUpload":
        return _multipart(state, handler, raw)
    return error(405, "Base.1.12.OperationNotAllowed", "The operation %s is not allowed on %s." % (method, path))


def _get(state, path):
    if path == "/redfish/v1":
        return 200, {"@odata.id": "/redfish/v1", "RedfishVersion": "1.17.0", "Systems": {"@odata.id": "/redfish/v1/Systems"},
                     "Managers": {"@odata.id": "/redfish/v1/Managers"},
                     "UpdateService": {"@odata.id": "/redfish/v1/UpdateService"},
                     "TaskService": {"@odata.id": "/redfish/v1/TaskService"},
                     "Vendor": "Dell", "Product": "Integrated Dell Remote Access Controller"}, {}
    if path == "/redfish/v1/Systems":
        return 200, _collection(path, [SYSTEM]), {}
    if path == "/redfish/v1/Managers":
        return 200, _collection(path, [MANAGER]), {}
    if path == SYSTEM:
        return 200, {"@odata.id": SYSTEM, "Id": "System.Embedded.1", "Model": "PowerEdge XE9680", "Manufacturer": "Dell Inc.",
                     "PowerState": state.power, "Bios": {"@odata.id": SYSTEM + "/Bios"},
                     "BiosVersion": state.components["bios"][0]["version"],
                     "Actions": {"#ComputerSystem.Reset": {
                         "target": SYSTEM + "/Actions/ComputerSystem.Reset",
                         "ResetType@Redfish.AllowableValues": ["On", "ForceOff", "ForceRestart", "GracefulRestart",
                                                               "GracefulShutdown", "PushPowerButton", "Nmi",
                                                               "PowerCycle"]}}}, {}
    if path == SYSTEM + "/Bios":
        return 200, {"@odata.id": path, "Id": "Bios", "Attributes": dict(state.bios),
                     "@Redfish.Settings": {"SettingsObject": {"@odata.id": path + "/Settings"},
                                           "SupportedApplyTimes": ["OnReset", "Immediate", "AtMaintenanceWindowStart",
                                                                   "InMaintenanceWindowOnReset"]}}, {}
    if path == SYSTEM + "/Bios/Settings":
        return 200, {"@odata.id": path, "Id": "Settings", "Attributes": dict(state.pending)}, {}
    if path == MANAGER:
        return 200, {"@odata.id": MANAGER, "Id": "iDRAC.Embedded.1", "Jobs": {"@odata.id": JOBS},
                     "FirmwareVersion": state.components["idrac"][0]["version"]}, {}
    if path == JOBS:
        return 200, _collection(path, ["%s/%s" % (JOBS, j) for j in state.jobs]), {}
    if path.startswith((JOBS + "/", "/redfish/v1/TaskService/Tasks/")):
        job = state.jobs.get(path.rsplit("/", 1)[-1])
        if job is None:
            return error(404, "Base.1.12.ResourceMissingAtURI", "The resource at the URI %s was not found." % path)
        view = _job_view(job, as_task=path.startswith("/redfish/v1/TaskService"))
        state.advance(job)
        return 200, view, {}
    if path == "/redfish/v1/UpdateService":
        return 200, {"@odata.id": path, "FirmwareInventory": {"@odata.id": INVENTORY},
                     "MultipartHttpPushUri": "/redfish/v1/UpdateService/MultipartUpload",
                     "Actions": {"#UpdateService.SimpleUpdate": {
                         "target": "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
                         "TransferProtocol@Redfish.AllowableValues": ["HTTP", "NFS", "CIFS", "TFTP", "HTTPS", "FTP", "SCP"]}}}, {}
    if path == INVENTORY:
        return 200, _collection(path, ["%s/%s" % (INVENTORY, i) for i, dummy, unused in state.inventory()]), {}
    if path.startswith(INVENTORY + "/"):
        for ident, comp, updateable in state.inventory():
            if ident == path.rsplit("/", 1)[-1]:
                return 200, {"@odata.id": path, "Id": ident, "Name": comp["name"], "Version": comp["version"],
                             "Updateable": updateable, "SoftwareId": comp["cid"]}, {}
    return error(404, "Base.1.12.ResourceMissingAtURI", "The resource at the URI %s was not found." % path)


def main(port, cert, key, state_file=None):
    Handler.state, Handler.state_file = State(), state_file
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
