"""What a twin SONiC switch says about itself, as sonic-utilities and sonic-swss write it: `show version`
(show/main.py), STATE_DB and APPL_DB PORT_TABLE (portsyncd, portsorch) with supported_speeds from the platform's
platform.json, `show interfaces status` (scripts/intfutil), and GCU's port speed validator reading them."""
import copy
import io
import json
import os
import re

import pytest

from conftest import SONIC_REFERENCE, YANG_MODELS, lab_leaf_config_db, needs_sonic_yang

pytest.importorskip("jsonpatch", reason="the SONiC twin needs jsonpatch (requirements.txt)")
needs_sonic_yang()

from gpufabric.twin.emulators.sonic import cli, plane, portstate, redis_db, show_status  # noqa: E402

if redis_db.missing():
    pytest.skip(redis_db.missing(), allow_module_level=True)

PLATFORM = "x86_64-dellemc_z9332f_d1508-r0"
PLATFORM_DIR = os.path.join(SONIC_REFERENCE, "platforms", PLATFORM)


@pytest.fixture
def switch(tmp_path):
    etc, run = str(tmp_path / "etc-sonic"), str(tmp_path / "run")
    redis_db.switch_files(etc, run, "broadcom", plane.BUILD_VERSION, YANG_MODELS, config_db=lab_leaf_config_db(),
                          device={"host": "lab-r0-leaf01", "model": "Z9332F-ON", "platform": PLATFORM,
                                  "platform_dir": PLATFORM_DIR}, version=dict(plane.VERSION, kernel_version="6.1.0"))
    redis_db.start(run)
    assert run_cmd(etc, "config", "reload", "-y")[0] == 0
    cli.Switch(etc).db("STATE_DB").set_entry("CHASSIS_INFO", "chassis 1", plane.chassis_info("lab-r0-leaf01", "Z9332F-ON"))
    yield etc
    redis_db.stop([run])


def run_cmd(etc, *argv):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), etc_sonic=etc, out=out, err=err, stdin=lambda: None)
    return code, out.getvalue(), err.getvalue()


def test_supported_speeds_are_the_platform_json_modes_of_the_ports_lane_count():
    assert portstate.supported_speeds(PLATFORM_DIR, "33,34,35,36,37,38,39,40") == [400000]
    assert portstate.supported_speeds(PLATFORM_DIR, "33,34") == [50000, 100000]
    assert portstate.supported_speeds(os.path.join(SONIC_REFERENCE, "platforms", "x86_64-dell_z9664f-r0"), "5,6,7,8") == []


def test_show_version_as_sonic_utilities_prints_it(switch):
    code, out, _err = run_cmd(switch, "show", "version")
    assert code == 0
    assert out.startswith("\nSONiC Software Version: SONiC.%s\nSONiC OS Version: " % plane.BUILD_VERSION)
    for line in ("Kernel: 6.1.0", "Build date: Sun Nov 30 04:12:33 UTC 2025", "Platform: " + PLATFORM,
                 "HwSKU: DellEMC-Z9332f-O32", "ASIC: broadcom", "ASIC Count: 1", "Model Number: Z9332F-ON",
                 "Hardware Revision: N/A", "\nDocker images:\nREPOSITORY"):
        assert line in out
    assert re.search(r"^Serial Number: TW[0-9A-F]{8}$", out, re.M)
    assert re.search(r"^Date: \w{3} \d\d \w{3} \d{4} \d\d:\d\d:\d\d$", out, re.M)
    assert "Docker images" not in run_cmd(switch, "show", "version", "--brief")[1]


def test_state_db_port_table_answers_as_sonic_db_cli_does(switch):
    code, out, _err = run_cmd(switch, "sonic-db-cli", "STATE_DB", "HGETALL", "PORT_TABLE|Ethernet0")
    row = eval(out)   # noqa: S307 -- sonic-db-cli prints a hash as a Python dict
    assert code == 0 and row["state"] == "ok" and row["supported_speeds"] == "400000" and row["speed"] == "400000"
    assert {row["admin_status"], row["netdev_oper_status"]} <= {"up", "down"}
    appl = eval(run_cmd(switch, "sonic-db-cli", "APPL_DB", "HGETALL", "PORT_TABLE:Ethernet0")[1])   # noqa: S307
    assert appl["lanes"] == "33,34,35,36,37,38,39,40" and appl["oper_status"] in ("up", "down")


def test_show_interfaces_status_in_intfutils_table(switch):
    code, out, _err = run_cmd(switch, "show", "interfaces", "status")
    lines = out.splitlines()
    header = ["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type", "Asym", "PFC"]
    assert code == 0 and lines[0].split() == header
    assert set(lines[1]) == {"-", " "} and len(lines[0]) == len(lines[1])
    first = lines[2].split()
    assert first[:3] == ["Ethernet0", "33,34,35,36,37,38,39,40", "400G"] and first[6] == "routed"
    # Without a namespace of its own, a port is oper up when admin up (an OOB switch of the twin).
    assert first[7] == first[8] == "up"


def test_intfutil_speed_and_table_format():
    assert [show_status.speed_text(s) for s in ("400000", "2500", "100", "25000")] == ["400G", "2.5G", "100M", "25G"]
    assert show_status.table([("Ethernet0", "9100")], ("Interface", "MTU")) == (
        "  Interface    MTU\n-----------  -----\n  Ethernet0   9100")


def test_a_speed_the_port_does_not_support_is_refused_by_gcus_port_validator(switch, tmp_path):
    target = json.loads(run_cmd(switch, "sonic-cfggen", "-d", "--print-data")[1])
    slow = copy.deepcopy(target)
    slow["PORT"]["Ethernet0"]["speed"] = "100000"
    path = tmp_path / "target.json"
    path.write_text(json.dumps(slow))
    code, _out, err = run_cmd(switch, "config", "replace", str(path))
    assert code == 2 and "Modification of PORT table is illegal" in err and "port_config_update_validator" in err, err
    assert json.loads(run_cmd(switch, "sonic-cfggen", "-d", "--print-data")[1]) == target
