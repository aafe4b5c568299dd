"""devices/<host>.md: one page per device with its place, addresses, interfaces (peer, addresses,
cable), BGP neighbours derived from its routed links, and the QoS profile of its backend ports."""
from ..ipam import cidr, fmt
from .markdown import table

# The switch-configuration role owns the QoS data; pages only name its profile.
QOS_PROFILE = "roce_lossless"


def _facts(dev, has_pods):
    rows = [("Role", dev.role), ("Model", "%s: %s" % (dev.model.name, dev.model.description)),
            ("Rack", "%s, slot %s" % (dev.rack.name, "-" if dev.slot is None else dev.slot + 1))]
    for label, value in (("Rail", dev.rail), ("Scalable unit", None if dev.su is None else dev.su + 1),
                         ("Pod", dev.pod + 1 if has_pods else None),
                         ("ASN", dev.asn)):
        if value is not None:
            rows.append((label, value))
    for label, value in (("Loopback", dev.loopback), ("Management", dev.mgmt), ("BMC", dev.bmc)):
        if value is not None:
            rows.append((label, fmt(value)))
    if dev.server_block is not None:
        rows.append(("Server-link summary", cidr(*dev.server_block)))
    if dev.frontend_ip is not None:
        rows.append(("Frontend address", cidr(dev.frontend_ip, dev.frontend_block[1])))
    return rows


class LinkText:
    """What both pages of a link show, formatted once: cable ID, media, and the address of each end
    (end a holds the base of the /31, end b base + 1)."""

    __slots__ = ("cable", "media", "addr_a", "addr_b")

    def __init__(self, cable):
        link = cable.link
        self.cable = cable.id
        self.media = "%s %g m" % (cable.media["name"], cable.stock)
        routed = link.ipv4 is not None
        self.addr_a = fmt(link.ipv4) if routed else ""
        self.addr_b = fmt(link.ipv4 + 1) if routed else ""


def _interfaces(dev, texts):
    """(interface rows, BGP neighbour rows) of a device: a neighbour for every routed link whose
    far end has an ASN (servers have none: they do not run BGP)."""
    ports, bgp = [], []
    for link in dev.links:
        text = texts[id(link)]
        if link.a is dev:
            port, peer, peer_port, own, far = link.a_port, link.b, link.b_port, text.addr_a, text.addr_b
        else:
            port, peer, peer_port, own, far = link.b_port, link.a, link.a_port, text.addr_b, text.addr_a
        ports.append((port, link.network, "%dG" % link.speed, peer.name, peer_port, own and own + "/31", far,
                      text.cable, text.media))
        if own and dev.asn is not None and peer.asn is not None:
            bgp.append((peer.name, peer.asn, far, own, port))
    return ports, bgp


def render_page(dev, texts, has_pods=False):
    ports, bgp = _interfaces(dev, texts)
    lines = ["# %s" % dev.name, "", table(("", ""), _facts(dev, has_pods)), "", "## Interfaces", "",
             table(("Port", "Network", "Speed", "Peer", "Peer port", "Address", "Peer address", "Cable", "Media"),
                   ports), ""]
    if dev.asn is not None:
        lines += ["## BGP neighbours", "", table(("Peer", "Peer ASN", "Peer address", "Local address", "Interface"),
                                                 bgp) if bgp else "None.", ""]
    if any(link.network == "backend" for link in dev.links):
        lines += ["## QoS", "", "Backend ports: profile `%s` (RoCEv2 lossless; the values are in the rendered "
                  "configuration)." % QOS_PROFILE, ""]
    return "\n".join(lines)


def render_device_pages(plan, cables):
    """{docs/devices/<host>.md} for every device."""
    texts = {id(c.link): LinkText(c) for c in cables}
    # pods exist only in three-tier networks; elsewhere every device has pod 0
    three = {"backend": plan.summary["backend"]["tiers"] == 3,
             "frontend": plan.summary.get("frontend", {}).get("tiers") == 3}
    return {"docs/devices/%s.md" % dev.name: render_page(dev, texts, three.get(dev.role.split("_")[0], False)
                                                         and dev.pod is not None)
            for dev in plan.devices}
