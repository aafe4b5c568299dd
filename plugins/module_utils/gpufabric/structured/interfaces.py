"""Front-panel ports of a switch: speed, FEC, MTU, a description naming the peer, /31s, cable length.

Every port of the model is listed so that a port nobody cabled is explicitly shut, not left at the
platform default. The cable length is the stock length the cabling plan orders for the link
(plan/cables.py): it sizes the port's PFC headroom.
"""
from ..spec import port_mtu


def fec_for(speed_gbps):
    """RS-FEC is mandatory for PAM4 lanes (50G and up) and the norm for 25G optics; slower ports run none."""
    return "rs" if speed_gbps >= 25 else "none"


def ethernet_interfaces(dev, plan, network):
    """One entry per front-panel port, cabled ones with peer, peer_interface, tier and addresses."""
    spec = plan.spec
    cabled = {}
    for end in dev.ends():
        link = end.link
        entry = {"name": end.port, "description": "%s %s" % (end.peer.name, end.peer_port), "enabled": True,
                 "peer": end.peer.name, "peer_interface": end.peer_port, "network": link.network,
                 "tier": link.tier, "speed_gbps": link.speed, "fec": fec_for(link.speed),
                 "mtu": port_mtu(spec, link.network, False),
                 "cable_length_m": plan.cable_lengths.of(link)[1]}
        if link.ipv4 is not None:
            entry["ipv4"] = end.ipv4
        if link.ipv6 is not None:
            entry["ipv6"] = end.ipv6
        cabled[end.port] = entry
    out = []
    parents = getattr(dev.model, "parent", None) or [None] * len(dev.model.ports)
    for (name, speed, use, _form), parent in zip(dev.model.ports, parents):
        entry = cabled.get(name) or {
            "name": name, "description": "unused (%s)" % use, "enabled": False, "peer": None,
            "peer_interface": None, "network": network, "tier": None, "speed_gbps": speed, "fec": fec_for(speed),
            "mtu": port_mtu(spec, network, False)}
        if parent:
            # a sub-port of a broken-out cage: the cage (physical port), the mode, its place in the cage
            entry["breakout"] = {"port": parent[1], "mode": parent[4], "sub": parent[2], "of": parent[3]}
        out.append(entry)
    return out


def breakouts(dev):
    """{physical port: breakout mode} of every front-panel cage of a switch whose tier breaks ports out
    (the broken ones' modes, the others' whole-port mode such as 1x800G), or None: no cage is broken out."""
    model = dev.model
    if not getattr(model, "modes", None):
        return None
    physical = model.physical
    out = {}
    for i, (name, speed, _use, _form) in enumerate(physical.ports):
        mode = model.modes.get(name) or physical.find_mode(i, 1, speed)
        if mode:
            out[name] = mode
    return out
