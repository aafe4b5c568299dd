"""The deploy's BGP gate on a switch running FRR: what the deploy role asks vtysh (``GATE_COMMANDS``, in one call), and
FRR's JSON read as the gate's facts (bgp_gate.py); the entry points a deploy role or action of such a NOS calls
with vtysh's text.

A home whose switches run FRR gives this module as its ``bgp_gate``."""
import json

from .. import bgp_gate
from .parsers import bgp_summary

GATE_COMMANDS = ("show bgp vrf default ipv4 unicast summary json", "show bgp vrf default ipv4 unicast json")


def _path(path):
    return {"valid": path.get("valid"), "best": path.get("bestpath") or path.get("best"),
            "suppressed": path.get("suppressed"), "peerId": path.get("peerId")}


def observe(text):
    """vtysh's output of GATE_COMMANDS -> the gate's facts ({"peers", "routes"}), None when it printed no JSON."""
    docs = bgp_gate.json_documents(text)   # a vtysh call with several -c prints them one after another
    if not docs:
        return None
    peers = bgp_summary(json.dumps(docs[0]))["peers"]
    routes = (docs[1].get("routes") if len(docs) > 1 else None) or {}
    return {"peers": peers, "routes": {prefix: [_path(p) for p in paths or ()] for prefix, paths in routes.items()}}


def sessions(summary_text):
    """{peer address: state} from ``vtysh -c 'show bgp summary json'``; anything that is not such a
    summary (bgpd not running yet, an error text) has no peers."""
    try:
        peers = bgp_summary(summary_text)["peers"]
    except (ValueError, AttributeError, TypeError):
        return {}
    return {addr: peer["state"] for addr, peer in peers.items()}


def established_sessions(summary_text):
    """Peer addresses in state Established, from ``vtysh -c 'show bgp summary json'``."""
    return sorted(addr for addr, state in sessions(summary_text).items() if state == "Established")


def required_sessions(planned, summary_before, gate="auto", variable="bgp_gate"):
    """bgp_gate.required_sessions with the sessions before the change read from vtysh's summary."""
    return bgp_gate.required_sessions(planned, sessions(summary_before), gate, variable)


def problems(text, cfg, required, peer_cfgs=(), own=True):
    """bgp_gate.problems of vtysh's output of GATE_COMMANDS."""
    return bgp_gate.problems(observe(text), cfg, required, peer_cfgs, own)


deploy_gate = bgp_gate.deploy_gate
