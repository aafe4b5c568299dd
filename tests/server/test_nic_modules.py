"""ConnectX-7 stages of the role (nic_firmware, roce_qos) against the NIC stand-in (nic_standin.py): check mode
changes nothing, a run applies the build's RoCE values, a second run changes nothing; after a simulated reboot
the boot-time unit the build rendered restores trust, PFC, DSCP map, ECN, CNP and ToS. No root needed."""
import json
import os
import re
import subprocess
import sys

import pytest

from nic_standin import NicStandIn
from server_helpers import play_stats, run_playbook

HOST = "lab-gpu0001"
NICS = [("ens%dnp0" % i, "mlx5_%d" % (i - 1)) for i in range(1, 9)]


@pytest.fixture
def nic(tmp_path, monkeypatch):
    standin = NicStandIn(tmp_path / "nic", NICS)
    for key, value in standin.env().items():
        monkeypatch.setenv(key, value)
    return standin


def stages(nic, lab_build, tmp_path, check=False):
    extra = {"ansible_python_interpreter": sys.executable, "gpu_server_mlxconfig": nic.mlxconfig,
             "gpu_server_sysfs_root": str(nic.root), "gpu_server_build_root": lab_build,
             "gpu_server_systemd_dir": str(tmp_path), "gpu_server_manage_services": False}
    (tmp_path / "vars.json").write_text(json.dumps(extra))
    args = ["playbooks/gpu_server.yml", "--limit", HOST, "-c", "local", "--tags", "nic_firmware,roce_qos",
            "-e", "@%s" % (tmp_path / "vars.json")]
    return run_playbook(args + (["--check", "--diff"] if check else []))


def assert_roce_applied(nic):
    for name, rdma in NICS:
        qos = nic.qos(name)
        assert qos["trust"] == "dscp" and qos["pfc"] == [0, 0, 0, 1, 0, 0, 0, 0]
        assert qos["dscp2prio"]["26"] == 3 and qos["dscp2prio"]["48"] == 6
        net = "sys/class/net/%s/ecn/" % name
        assert [nic.read(net + "roce_np/enable/%d" % p) for p in range(8)] == ["0", "0", "0", "1", "0", "0", "0", "0"]
        assert nic.read(net + "roce_rp/enable/3") == "1"
        assert (nic.read(net + "roce_np/cnp_dscp"), nic.read(net + "roce_np/cnp_802p_prio")) == ("48", "6")
        assert nic.read("sys/class/infiniband/%s/tc/1/traffic_class" % rdma) == "106"
        port = "sys/kernel/config/rdma_cm/%s/ports/1/" % rdma
        assert (nic.read(port + "default_roce_tos"), nic.read(port + "default_roce_mode")) == ("106", "RoCE v2")


def run_boot_unit(unit_text, nic):
    """What systemd does with the oneshot unit: ExecStart lines in order, ${ROOT} from Environment= (here the
    stand-in's tree), each through /bin/sh; any failing line fails the unit."""
    env = dict(os.environ, ROOT=str(nic.root))
    for line in unit_text.splitlines():
        if line.startswith("ExecStart="):
            command = re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], line[len("ExecStart="):])
            assert command.startswith("/bin/sh -c '") and command.endswith("'")
            subprocess.run(["/bin/sh", "-c", command[len("/bin/sh -c '"):-1]], env=env, check=True)


def test_check_apply_rerun(nic, lab_build, tmp_path):
    res = stages(nic, lab_build, tmp_path, check=True)
    assert play_stats(res)[HOST]["changed"] == 4
    assert nic.qos("ens1np0")["trust"] == "pcp" and nic.read("sys/class/net/ens1np0/ecn/roce_np/enable/3") == "0"
    assert not (tmp_path / "gpufabric-roce.service").exists()

    res = stages(nic, lab_build, tmp_path)
    assert play_stats(res)[HOST]["changed"] == 4
    assert "need mlxfwreset or a reboot" in res.stdout
    assert_roce_applied(nic)
    assert (tmp_path / "gpufabric-roce.service").read_text() == open(
        os.path.join(lab_build, "lab", "servers", HOST, "systemd", "gpufabric-roce.service")).read()

    res = stages(nic, lab_build, tmp_path)
    assert play_stats(res)[HOST]["changed"] == 0
    assert "need mlxfwreset or a reboot" in res.stdout  # firmware parameters wait for the reset


def test_boot_unit_restores_roce_after_a_reboot(nic, lab_build, tmp_path):
    stages(nic, lab_build, tmp_path)
    nic.reboot()
    assert nic.qos("ens4np0") == {"trust": "pcp", "pfc": [0] * 8, "dscp2prio": {str(d): d >> 3 for d in range(64)}}
    assert nic.read("sys/class/net/ens4np0/ecn/roce_np/enable/3") == "0"
    run_boot_unit((tmp_path / "gpufabric-roce.service").read_text(), nic)
    assert_roce_applied(nic)
    # The firmware parameters came through the reboot: nothing pending, and a rerun changes nothing.
    res = stages(nic, lab_build, tmp_path)
    assert play_stats(res)[HOST]["changed"] == 0 and "need mlxfwreset" not in res.stdout
