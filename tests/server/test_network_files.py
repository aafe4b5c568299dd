"""The network stage installs the files of the stack the host runs (detected), rendered from the build's
structured.yml, with the modes each stack wants, and a second run changes nothing. Live addressing is left to
test_rail_routing_netns.py (root)."""
import json
import os
import stat
import sys

import pytest
import yaml

from gpufabric.render.linux_host import network_files

from server_helpers import play_stats, run_playbook

HOST = "lab-gpu0003"


@pytest.mark.parametrize("stack", ["netplan", "NetworkManager", "networkd"])
def test_detected_stack_gets_the_built_files(stack, lab_build, tmp_path):
    etc, run = tmp_path / "etc", tmp_path / "run"
    dirs = {"networkd": etc / "systemd/network", "netplan": etc / "netplan",
            "NetworkManager": etc / "NetworkManager/system-connections"}
    for d in dirs.values():
        d.mkdir(parents=True)
    if stack == "netplan":
        (dirs["netplan"] / "50-cloud-init.yaml").write_text("network: {version: 2}\n")
    if stack == "NetworkManager":
        (run / "NetworkManager").mkdir(parents=True)
    extra = {"ansible_python_interpreter": sys.executable, "gpu_server_build_root": lab_build,
             "gpu_server_network_apply_live": False, "gpu_server_manage_services": False,
             "gpu_server_networkd_dir": str(dirs["networkd"]), "gpu_server_netplan_dir": str(dirs["netplan"]),
             "gpu_server_nm_dir": str(dirs["NetworkManager"]), "gpu_server_nm_run_dir": str(run / "NetworkManager"),
             "gpu_server_sysctl_file": str(etc / "60-gpufabric.conf")}
    (tmp_path / "vars.json").write_text(json.dumps(extra))
    args = ["playbooks/gpu_server.yml", "--limit", HOST, "-c", "local", "--tags", "network",
            "-e", "@%s" % (tmp_path / "vars.json")]
    assert play_stats(run_playbook(args))[HOST]["changed"] > 0
    with open(os.path.join(lab_build, "lab", "servers", HOST, "structured.yml"), encoding="utf-8") as f:
        expected = network_files(yaml.safe_load(f), stack)
    assert sorted(os.listdir(dirs[stack])) == sorted(list(expected) + (["50-cloud-init.yaml"] if stack == "netplan" else []))
    for name, text in expected.items():
        installed = dirs[stack] / name
        assert installed.read_text() == text
        mode = stat.S_IMODE(installed.stat().st_mode)
        assert mode == (0o644 if stack == "networkd" else 0o600), (name, oct(mode))
    others = [d for s, d in dirs.items() if s != stack]
    assert all(not any(n.startswith(("20-gpufabric", "60-gpufabric", "gpufabric")) for n in os.listdir(d))
               for d in others)
    assert play_stats(run_playbook(args))[HOST]["changed"] == 0
