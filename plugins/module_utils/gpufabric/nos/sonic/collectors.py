"""SONiC's collectors: the switch's own command output turned into the neutral facts validation checks.

``COMMANDS`` maps an observation to the command that reads it (``Command(tool, text)``; the ``native`` tool runs a
NOS's own command in the switch's shell, with what the NOS gives it), ``PARSERS`` an observation to (its fact,
parser). SONiC runs FRR, lldpd and iproute2, so those observations are frr_linux's; ``qos`` is SONiC's own, read
from CONFIG_DB. Checks name the fact (``qos``), never the SONiC source it comes from.
"""
import json
import re

from ...device_command import Command
from ...frr_linux import collectors as frr_linux
from ...frr_linux.parsers import sysfs_values
from .ranges import from_ranges

# ``sysfs``: the kernel's carrier changes of each port (flaps), and what the switch itself says of its ports, `show
# interfaces status` (sonic-utilities scripts/intfutil, from APPL_DB and STATE_DB PORT_TABLE): oper and admin state
# and the speed, which a SONiC port's netdev does not carry.
COMMANDS = dict(frr_linux.COMMANDS, qos=Command("native", "sonic-cfggen -d --print-data"),
                sysfs=Command("native", "grep -H . /sys/class/net/Ethernet*/carrier_changes 2>/dev/null; "
                                        "show interfaces status"))
# How each tool is invoked over SSH on a SONiC switch: lldpcli lives in its lldp container, FRR in bgp.
SSH_TOOLS = {"vtysh": "sudo -n vtysh -c {q}", "lldpcli": "docker exec lldp lldpcli {text}", "native": "{text}"}


def _csv_ints(value):
    return sorted(int(x) for x in str(value or "").replace(" ", "").split(",") if x.isdigit())


def config_db_qos(config_db):
    """SONiC config_db (dict) -> {port: {"trust", "dscp_to_tc", "pfc", "ecn"}}: what each port does with
    RoCE. ``ecn`` lists the queues whose WRED profile marks ECN; ``pfc`` the priorities with PFC on."""
    maps = config_db.get("DSCP_TO_TC_MAP", {})
    wred = config_db.get("WRED_PROFILE", {})
    ecn_queues = {}
    for key, queue in config_db.get("QUEUE", {}).items():
        port, _sep, qids = key.partition("|")
        profile = wred.get(queue.get("wred_profile"), {})
        if profile.get("ecn", "ecn_none") != "ecn_none":
            for qid in from_ranges(qids):
                ecn_queues.setdefault(port, set()).add(qid)
    out = {}
    for port, qos in config_db.get("PORT_QOS_MAP", {}).items():
        if port == "global":
            continue
        dscp = maps.get(qos.get("dscp_to_tc_map"))
        out[port] = {"trust": "dscp" if dscp else None,
                     "dscp_to_tc": {int(k): int(v) for k, v in dscp.items()} if dscp else None,
                     "pfc": _csv_ints(qos.get("pfc_enable")),
                     "ecn": sorted(ecn_queues.get(port, ()))}
    for port in config_db.get("PORT", {}):
        out.setdefault(port, {"trust": None, "dscp_to_tc": None, "pfc": [], "ecn": sorted(ecn_queues.get(port, ()))})
    return out


def speed_mbps(text):
    """intfutil's speed ("400G", "2.5G", "100M") in Mb/s, or None ("N/A")."""
    found = re.fullmatch(r"(\d+(?:\.\d+)?)([GM])", (text or "").strip())
    if not found:
        return None
    return int(round(float(found.group(1)) * (1000 if found.group(2) == "G" else 1)))


def interfaces_status(text):
    """`show interfaces status` -> {port: {"oper_up", "admin_up", "speed" (Mb/s or None), "mtu"}} for its Ethernet
    rows (PortChannels and sub-ports are not ports of the plan). The table is tabulate's: a header line, a rule of
    dashes whose runs give each column's span, one row per port; the columns are found by their names (releases
    differ: FEC, Vlan, Type and Asym PFC came later) and a cell may hold spaces (Type "QSFP28 or later")."""
    lines = (text or "").splitlines()
    start = next((i for i, line in enumerate(lines) if line.split()[:1] == ["Interface"]), None)
    if start is None or start + 1 >= len(lines) or set(lines[start + 1].strip()) != {"-", " "}:
        raise ValueError("no `show interfaces status` table")
    spans = [m.span() for m in re.finditer(r"-+", lines[start + 1])]
    names = [lines[start][a:b].strip() for a, b in spans]
    missing = {"Interface", "Speed", "Oper", "Admin"} - set(names)
    if missing:
        raise ValueError("`show interfaces status` has no column %s" % ", ".join(sorted(missing)))
    out = {}
    for line in lines[start + 2:]:
        cells = dict(zip(names, (line[a:b].strip() for a, b in spans)))
        if not re.fullmatch(r"Ethernet\d+", cells.get("Interface", "")):
            continue
        mtu = cells.get("MTU", "")
        out[cells["Interface"]] = {"speed": speed_mbps(cells["Speed"]), "mtu": int(mtu) if mtu.isdigit() else None,
                                   "oper_up": cells["Oper"] == "up", "admin_up": cells["Admin"] == "up"}
    return out


def ports(text):
    """The ``sysfs`` fact of a SONiC switch: each port's carrier changes (the kernel's) and what the switch says
    of it (interfaces_status), its speed marked as the switch's own report."""
    out = {name: dict(values) for name, values in sysfs_values(text).items()}
    for name, port in interfaces_status(text).items():
        out.setdefault(name, {}).update(port, reported=True)
    return out


PARSERS = dict(frr_linux.PARSERS, qos=("qos", lambda text: config_db_qos(json.loads(text))),
               sysfs=("sysfs", ports))
