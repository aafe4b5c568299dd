"""Front-panel ports of a switch: speed, FEC, MTU, a description naming the peer, /31s, cable length.

Every port of the model is listed so that a port nobody cabled is explicitly shut, not left at the
platform default.
"""
from ..ipam import cidr

# Layout constants for estimating cable runs (lossless buffer headroom grows with cable length).
RACK_WIDTH_M = 0.6
ROW_PITCH_M = 3.0      # rack depth plus one aisle
SAME_RACK_M = 3
VERTICAL_SLACK_M = 5   # up to the tray and down again, plus a service loop
OOB_MTU = 1500


def fec_for(speed_gbps):
    """RS-FEC is mandatory for PAM4 lanes (50G and up) and the norm for 25G optics; slower ports run none."""
    return "rs" if speed_gbps >= 25 else "none"


def cable_length_m(a, b):
    """Estimated cable length between two racks; rows are scalable units, the core row is -1."""
    if a is b:
        return SAME_RACK_M
    rows = abs(a.row - b.row)
    if rows == 0:
        run = abs(a.column - b.column) * RACK_WIDTH_M
    else:
        run = (a.column + b.column) * RACK_WIDTH_M + rows * ROW_PITCH_M
    return int(run + VERTICAL_SLACK_M + 0.999)


def link_end(link, dev):
    """(own port, peer device, peer port, own /31 address or None, own /127 or None) of ``dev`` on ``link``."""
    if link.a is dev:
        own, peer, peer_port, offset = link.a_port, link.b, link.b_port, 0
    else:
        own, peer, peer_port, offset = link.b_port, link.a, link.a_port, 1
    ipv4 = cidr(link.ipv4 + offset, 31) if link.ipv4 is not None else None
    ipv6 = cidr(link.ipv6 + offset, 127, 6) if link.ipv6 is not None else None
    return own, peer, peer_port, ipv4, ipv6


def _mtu(spec, network):
    section = spec.get(network) if network != "oob" else None
    return section["mtu"] if section else OOB_MTU


def ethernet_interfaces(dev, spec, network):
    """One entry per front-panel port, cabled ones with peer, peer_interface, tier and addresses."""
    cabled = {}
    for link in dev.links:
        own, peer, peer_port, ipv4, ipv6 = link_end(link, dev)
        entry = {"name": own, "description": "%s %s" % (peer.name, peer_port), "enabled": True,
                 "peer": peer.name, "peer_interface": peer_port, "network": link.network,
                 "tier": link.tier, "speed_gbps": link.speed, "fec": fec_for(link.speed),
                 "mtu": _mtu(spec, link.network),
                 "cable_length_m": cable_length_m(dev.rack, peer.rack)}
        if ipv4:
            entry["ipv4"] = ipv4
        if ipv6:
            entry["ipv6"] = ipv6
        cabled[own] = entry
    out = []
    for name, speed, use, _form in dev.model.ports:
        out.append(cabled.get(name) or {
            "name": name, "description": "unused (%s)" % use, "enabled": False, "peer": None,
            "peer_interface": None, "network": network, "tier": None, "speed_gbps": speed, "fec": fec_for(speed),
            "mtu": _mtu(spec, network)})
    return out
