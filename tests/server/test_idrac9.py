"""Firmware and BIOS stages of the gpu_server role against the iDRAC9 double (idrac9_double.py): the double's
strictness itself, then the role: check mode changes nothing; the first run stages one job per component and
reboots once; the rerun after that reboot changes nothing; a failed job fails naming the component and iDRAC's
message; bad input fails with one line."""
import base64
import json
import ssl
import sys
import urllib.error
import urllib.request

from server_helpers import play_stats, run_playbook

SYSTEM = "/redfish/v1/Systems/System.Embedded.1"
NIC_BASELINE = "28.39.1002"          # as NVIDIA prints it; iDRAC reports 28.39.10.02
BIOS = {"SysProfile": "PerfOptimized", "SriovGlobalEnable": "Enabled"}


def call(idrac, method, path, body=None):
    """(status, body) of one request as root/calvin."""
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
    req = urllib.request.Request("https://%s%s" % (idrac.address, path), method=method,
                                 data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": "Basic " + base64.b64encode(b"root:calvin").decode(),
                                          "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, context=context, timeout=5) as resp:
            text = resp.read().decode()
            return resp.status, json.loads(text) if text else {}, dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode()), dict(exc.headers)


def message(body):
    return body["error"]["@Message.ExtendedInfo"][0]["Message"]


def test_the_double_stages_bios_and_firmware_like_an_idrac9(idrac):
    # A PATCH without an apply time only stages: a reset applies nothing.
    assert call(idrac, "PATCH", SYSTEM + "/Bios/Settings", {"Attributes": {"SysProfile": "PerfOptimized"}})[0] == 200
    call(idrac, "POST", SYSTEM + "/Actions/ComputerSystem.Reset", {"ResetType": "ForceRestart"})
    assert call(idrac, "GET", SYSTEM + "/Bios")[1]["Attributes"]["SysProfile"] == "PerfPerWattOptimizedDapc"
    # With OnReset a job is scheduled; while it waits iDRAC refuses more values and a second job.
    status, dummy, headers = call(idrac, "PATCH", SYSTEM + "/Bios/Settings", {
        "Attributes": {"LogicalProc": "Disabled"}, "@Redfish.SettingsApplyTime": {"ApplyTime": "OnReset"}})
    assert status == 202 and "/Managers/iDRAC.Embedded.1/Jobs/JID_" in headers["Location"]
    status, body, dummy = call(idrac, "PATCH", SYSTEM + "/Bios/Settings", {"Attributes": {"ProcCStates": "Disabled"}})
    assert status == 400 and message(body) == ("Pending configuration values are already committed, unable to "
                                               "perform another set operation.")
    status, body, dummy = call(idrac, "POST", "/redfish/v1/Managers/iDRAC.Embedded.1/Jobs",
                               {"TargetSettingsURI": SYSTEM + "/Bios/Settings"})
    assert status == 400 and "already committed" in message(body)
    # SimpleUpdate: Targets refused; a host component waits for the reset to change its version.
    status, body, dummy = call(idrac, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
                               {"ImageURI": "https://repo/BIOS_0HXJ5_WN64_1.7.5.EXE", "Targets": [SYSTEM]})
    assert status == 400 and "Targets" in message(body)
    status, dummy, headers = call(idrac, "POST", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate",
                                  {"ImageURI": "https://repo/BIOS_0HXJ5_WN64_1.7.5.EXE", "TransferProtocol": "HTTPS"})
    task = headers["Location"]
    assert status == 202 and call(idrac, "GET", task)[1]["TaskState"] == "Running"
    assert call(idrac, "GET", task)[1]["Oem"]["Dell"]["JobState"] == "Scheduled"
    assert call(idrac, "GET", SYSTEM)[1]["BiosVersion"] == "1.6.4"
    call(idrac, "POST", SYSTEM + "/Actions/ComputerSystem.Reset", {"ResetType": "GracefulRestart"})
    assert call(idrac, "GET", SYSTEM)[1]["BiosVersion"] == "1.7.5"
    bios = call(idrac, "GET", SYSTEM + "/Bios")[1]["Attributes"]
    assert (bios["SysProfile"], bios["LogicalProc"]) == ("PerfOptimized", "Disabled")
    ids = [m["@odata.id"].rsplit("/", 1)[-1] for m in call(idrac, "GET", "/redfish/v1/UpdateService/FirmwareInventory")[1]["Members"]]
    assert "Installed-105126-28.36.10.10__NIC.Slot.31-1-1" in ids and "Current-105126-28.36.10.10__NIC.Slot.31-1-1" in ids
    assert "Previous-159-1.6.4" in ids


def role(idrac, tmp_path, tags, extra, check_mode=False, ok=True):
    vars_file = tmp_path / "vars.json"
    vars_file.write_text(json.dumps(dict({
        "ansible_python_interpreter": sys.executable, "gpu_server_bmc_address": idrac.address,
        "gpu_server_bmc_password": "calvin", "gpu_server_bmc_validate_certs": False,
        "gpu_server_bmc_poll_interval": 0}, **extra)))
    args = ["playbooks/gpu_server.yml", "--limit", "lab-gpu0001", "-c", "local", "--tags", tags, "-e", "@%s" % vars_file]
    return run_playbook(args + (["--check"] if check_mode else []), check=ok)


