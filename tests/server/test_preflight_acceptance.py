"""Preflight and acceptance stages of the role with stand-in tools that print recorded real output
(tests/unit/fixtures/server): a matching server passes, a mismatched one fails with one line naming the rails."""
import json
import os
import stat
import sys

import pytest

from server_helpers import run_playbook

FIX = os.path.join(os.path.dirname(os.path.dirname(__file__)), "unit", "fixtures", "server")
HOST = "lab-gpu0001"


def tool(bindir, name, fixture):
    path = bindir / name
    path.write_text("#!/bin/sh\ncat %s\n" % os.path.join(FIX, fixture))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def host(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool(bindir, "ofed_info", "ofed_info_s_doca.txt")
    tool(bindir, "nvidia-smi", "nvidia_smi_topo_8xh100.txt")
    tool(bindir, "ib_write_bw", "ib_write_bw_roce_client.txt")
    tool(bindir, "all_reduce_perf", "all_reduce_perf_2x8_h100.txt")
    for i in range(8):
        (tmp_path / ("root/sys/class/net/ens%dnp0/device/infiniband/mlx5_%d" % (i + 1, i))).mkdir(parents=True)
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ["PATH"])
    return tmp_path


def role(host, lab_build, tags, extra=None, ok=True):
    extra = dict({"ansible_python_interpreter": sys.executable, "gpu_server_build_root": lab_build,
                  "gpu_server_sysfs_root": str(host / "root")}, **(extra or {}))
    (host / "vars.json").write_text(json.dumps(extra))
    return run_playbook(["playbooks/gpu_server.yml", "--limit", HOST, "-c", "local", "--tags", tags,
                         "-e", "@%s" % (host / "vars.json")], check=ok)


def failed_msg(res):
    plays = json.loads(res.stdout[res.stdout.index("{"):])["plays"]
    return [t["hosts"][HOST]["msg"] for p in plays for t in p["tasks"] if t["hosts"].get(HOST, {}).get("failed")][0]


def test_preflight_passes_and_names_what_is_wrong(host, lab_build):
    role(host, lab_build, "preflight")
    os.rename(host / "root/sys/class/net/ens3np0/device/infiniband/mlx5_2",
              host / "root/sys/class/net/ens3np0/device/infiniband/mlx5_9")
    res = role(host, lab_build, "preflight", {"gpu_server_min_ofed_version": "25.04"}, ok=False)
    assert failed_msg(res) == ("DOCA-OFED 24.10-1.1.4.0.200 is older than 25.04: upgrade it; "
                               "rail 2 ens3np0: RDMA device mlx5_9, planned mlx5_2")


def test_acceptance_per_rail_and_nccl(host, lab_build):
    extra = {"gpu_server_acceptance_peer": "lab-gpu0002", "gpu_server_acceptance_line_rate_gbps": 100,
             "gpu_server_nccl_test_command": ["all_reduce_perf", "-b", "512M", "-e", "8G", "-f", "2", "-g", "1"],
             "gpu_server_nccl_min_busbw": 180}
    role(host, lab_build, "acceptance", extra)
    res = role(host, lab_build, "acceptance", dict(extra, gpu_server_acceptance_line_rate_gbps=400), ok=False)
    assert failed_msg(res) == ("rail 0 lab-gpu0001 -> lab-gpu0002: mlx5_0 ib_write_bw 98.03 Gb/s at 65536 bytes, "
                               "below 90% of 400 Gb/s (360.0)")
