"""RoCE host settings that live in sysfs/configfs: ECN per priority, CNP DSCP, RoCE ToS and mode.

Paths are relative to a root so tests can use a fake tree. ``cma_roce_tos`` and ``cma_roce_mode`` are thin
scripts over the rdma_cm configfs entries written here (default_roce_tos, default_roce_mode)."""
import os
import re


def settings(root, interface, rdma_device, ecn_priorities, cnp_dscp, roce_tos, roce_mode, cnp_priority=None,
             tc=1, port=1):
    """{path: wanted value} in the order they are applied (by the roce_ecn module, and by the boot-time unit
    that render/linux_host_roce.py writes: these values live in the driver and are gone after a reboot)."""
    net = os.path.join(root, "sys/class/net", interface, "ecn")
    out = {}
    for prio in ecn_priorities:
        out[os.path.join(net, "roce_np/enable", str(prio))] = "1"
        out[os.path.join(net, "roce_rp/enable", str(prio))] = "1"
    if cnp_dscp is not None:
        out[os.path.join(net, "roce_np/cnp_dscp")] = str(cnp_dscp)
    if cnp_priority is not None:
        out[os.path.join(net, "roce_np/cnp_802p_prio")] = str(cnp_priority)
    if roce_tos is not None:
        out[os.path.join(root, "sys/class/infiniband", rdma_device, "tc", str(tc), "traffic_class")] = str(roce_tos)
        out[os.path.join(root, "sys/kernel/config/rdma_cm", rdma_device, "ports", str(port),
                         "default_roce_tos")] = str(roce_tos)
    if roce_mode:
        out[os.path.join(root, "sys/kernel/config/rdma_cm", rdma_device, "ports", str(port),
                         "default_roce_mode")] = roce_mode
    return out


def normalise(text):
    """What a sysfs file says, comparable with what was written: tc/N/traffic_class reads back as
    "Global tclass=106" once set, and as nothing before."""
    text = text.strip()
    m = re.match(r"^Global tclass=(\d+)", text)
    return m.group(1) if m else text