def task_results(res, name_part):
    plays = json.loads(res.stdout[res.stdout.index("{"):])["plays"]
    return [t["hosts"]["lab-gpu0001"] for p in plays for t in p["tasks"] if name_part in t["task"]["name"]]


def baseline(tmp_path, nic_image="Network_Firmware_RN0DX_WN64_28.39.10.02.EXE"):
    image = tmp_path / nic_image
    image.write_bytes(b"MZ" + b"\0" * 4096)     # a Dell Update Package is a Windows executable
    return {"gpu_server_firmware_baseline": {"BIOS": "1.7.5", "NVIDIA ConnectX-7": NIC_BASELINE,
                                             "Integrated Dell Remote Access Controller": "7.00.00.00"},
            "gpu_server_firmware_images": {"BIOS": "https://repo.example.com/BIOS_0HXJ5_WN64_1.7.5.EXE",
                                           "NVIDIA ConnectX-7": str(image)},
            "gpu_server_bios_attributes": BIOS, "gpu_server_reboot": True}


def test_check_run_rerun(idrac, tmp_path):
    extra = baseline(tmp_path)
    res = role(idrac, tmp_path, "firmware,bios", extra, check_mode=True)
    fw = task_results(res, "stage one update per component")[0]
    assert fw["changed"] and len(fw["changes"]) == 9 and fw["jobs"] == []
    assert {c["wanted"] for c in fw["changes"] if c["component"] == "NVIDIA ConnectX-7"} == {"28.39.10.02"}
    state = idrac.state()
    assert state == {} or (state["jobs"] == [] and state["resets"] == 0)

    res = role(idrac, tmp_path, "firmware,bios", extra)
    state = idrac.state()
    assert state["resets"] == 1
    jobs = sorted((j["Name"], j["JobState"]) for j in state["jobs"])
    assert jobs == [("Configure: BIOS", "Completed"), ("Firmware Update: BIOS", "Completed"),
                    ("Firmware Update: Network", "Completed")]
    assert {v for k, v in state["versions"].items() if k.startswith("NVIDIA ConnectX-7")} == {"28.39.10.02"}
    assert state["versions"]["BIOS"] == "1.7.5" and state["pending"] == {}
    assert all(state["bios"][k] == v for k, v in BIOS.items())
    assert task_results(res, "Verify the firmware")[0]["changes"] == []
    assert "calvin" not in res.stdout

    res = role(idrac, tmp_path, "firmware,bios", extra)
    assert play_stats(res)["lab-gpu0001"]["changed"] == 0
    assert idrac.state()["resets"] == 1


def test_without_reboot_the_role_says_what_waits(idrac, tmp_path):
    extra = dict(baseline(tmp_path), gpu_server_reboot=False)
    res = role(idrac, tmp_path, "firmware,bios", extra)
    assert "BIOS, NVIDIA ConnectX-7 wait for the next reboot" in " ".join(res.stdout.split())
    state = idrac.state()
    assert state["resets"] == 0 and state["versions"]["BIOS"] == "1.6.4"
    assert sorted(j["JobState"] for j in state["jobs"]) == ["Scheduled"] * 3
    # A rerun before the reboot: BIOS values are staged with their job, so no second PATCH (iDRAC would refuse it).
    res = role(idrac, tmp_path, "bios", extra)
    assert task_results(res, "Stage BIOS")[0]["changed"] is False


def test_a_failed_job_names_the_component_and_the_idrac_message(idrac, tmp_path):
    extra = baseline(tmp_path, "Network_Firmware_corrupt_WN64_28.39.10.02.EXE")
    res = role(idrac, tmp_path, "firmware", extra, ok=False)
    msg = task_results(res, "stage one update per component")[0]["msg"]
    assert msg.startswith("NVIDIA ConnectX-7: iDRAC job JID_") and msg.endswith(
        " failed: Unable to verify Update Package signature. (RED007)")


def test_bad_input_is_one_line(idrac, tmp_path):
    res = role(idrac, tmp_path, "bios", {"gpu_server_bios_attributes": {"SysProfil": "PerfOptimized"}}, ok=False)
    assert task_results(res, "Stage BIOS")[0]["msg"] == ("attributes.SysProfil: the BIOS has no such attribute; "
                                                         "did you mean 'SysProfile'?")
    res = role(idrac, tmp_path, "bios", {"gpu_server_bios_attributes": {"SysProfile": "Fast"}}, ok=False)
    assert task_results(res, "Stage BIOS")[0]["msg"].endswith(
        "HTTP 400: The value Fast for the property SysProfile is not in the list of acceptable values. "
        "(Base.1.12.PropertyValueNotInList)")
    res = role(idrac, tmp_path, "firmware", {"gpu_server_firmware_baseline": {"Mellanox ConnectX-7": "28.39.1002"}},
               ok=False)
    msg = task_results(res, "stage one update per component")[0]["msg"]
    assert msg.startswith("baseline.Mellanox ConnectX-7: no such component in the BMC's firmware inventory; it has: "
                          "BIOS, Integrated Dell Remote Access Controller, NVIDIA ConnectX-7") and "\n" not in msg


def test_role_argument_spec_rejects_bad_type(tmp_path):
    res = run_playbook(["playbooks/gpu_server.yml", "--limit", "lab-gpu0001", "-c", "local", "--tags", "bios",
                        "-e", '{"gpu_server_bios_attributes": ["SysProfile"]}'], check=False)
    assert res.returncode != 0 and "gpu_server_bios_attributes" in res.stdout
