"""A GPU server (Linux, by design: render/linux_host*): the commands that read what validation checks on it, and
their parsers, in the shape of a NOS home's collectors (``COMMANDS``, ``PARSERS``, ``SSH_TOOLS``), plus the NIC
QoS script, which names the server's rail NICs."""
from ..device_command import Command, Unavailable
from . import collectors, parsers

COMMANDS = {
    "lldp": collectors.COMMANDS["lldp"],
    "links": collectors.COMMANDS["links"],
    "sysfs": collectors.COMMANDS["sysfs"],
    "addrs": Command("sh", "ip -j addr show"),
    "rules": Command("sh", "ip -j rule show"),
    "route_tables": Command("sh", "ip -j route show table all"),
}
SSH_TOOLS = collectors.SSH_TOOLS
NIC_QOS_SCRIPT = ("command -v mlnx_qos >/dev/null || { echo NO_MLNX_QOS; exit 0; }; for nic in %s; do "
                  "echo \"### $nic\"; mlnx_qos -i \"$nic\" 2>&1; "
                  "grep -H . /sys/class/net/$nic/ecn/roce_np/enable/* /sys/class/net/$nic/ecn/roce_rp/enable/* "
                  "2>/dev/null; done; true")


def nic_qos_command(nics):
    """The command reading the QoS of the rail NICs ``nics`` (names), None without any."""
    return Command("sh", NIC_QOS_SCRIPT % " ".join(nics)) if nics else None


def nic_qos(text):
    """The NIC QoS script's output -> {nic: {"trust", "pfc", "ecn"}}; raises Unavailable without mlnx_qos."""
    if text.strip() == "NO_MLNX_QOS":
        raise Unavailable("mlnx_qos is not installed (no ConnectX tools on this host)")
    out = {}
    for block in text.split("### ")[1:]:
        nic, _nl, body = block.partition("\n")
        parsed = parsers.mlnx_qos(body)
        if parsed is None:
            continue
        enabled = {}
        for path, value in parsers.sysfs_values(body).get(nic.strip(), {}).items():
            # ecn/roce_np/enable/3 and ecn/roce_rp/enable/3: ECN is on for a priority when both are 1.
            prio = path.rsplit("/", 1)[-1]
            enabled.setdefault(int(prio), []).append(value == 1)
        parsed["ecn"] = sorted(p for p, flags in enabled.items() if len(flags) == 2 and all(flags))
        out[nic.strip()] = parsed
    return out


PARSERS = {
    "lldp": collectors.PARSERS["lldp"],
    "links": collectors.PARSERS["links"],
    "sysfs": collectors.PARSERS["sysfs"],
    "addrs": ("addrs", parsers.ip_addrs),
    "rules": ("rules", parsers.ip_rules),
    "route_tables": ("route_tables", parsers.ip_routes),
    "nic_qos": ("nic_qos", nic_qos),
}
