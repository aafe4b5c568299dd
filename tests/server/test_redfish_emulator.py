"""Firmware and BIOS stages of the gpu_server role against a real Redfish service (sushy-tools' emulator,
started per test): check mode lists changes and changes nothing, a run applies them, a second run is a no-op,
and a bad baseline or attribute fails with one line naming it."""
import json
import sys
import urllib.request

from server_helpers import play_stats, run_playbook

SYSTEM = "/redfish/v1/Systems/27946b59-9e44-4fa7-8e91-f3527a1ef094"


def get(base, path):
    return json.loads(urllib.request.urlopen(base + path, timeout=5).read())


def run(base, tmp_path, tags, extra, check_mode=False, ok=True):
    vars_file = tmp_path / "vars.json"
    vars_file.write_text(json.dumps(dict({"ansible_python_interpreter": sys.executable,
                                          "gpu_server_bmc_address": base, "gpu_server_bmc_password": "calvin"},
                                         **extra)))
    args = ["playbooks/gpu_server.yml", "--limit", "lab-gpu0001", "-c", "local", "--tags", tags,
            "-e", "@%s" % vars_file]
    if check_mode:
        args.append("--check")
    return run_playbook(args, check=ok)


def task_results(res, name_part):
    plays = json.loads(res.stdout[res.stdout.index("{"):])["plays"]
    return [t["hosts"]["lab-gpu0001"] for p in plays for t in p["tasks"] if name_part in t["task"]["name"]]


BIOS = {"gpu_server_bios_attributes": {"SysProfile": "PerfOptimized", "SriovGlobalEnable": "Enabled"}}


def test_bios_check_apply_idempotent(redfish, tmp_path):
    res = run(redfish, tmp_path, "bios", BIOS, check_mode=True)
    result = task_results(res, "BIOS attributes")[0]
    assert result["changed"] and set(result["changes"]) == {"SysProfile", "SriovGlobalEnable"}
    assert result["reboot_required"] is True
    assert get(redfish, SYSTEM + "/BIOS")["Attributes"]["SysProfile"] == "PerfPerWattOptimizedDapc"

    res = run(redfish, tmp_path, "bios", BIOS)
    assert play_stats(res)["lab-gpu0001"]["changed"] == 1
    assert "take effect at the" in res.stdout
    assert get(redfish, SYSTEM + "/BIOS/Settings")["Attributes"]["SysProfile"] == "PerfOptimized"

    res = run(redfish, tmp_path, "bios", BIOS)
    assert play_stats(res)["lab-gpu0001"]["changed"] == 0
    assert "calvin" not in res.stdout


def test_bios_unknown_attribute_is_one_line_naming_it(redfish, tmp_path):
    res = run(redfish, tmp_path, "bios", {"gpu_server_bios_attributes": {"SysProfil": "PerfOptimized"}}, ok=False)
    assert res.returncode != 0
    msg = task_results(res, "BIOS attributes")[0]["msg"]
    assert msg == "attributes.SysProfil: the BIOS has no such attribute; did you mean 'SysProfile'?"


FIRMWARE = {"gpu_server_firmware_baseline": {"BIOS": "1.1.0", "Mellanox ConnectX-7": "28.39.1002",
                                             "Integrated Dell Remote Access Controller": "7.00.00.00"},
            "gpu_server_firmware_images": {"BIOS": "http://127.0.0.1/BIOS_XE9680_1.1.0.EXE"}}


def test_firmware_check_update_idempotent(redfish, tmp_path):
    res = run(redfish, tmp_path, "firmware", FIRMWARE, check_mode=True)
    result = task_results(res, "Compare firmware")[0]
    assert result["changed"] and [c["name"] for c in result["changes"]] == ["BIOS"]
    assert result["changes"][0]["current"] == "1.0.0" and result["reboot_required"] is True
    assert get(redfish, SYSTEM)["BiosVersion"] == "1.0.0"

    res = run(redfish, tmp_path, "firmware", FIRMWARE)
    assert task_results(res, "Compare firmware")[0]["changed"]
    assert "install at the next reboot" in res.stdout
    assert get(redfish, SYSTEM)["BiosVersion"] == "1.1.0"

    res = run(redfish, tmp_path, "firmware", FIRMWARE)
    assert play_stats(res)["lab-gpu0001"]["changed"] == 0


def test_firmware_bad_baseline_is_one_line_naming_it(redfish, tmp_path):
    res = run(redfish, tmp_path, "firmware", {"gpu_server_firmware_baseline": {"Broadcom 57414": "22.1"}}, ok=False)
    msg = task_results(res, "Compare firmware")[0]["msg"]
    assert msg.startswith("baseline.Broadcom 57414: no such component in the BMC's firmware inventory; it has: BIOS,")
    assert "\n" not in msg


def test_firmware_missing_image_is_one_line(redfish, tmp_path):
    res = run(redfish, tmp_path, "firmware", {"gpu_server_firmware_baseline": {"BIOS": "1.1.0"}}, ok=False)
    msg = task_results(res, "Compare firmware")[0]["msg"]
    assert msg == "images.BIOS: BIOS is at 1.0.0, baseline 1.1.0, and no image is given for it"


def test_role_argument_spec_rejects_bad_type(tmp_path):
    res = run("http://127.0.0.1:1", tmp_path, "bios", {"gpu_server_bios_attributes": ["SysProfile"]},
              ok=False)
    assert res.returncode != 0 and "gpu_server_bios_attributes" in res.stdout
