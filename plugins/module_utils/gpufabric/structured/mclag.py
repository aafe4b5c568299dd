"""Frontend leaf pairs as MC-LAG: one LACP bond per server across both leaves, a peer link, and the
server subnet's gateway on both leaves (see docs/switch-config.md for why MC-LAG, not EVPN multihoming).
"""
from ..ipam import cidr, fmt

SERVER_VLAN = 100
# The peer link is LAG number 1; server bonds are LAG 101, 102, ... by the server's position in the
# pair, so both leaves give a server's bond the same name, which MC-LAG requires. The NOS names
# them (platform fact `lag`, e.g. PortChannel1 and PortChannel101).
PEER_LINK_NUMBER = 1
SERVER_CHANNEL_BASE = 101
KEEPALIVE_S, SESSION_TIMEOUT_S = 1, 15


def _pair_partner(dev):
    for link in dev.links:
        if link.tier == "peer":
            return link.b if link.a is dev else link.a
    return None


def _channel(name, members, peer, peer_interface, description, mtu, mclag):
    return {"name": name, "members": members, "peer": peer, "peer_interface": peer_interface,
            "description": description, "mtu": mtu, "min_links": 1, "lacp": "active", "mclag": mclag}


def mclag_config(dev, interfaces):
    """(port_channels, vlans, mclag) of a frontend leaf; tags each member port with its channel_group."""
    lag = dev.model.platform["lag"]
    # A NOS whose MC-LAG peer link has a fixed name states it (platform fact `peer_link`).
    peer_link = dev.model.platform.get("peer_link") or lag.format(number=PEER_LINK_NUMBER)
    partner = _pair_partner(dev)
    servers = [i for i in interfaces if i["tier"] == "server"]
    peer_ports = [i for i in interfaces if i["tier"] == "peer"]
    channels = []
    for k, port in enumerate(servers):
        name = lag.format(number=SERVER_CHANNEL_BASE + k)
        port["channel_group"] = name
        channels.append(_channel(name, [port["name"]], port["peer"], "bond (%s)" % port["peer_interface"],
                                 "%s bond" % port["peer"], port["mtu"], True))
    for port in peer_ports:
        port["channel_group"] = peer_link
    if partner is not None and peer_ports:
        channels.insert(0, _channel(peer_link, [p["name"] for p in peer_ports], partner.name, peer_link,
                                    "MC-LAG peer link to %s" % partner.name, peer_ports[0]["mtu"], False))
    base, prefix = dev.frontend_block
    vlan = {"id": SERVER_VLAN, "name": "servers",
            "untagged": [c["name"] for c in channels if c["mclag"]],
            "tagged": [peer_link] if partner is not None and peer_ports else [],
            "ipv4": cidr(dev.frontend_ip, prefix),
            # Both leaves answer for the gateway (anycast), so a server bond loses no gateway with one leaf.
            "virtual_gateway": cidr(base + 1, prefix),
            "virtual_gateway_mac": "02:00:00:%02x:%02x:%02x" % ((dev.asn >> 16) & 255, (dev.asn >> 8) & 255, dev.asn & 255),
            "unique_ip": True}
    mclag = None
    if partner is not None:
        # Keepalives run loopback to loopback over the spines, so they survive a peer-link failure
        # and each leaf can tell "peer link down" from "peer down".
        mclag = {"domain_id": dev.index // 2 + 1, "role": "active" if dev.side == "a" else "standby",
                 "peer": partner.name, "source_ip": fmt(dev.loopback), "peer_ip": fmt(partner.loopback),
                 "peer_link": peer_link, "keepalive_interval_s": KEEPALIVE_S, "session_timeout_s": SESSION_TIMEOUT_S,
                 "members": [c["name"] for c in channels if c["mclag"]]}
    return channels, [vlan], mclag
