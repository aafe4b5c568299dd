"""The deploy's BGP gate on an EOS switch: what the deploy asks over eAPI (``GATE_COMMANDS``, in one runCmds call,
JSON), and EOS's answer read as the gate's facts (bgp_gate.py).

The field names are EOS's eAPI JSON as Arista documents it (EOS User Manual, "BGP" show commands, and the eAPI
command reference of ``show ip bgp summary`` / ``show ip bgp``): the summary's ``vrfs.<vrf>.peers.<address>``
with ``peerState`` (an Idle peer's ``peerStateIdleReason``: ``Admin`` when shut down, read as FRR words it,
``Idle (Admin)``) and ``prefixReceived``; the table's ``vrfs.<vrf>.bgpRouteEntries.<prefix>.bgpRoutePaths``, each
path with ``routeType`` (``valid``, ``active``: the best path, ``suppressed``) and ``peerEntry.peerAddr`` (absent,
empty or 0.0.0.0 for the switch's own)."""
from ... import bgp_gate

GATE_COMMANDS = ("show ip bgp summary", "show ip bgp")


def documents(text):
    """The JSON documents of a gate read: one JSON list of runCmds results, or documents one after another."""
    if isinstance(text, (list, dict)):
        return list(text) if isinstance(text, list) else [text]
    docs = bgp_gate.json_documents(text)
    if len(docs) == 1 and isinstance(docs[0], list):
        return docs[0]
    return docs


def _vrf(doc, vrf="default"):
    if not isinstance(doc, dict):
        return {}
    return ((doc.get("vrfs") or {}).get(vrf)) or {}


def summary(doc):
    """`show ip bgp summary` (a JSON document) -> {"local_as", "peers": {address: {state, remote_as,
    prefixes_received, hostname}}}, the neutral bgp fact (frr_linux's parsers give the same keys)."""
    data = _vrf(doc)
    peers = {}
    for addr, peer in (data.get("peers") or {}).items():
        if not isinstance(peer, dict):
            continue
        asn = peer.get("asn")
        state, reason = peer.get("peerState"), peer.get("peerStateIdleReason")
        if state == "Idle" and reason:    # EOS's why: Admin (neighbor ... shutdown), NoInterface, MaxPath, ...
            state = "Idle (%s)" % reason
        peers[addr] = {"state": state,
                       "remote_as": int(asn) if str(asn or "").isdigit() else asn,
                       "prefixes_received": peer.get("prefixReceived", peer.get("prefixAccepted")),
                       "hostname": peer.get("description")}
    asn = data.get("asn")
    return {"local_as": int(asn) if str(asn or "").isdigit() else asn, "peers": peers}


def _path(path):
    kind = path.get("routeType") or {}
    peer = (path.get("peerEntry") or {}).get("peerAddr")
    out = {"valid": kind.get("valid"), "best": kind.get("active"), "suppressed": kind.get("suppressed")}
    if peer and peer != "0.0.0.0":
        out["peerId"] = peer
    return out


def table(doc):
    """`show ip bgp` (a JSON document) -> {prefix: [path]}, the gate's routes."""
    entries = _vrf(doc).get("bgpRouteEntries") or {}
    return {prefix: [_path(p) for p in (entry or {}).get("bgpRoutePaths") or () if isinstance(p, dict)]
            for prefix, entry in entries.items()}


def observe(text):
    """The answers to GATE_COMMANDS -> the gate's facts ({"peers", "routes"}), None when there is no summary."""
    docs = documents(text)
    if not docs or not isinstance(docs[0], dict) or "vrfs" not in docs[0]:
        return None
    return {"peers": summary(docs[0])["peers"], "routes": table(docs[1]) if len(docs) > 1 else {}}


def sessions(summary_text):
    """{peer address: state} from the answer to ``show ip bgp summary``; anything else has no peers."""
    docs = documents(summary_text)
    if not docs:
        return {}
    return {addr: peer["state"] for addr, peer in summary(docs[0])["peers"].items()}


def problems(text, cfg, required, peer_cfgs=(), own=True):
    """bgp_gate.problems of the answers to GATE_COMMANDS."""
    return bgp_gate.problems(observe(text), cfg, required, peer_cfgs, own)


deploy_gate = bgp_gate.deploy_gate
