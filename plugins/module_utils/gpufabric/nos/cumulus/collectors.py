"""Cumulus Linux's collectors: the switch's own output turned into the neutral facts validation checks.

FRR (``vtysh ... json``), lldpd (``lldpcli -f json``) and iproute2 (``ip -j``) are what Cumulus Linux runs,
so frr_linux's commands and parsers read them as on any switch running them; what is Cumulus' own is the NVUE configuration,
``nv config show -o json`` (the applied configuration as `- header` / `- set` documents), from which a
port's RoCE treatment is worked out as NVUE defines it (user guide 5.14, Quality of Service): the
mapping profile's ``trust l3`` classifies by DSCP into switch priorities, a switch priority goes to the
traffic class of the same number unless an egress-queue-mapping profile says otherwise, PFC is on for
the PFC profile's switch priorities, ECN for the congestion-control profile's traffic classes with
``ecn: enable``.
"""
import json

from ...device_command import Command
from ...frr_linux import collectors as frr_linux

COMMANDS = dict(frr_linux.COMMANDS, qos=Command("nv", "config show -o json"))
# How each tool is invoked over SSH on a Cumulus switch: FRR and lldpd run on the host, nv is NVUE's CLI.
SSH_TOOLS = {"vtysh": "sudo -n vtysh -c {q}", "lldpcli": "sudo -n lldpcli {text}", "nv": "nv {text}"}


def _set_tree(text):
    docs = json.loads(text)
    tree = {}
    for doc in docs if isinstance(docs, list) else [docs]:
        if isinstance(doc, dict) and isinstance(doc.get("set"), dict):
            tree.update(doc["set"])
    return tree


def _profile(qos, kind, conf):
    name = ((conf.get("qos") or {}).get(kind) or {}).get("profile")
    return (qos.get(kind) or {}).get(name) or {} if name else {}


def port_qos(tree):
    """An applied NVUE tree -> {port: {"trust", "dscp_to_tc", "pfc", "ecn"}} for every swp port."""
    qos = tree.get("qos") or {}
    out = {}
    for port, conf in (tree.get("interface") or {}).items():
        if conf.get("type") != "swp":
            continue
        mapping = _profile(qos, "mapping", conf)
        queues = _profile(qos, "egress-queue-mapping", conf)
        to_tc = {int(sp): int(v.get("traffic-class")) for sp, v in (queues.get("switch-priority") or {}).items()}
        dscp = None
        if mapping.get("trust") == "l3":
            dscp = {int(point): to_tc.get(int(v["switch-priority"]), int(v["switch-priority"]))
                    for point, v in (mapping.get("dscp") or {}).items()}
        pfc = _profile(qos, "pfc", conf)
        congestion = _profile(qos, "congestion-control", conf)
        out[port] = {"trust": "dscp" if dscp is not None else None, "dscp_to_tc": dscp,
                     "pfc": sorted(int(p) for p in (pfc.get("switch-priority") or {})),
                     "ecn": sorted(int(tc) for tc, v in (congestion.get("traffic-class") or {}).items()
                                   if v.get("ecn") == "enable")}
    return out


PARSERS = dict(frr_linux.PARSERS, qos=("qos", lambda text: port_qos(_set_tree(text))))
