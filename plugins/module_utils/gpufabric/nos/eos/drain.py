"""Draining a running EOS switch without a reload: the EOS configuration lines that drain or undrain it, and the
line of its running config that shows it is drained (day2/drain.py decides what a drain is). They are the lines
AVD renders from the structured config's ``bgp.drain`` (avd_input.bgp: the route-map, outbound on the FABRIC peer
group in the IPv4 address family), so a drained switch's running config and its drained build agree."""
from ...day2.drain import DRAIN_ROUTE_MAP, drain_config
from .avd_input import PEER_GROUP

# The line of EOS's running config (under router bgp, address-family ipv4) that tells a switch is drained now.
RUNNING_MARKER = "neighbor %s route-map %s out" % (PEER_GROUP, DRAIN_ROUTE_MAP)


def commands(bgp, drain=True):
    """EOS configuration commands (one configuration session's body, between ``configure`` and ``end``) that drain
    or undrain a running switch."""
    block = drain_config(bgp["asn"])
    out = ["configure"]
    if drain:
        out += ["route-map %s permit 10" % block["route_map"],
                "set as-path prepend %s" % " ".join(str(a) for a in block["prepend"]),
                "set community %s additive" % block["community"], "exit"]
    out += ["router bgp %s" % bgp["asn"], "address-family ipv4", ("" if drain else "no ") + RUNNING_MARKER,
            "exit", "exit"]
    if not drain:
        # The one entry the drain made (EOS removes a route-map's entry by its action and sequence).
        out.append("no route-map %s permit 10" % block["route_map"])
    return out + ["end"]
