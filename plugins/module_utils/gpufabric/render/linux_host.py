"""The files of one GPU server, from its structured config. The build writes four under
build/<cluster>/servers/<host>/ (the structured config, sysctls, the NCCL environment, the boot-time RoCE unit);
the files of the host's network stack are rendered from the structured config when the gpu_server role installs
them (network_files), so the build does not write three forms of one network for every server."""

from ..server import nccl, roce
from . import yaml_text
from .linux_host_network import HEADER, networkd, netplan, networkmanager

ROCE_UNIT = "gpufabric-roce.service"
# The unit's sysfs/configfs paths start with ${ROOT}: empty on a host, a scratch tree in tests.
UNIT_ROOT = "${ROOT}"


def sysctl_conf(cfg):
    return HEADER + "".join("%s = %s\n" % kv for kv in sorted(cfg["sysctls"].items()))


def _sh(command):
    return "/bin/sh -c '%s'" % command


# Stand-ins for a NIC's interface and RDMA device in the commands every NIC of a server shares (NUL never occurs in
# a name).
_NIC, _RDMA = "\0nic\0", "\0rdma\0"


def _for_nic(text, nic):
    return text.replace(_NIC, nic["name"]).replace(_RDMA, nic["rdma"])


def _nic_commands(r):
    """The commands that put RoCE back on one rail NIC after a boot, in order: QoS with mlnx_qos, then the
    sysfs/configfs values of server/roce.py (their one home, shared with the roce_ecn module). The NIC's names are
    left as _NIC and _RDMA: the commands are the same on every NIC of a server (a 16,384-server fabric with 32 plane
    ports a server has half a million NICs), so they are made once a server and the names put in after."""
    pfc = ",".join(str(1 if p in r["pfc_priorities"] else 0) for p in range(8))
    cmds = ["mlnx_qos -i %s --trust %s --pfc %s" % (_NIC, r["trust"], pfc)]
    for dscp, prio in sorted(r["dscp_to_priority"].items()):
        cmds.append("mlnx_qos -i %s --dscp2prio set,%d,%d" % (_NIC, dscp, prio))
    values = roce.settings(UNIT_ROOT, _NIC, _RDMA, r["ecn_priorities"], r["cnp_dscp"], r["traffic_class"],
                           r["roce_mode"], r["cnp_priority"])
    for path, value in values.items():
        if "/kernel/config/rdma_cm/" in path:
            # Creating the device's configfs group is what cma_roce_tos/cma_roce_mode do first.
            group = path.split("/ports/")[0]
            cmds.append("test -d %s || mkdir %s" % (group, group))
        cmds.append("echo \"%s\" > %s" % (value, path))
    return cmds


def roce_unit(cfg):
    """A oneshot unit ordered after the NICs exist and before the network comes up: trust, PFC, ECN, CNP and the
    RoCE ToS are driver state that every reboot resets (to trust pcp, PFC off: silently lossy)."""
    r = cfg["roce"]
    devices = " ".join("sys-subsystem-net-devices-%s.device" % n["name"] for n in cfg["nics"])
    lines = [HEADER.rstrip("\n"), "[Unit]",
             "Description=RoCE QoS of the rail NICs: trust %s, PFC on priority %d, ECN, CNP DSCP %d, ToS %d"
             % (r["trust"], r["lossless_priority"], r["cnp_dscp"], r["traffic_class"]),
             "After=openibd.service sys-kernel-config.mount " + devices, "Requires=" + devices,
             "Before=network-pre.target", "Wants=network-pre.target", "", "[Service]", "Type=oneshot",
             "RemainAfterExit=yes", "Environment=ROOT=", "ExecStartPre=-/sbin/modprobe rdma_cm"]
    block = "\n".join("ExecStart=" + _sh(c) for c in _nic_commands(r))
    lines += [_for_nic(block, nic) for nic in cfg["nics"]]
    lines += ["", "[Install]", "WantedBy=multi-user.target", ""]
    return "\n".join(lines)


# The Linux network stacks the gpu_server role installs for, each by the name the role chooses it by.
NETWORK_STACKS = {"networkd": networkd, "netplan": netplan, "NetworkManager": networkmanager}


def render_server(cfg):
    """{path relative to the host's build directory: text}: what the build writes for one server."""
    return {"structured.yml": yaml_text.dump(cfg), "nccl.conf": HEADER + nccl.render(cfg["nccl"]["env"]),
            "sysctl/60-gpufabric.conf": sysctl_conf(cfg), "systemd/" + ROCE_UNIT: roce_unit(cfg)}


def network_files(cfg, stack):
    """{file name: text} of one network stack (a NETWORK_STACKS key) for the server of this structured config."""
    if stack not in NETWORK_STACKS:
        raise ValueError("network stack %r: expected one of %s" % (stack, ", ".join(NETWORK_STACKS)))
    return NETWORK_STACKS[stack](cfg)
