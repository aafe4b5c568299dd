"""SONiC's collectors: the switch's own command output turned into the neutral facts validation checks.

``COMMANDS`` maps an observation to the command that reads it (``Command(tool, text)``; the ``native`` tool runs a
NOS's own command in the switch's shell, with what the NOS gives it), ``PARSERS`` an observation to (its fact,
parser). SONiC runs FRR, lldpd and iproute2, so those observations are frr_linux's; ``qos`` is SONiC's own, read
from CONFIG_DB. Checks name the fact (``qos``), never the SONiC source it comes from.
"""
import json

from ...device_command import Command
from ...frr_linux import collectors as frr_linux
from .ranges import from_ranges

COMMANDS = dict(frr_linux.COMMANDS, qos=Command("native", "sonic-cfggen -d --print-data"))
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


PARSERS = dict(frr_linux.PARSERS, qos=("qos", lambda text: config_db_qos(json.loads(text))))
