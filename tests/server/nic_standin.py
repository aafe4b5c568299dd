"""A ConnectX-7 stand-in for the role's tests: mlnx_qos and mlxconfig executables keeping state in JSON files,
and a sysfs/configfs tree, all of which ``reboot`` resets the way a real reboot does.

What a reboot keeps and loses follows the tools' documentation (docs/gpu-server.md): mlxconfig parameters live in
NIC flash (Next Boot becomes Current); mlnx_qos trust/PFC/DSCP map, the ECN and CNP sysfs files, tc/N/traffic_class
and the rdma_cm configfs groups are driver state and come back as the driver's defaults: trust pcp, PFC off, the
DSCP map priority = DSCP >> 3, rdma_cm defaults (RoCE v1, ToS 0). The stand-in's ECN and CNP values after a reset are chosen to
differ from any plan (all ECN off, CNP DSCP/priority 0) so that a test sees whether they were restored.
"""
import json
import os
import stat
import sys

MLNX_QOS = r'''import json, os, sys
state_file = os.path.join(os.environ["NIC_STATE"], "qos." + sys.argv[2] + ".json")
state = json.load(open(state_file))
args = sys.argv[3:]
if "--trust" in args:
    state["trust"] = args[args.index("--trust") + 1]
if "--pfc" in args:
    state["pfc"] = [int(v) for v in args[args.index("--pfc") + 1].split(",")]
if "--dscp2prio" in args:
    op, dscp, prio = args[args.index("--dscp2prio") + 1].split(",")
    state["dscp2prio"][dscp] = int(prio)
json.dump(state, open(state_file, "w"))
print("DCBX mode: OS controlled\nPriority trust state: %s\ndscp2prio mapping:" % state["trust"])
for prio in range(8):
    dscps = sorted((int(d) for d, p in state["dscp2prio"].items() if p == prio), reverse=True)
    print("        prio:%d dscp:%s," % (prio, ",".join("%02d" % d for d in dscps)))
print("Cable len: 7\nPFC configuration:\n        priority    0   1   2   3   4   5   6   7")
print("        enabled     %s   " % "   ".join(str(v) for v in state["pfc"]))
'''
MLXCONFIG = r'''import json, os, sys
state_file = os.path.join(os.environ["NIC_STATE"], "mlxconfig." + sys.argv[sys.argv.index("-d") + 1] + ".json")
state = json.load(open(state_file))
names = {"ETH": "ETH(2)", "True": "True(1)", "1": "True(1)"}
if "set" in sys.argv:
    for a in sys.argv[sys.argv.index("set") + 1:]:
        k, v = a.split("=")
        if k not in state:
            sys.exit("-E- The Device doesn't support %s parameter" % k)
        state[k][1] = names.get(v, v) if not k.startswith(("CNP", "ROCE_CC")) else v
    json.dump(state, open(state_file, "w"))
else:
    print("Device #1:\n----------\n\nDevice type:    ConnectX7\n")
    print("Configurations:                              Default         Current         Next Boot")
    for k, (cur, nxt) in state.items():
        print("%s        %-36s%-16s%-16s%s" % ("*" if cur != nxt else " ", k, "x(0)", cur, nxt))
'''
FIRMWARE_DEFAULTS = {"LINK_TYPE_P1": "IB(1)", "ADVANCED_PCI_SETTINGS": "False(0)", "CNP_DSCP_P1": "0",
                     "CNP_802P_PRIO_P1": "0", "ROCE_CC_PRIO_MASK_P1": "255"}


def _tool(path, body):
    path.write_text("#!%s\n%s" % (sys.executable, body))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


class NicStandIn:
    """Eight rail NICs (``nics``: [(interface, rdma device)]) under ``base``: bin/, state/, root/ (the sysfs tree)."""

    def __init__(self, base, nics):
        self.base, self.nics = base, nics
        self.bin, self.state, self.root = base / "bin", base / "state", base / "root"
        for d in (self.bin, self.state, self.root):
            d.mkdir(parents=True, exist_ok=True)
        _tool(self.bin / "mlnx_qos", MLNX_QOS)
        self.mlxconfig = _tool(self.bin / "mlxconfig", MLXCONFIG)
        for dummy, rdma in nics:
            (self.state / ("mlxconfig.%s.json" % rdma)).write_text(
                json.dumps({k: [v, v] for k, v in FIRMWARE_DEFAULTS.items()}))
        self.reboot()

    def env(self):
        return {"NIC_STATE": str(self.state), "PATH": str(self.bin) + os.pathsep + os.environ["PATH"]}

    def reboot(self):
        """Driver state back to defaults; firmware parameters: Next Boot becomes Current."""
        for name, rdma in self.nics:
            (self.state / ("qos.%s.json" % name)).write_text(json.dumps(
                {"trust": "pcp", "pfc": [0] * 8, "dscp2prio": {str(d): d >> 3 for d in range(64)}}))
            net = self.root / "sys/class/net" / name / "ecn"
            for kind in ("roce_np", "roce_rp"):
                (net / kind / "enable").mkdir(parents=True, exist_ok=True)
                for prio in range(8):
                    (net / kind / "enable" / str(prio)).write_text("0\n")
            (net / "roce_np/cnp_dscp").write_text("0\n")
            (net / "roce_np/cnp_802p_prio").write_text("0\n")
            tc = self.root / "sys/class/infiniband" / rdma / "tc/1"
            tc.mkdir(parents=True, exist_ok=True)
            (tc / "traffic_class").write_text("")
            # A real rdma_cm configfs group vanishes at reboot and `mkdir` recreates it with its ports; a plain
            # directory cannot do that, so the group stays and its values go back to the defaults.
            port = self.root / "sys/kernel/config/rdma_cm" / rdma / "ports/1"
            port.mkdir(parents=True, exist_ok=True)
            (port / "default_roce_mode").write_text("IB/RoCE v1\n")
            (port / "default_roce_tos").write_text("0\n")
            fw = self.state / ("mlxconfig.%s.json" % rdma)
            fw.write_text(json.dumps({k: [nxt, nxt] for k, (dummy, nxt) in json.loads(fw.read_text()).items()}))

    def qos(self, name):
        return json.loads((self.state / ("qos.%s.json" % name)).read_text())

    def read(self, rel):
        return (self.root / rel).read_text().strip()
