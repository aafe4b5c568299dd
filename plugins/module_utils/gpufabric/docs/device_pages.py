"""devices/<host>.md: one page per device with its place, addresses, interfaces (peer, addresses,
cable), BGP neighbours derived from its routed links, and the QoS profile of its backend ports."""
from ..ipam import cidr, fmt
from ..structured.context import qos_profile_name
from .markdown import table


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


def _addresses(end, text):
    return (text.addr_a, text.addr_b) if end.is_upper else (text.addr_b, text.addr_a)


def _interfaces(dev, texts):
    """Interface rows of a device."""
    ports = []
    for end in dev.ends():
        link = end.link
        text = texts[id(link)]
        own, far = _addresses(end, text)
        ports.append((end.port, link.network, "%dG" % link.speed, end.peer.name, end.peer_port, own and own + "/31",
                      far, text.cable, text.media))
    return ports


def _bgp(dev, texts):
    """BGP neighbour rows: the device's BGP sessions (the same ends its bgp config has)."""
    rows = []
    for end in dev.bgp_ends():
        own, far = _addresses(end, texts[id(end.link)])
        rows.append((end.peer.name, end.peer.asn, far, own, end.port))
    return rows


def _breakouts(dev):
    """Rows of the physical ports broken out on this switch: port, mode, its sub-ports and their peers."""
    model = dev.model
    if not getattr(model, "modes", None):
        return []
    peers = {end.port: end.peer.name for end in dev.ends()}
    rows = []
    for i, (name, _speed, _use, _form) in enumerate(model.physical.ports):
        mode = model.modes.get(name)
        if mode:
            subs = [model.ports[j][0] for j in model.logical[i]]
            rows.append((name, mode, ", ".join(subs), ", ".join(peers.get(sub, "-") for sub in subs)))
    return rows


def render_page(dev, texts, has_pods=False, qos_profile=""):
    ports = _interfaces(dev, texts)
    lines = ["# %s" % dev.name, "", table(("", ""), _facts(dev, has_pods)), "", "## Interfaces", "",
             table(("Port", "Network", "Speed", "Peer", "Peer port", "Address", "Peer address", "Cable", "Media"),
                   ports), ""]
    broken = _breakouts(dev)
    if broken:
        lines += ["## Breakouts", "", "Physical ports split into sub-ports: one transceiver (twin-port optic) or "
                  "one breakout cable per physical port.", "",
                  table(("Physical port", "Mode", "Sub-ports", "Peers"), broken), ""]
    if dev.asn is not None:
        bgp = _bgp(dev, texts)
        lines += ["## BGP neighbours", "", table(("Peer", "Peer ASN", "Peer address", "Local address", "Interface"),
                                                 bgp) if bgp else "None.", ""]
    if any(link.network == "backend" for link in dev.links):
        lines += ["## QoS", "", "Backend ports: profile `%s` (RoCEv2 lossless; the values are in the rendered "
                  "configuration)." % qos_profile, ""]
    return "\n".join(lines)


def render_device_pages(plan, cables, devices=None):
    """{docs/devices/<host>.md} for every device (of ``devices``, default the plan's; ``cables`` holds their links')."""
    texts = {id(c.link): LinkText(c) for c in cables}
    # pods exist only in three-tier networks; elsewhere every device has pod 0
    three = {"backend": plan.summary["backend"]["tiers"] >= 3,
             "frontend": plan.summary.get("frontend", {}).get("tiers") == 3}
    profile = qos_profile_name(plan.spec)
    return {"docs/devices/%s.md" % dev.name: render_page(dev, texts, three.get(dev.role.split("_")[0], False)
                                                         and dev.pod is not None, profile)
            for dev in (plan.devices if devices is None else devices)}
