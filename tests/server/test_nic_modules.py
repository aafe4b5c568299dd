"""ConnectX-7 stages of the role (nic_firmware, roce_qos) with stand-in mlxconfig and mlnx_qos executables
that print the real output of the tools' fixtures and keep state in files, and a fake sysfs tree; no root needed.
Check mode changes nothing, a run applies, a second run changes nothing."""
import json
import os
import stat
import sys

from server_helpers import play_stats, run_playbook

FIX = os.path.join(os.path.dirname(os.path.dirname(__file__)), "unit", "fixtures", "server")

# A stand-in that behaves like the tool for what the modules call: query prints the state, set changes it.
MLXCONFIG = r'''import json, os, sys
state_file = os.environ["FAKE_STATE"] + "/mlxconfig.json"
state = json.load(open(state_file)) if os.path.exists(state_file) else {"LINK_TYPE_P1": ["ETH(2)", "IB(1)"],
         "ADVANCED_PCI_SETTINGS": ["False(0)", "False(0)"], "ROCE_NEXT_PROTOCOL": ["254", "254"]}
if "set" in sys.argv:
    names = {"ETH": "ETH(2)", "2": "ETH(2)", "1": "True(1)", "True": "True(1)"}
    for a in sys.argv[sys.argv.index("set") + 1:]:
        k, v = a.split("=")
        state[k][1] = names.get(v, v)
    json.dump(state, open(state_file, "w"))
else:
    print("Device #1:\n----------\n\nDevice type:    ConnectX7\n")
    print("Configurations:                              Default         Current         Next Boot")
    for k, (cur, nxt) in state.items():
        print("%s        %-36s%-16s%-16s%s" % ("*" if cur != nxt else " ", k, "x(0)", cur, nxt))
'''
MLNX_QOS = r'''import os, sys
state = os.environ["FAKE_STATE"] + "/qos." + sys.argv[2]
if "--trust" in sys.argv:
    open(state, "w").write("set")
src = "mlnx_qos_dscp_pfc3.txt" if os.path.exists(state) else "mlnx_qos_pcp_default.txt"
print(open(os.path.join(os.environ["FAKE_FIX"], src)).read())
'''


def tool(path, body):
    path.write_text("#!%s\n%s" % (sys.executable, body))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def fake_sysfs(root, nics):
    for i, nic in enumerate(nics):
        for kind in ("roce_np", "roce_rp"):
            d = root / "sys/class/net" / nic / "ecn" / kind / "enable"
            d.mkdir(parents=True)
            for prio in range(8):
                (d / str(prio)).write_text("0\n")
        (root / "sys/class/net" / nic / "ecn/roce_np/cnp_dscp").write_text("0\n")
        tc = root / "sys/class/infiniband" / ("mlx5_%d" % i) / "tc/1"
        tc.mkdir(parents=True)
        (tc / "traffic_class").write_text("")
        port = root / "sys/kernel/config/rdma_cm" / ("mlx5_%d" % i) / "ports/1"
        port.mkdir(parents=True)
        (port / "default_roce_mode").write_text("IB/RoCE v1\n")
        (port / "default_roce_tos").write_text("0\n")


def test_connectx_stages(tmp_path, monkeypatch):
    nics = ["ens%dnp0" % i for i in range(1, 9)]
    fake_sysfs(tmp_path / "root", nics)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool(bindir / "mlnx_qos", MLNX_QOS)
    mlx = tool(bindir / "mlxconfig", MLXCONFIG)
    monkeypatch.setenv("FAKE_STATE", str(tmp_path))
    monkeypatch.setenv("FAKE_FIX", FIX)
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ["PATH"])
    extra = {"ansible_python_interpreter": sys.executable, "gpu_server_mlxconfig": mlx,
             "gpu_server_sysfs_root": str(tmp_path / "root")}
    (tmp_path / "vars.json").write_text(json.dumps(extra))
    args = ["playbooks/gpu_server.yml", "--limit", "lab-gpu0001", "-c", "local", "--tags", "nic_firmware,roce_qos",
            "-e", "@%s" % (tmp_path / "vars.json")]

    res = run_playbook(args + ["--check", "--diff"])
    assert play_stats(res)["lab-gpu0001"]["changed"] == 3
    assert (tmp_path / "root/sys/class/net/ens1np0/ecn/roce_np/enable/3").read_text() == "0\n"
    assert not (tmp_path / "mlxconfig.json").exists()

    res = run_playbook(args)
    assert play_stats(res)["lab-gpu0001"]["changed"] == 3
    assert "need mlxfwreset or a reboot" in res.stdout
    root = tmp_path / "root/sys"
    for nic in nics:
        assert (root / "class/net" / nic / "ecn/roce_np/enable/3").read_text() == "1\n"
        assert (root / "class/net" / nic / "ecn/roce_rp/enable/3").read_text() == "1\n"
        assert (root / "class/net" / nic / "ecn/roce_np/enable/2").read_text() == "0\n"
        assert (root / "class/net" / nic / "ecn/roce_np/cnp_dscp").read_text() == "48\n"
    assert (root / "class/infiniband/mlx5_7/tc/1/traffic_class").read_text() == "106\n"
    assert (root / "kernel/config/rdma_cm/mlx5_7/ports/1/default_roce_mode").read_text() == "RoCE v2\n"

    # Real tc/1/traffic_class reads back as "Global tclass=106": still no change.
    (root / "class/infiniband/mlx5_0/tc/1/traffic_class").write_text("Global tclass=106\n")
    res = run_playbook(args)
    assert play_stats(res)["lab-gpu0001"]["changed"] == 0
    assert "need mlxfwreset or a reboot" in res.stdout  # still pending until a firmware reset
