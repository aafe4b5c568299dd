"""eBGP to every fabric neighbour (RFC 7938): one session per routed link, multipath-relax, BFD, fast timers.

max-paths is the widest ECMP a destination can have from this switch: all its uplinks, or the
parallel links to one neighbour below, whichever is larger.
"""
from collections import Counter

from ..ipam import cidr, fmt

# RFC 7938 section 6.1 suggests fast timers where BFD is unavailable; with BFD they are a second line.
KEEPALIVE_S, HOLD_S = 3, 9
BFD = {"profile": "fabric", "min_rx_ms": 300, "min_tx_ms": 300, "multiplier": 3}


def _max_paths(ends):
    uplinks = sum(1 for end in ends if not end.is_upper)
    below = Counter(end.peer.name for end in ends if end.is_upper)
    return max([uplinks, 1] + list(below.values()))


def bgp_config(dev, own_ipv4_networks=(), summaries=(), allowas_in=0):
    """Neighbours on every routed switch-to-switch link of ``dev``.

    ``own_ipv4_networks`` are announced as they are (the loopback, a frontend server subnet);
    ``summaries`` are aggregates announced instead of the connected /31s they cover (a leaf's
    server-link block), and withdrawn when none of those links is up.
    """
    ends = dev.bgp_ends()
    neighbors = []
    for end in ends:
        peer = end.peer
        neighbors.append({"ip": end.peer_ipv4, "remote_as": peer.asn, "peer": peer.name,
                          "peer_interface": end.peer_port, "interface": end.port, "local_ip": end.ipv4.split("/")[0],
                          "description": "%s %s" % (peer.name, end.peer_port)})
    return {
        "asn": dev.asn,
        "router_id": fmt(dev.loopback),
        "multipath_relax": True,
        "max_paths": _max_paths(ends),
        "timers": {"keepalive": KEEPALIVE_S, "hold": HOLD_S},
        "bfd": dict(BFD),
        "allowas_in": allowas_in,
        "networks": [cidr(dev.loopback, 32)] + list(own_ipv4_networks),
        "summaries": list(summaries),
        "neighbors": neighbors,
    }
