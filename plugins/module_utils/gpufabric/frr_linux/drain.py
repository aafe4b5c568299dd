"""Draining a running switch whose routing is FRR's: the vtysh lines that drain or undrain it without a reload, and
the line of its running configuration that shows it is drained. A home whose switches run FRR gives this module as
its ``drain`` (day2/drain.py decides what a drain is: route map, prepends, community)."""
from ..day2.drain import DRAIN_ROUTE_MAP, drain_config

# The line of FRR's running configuration that tells a switch is drained now.
RUNNING_MARKER = "neighbor FABRIC route-map %s out" % DRAIN_ROUTE_MAP


def commands(bgp, drain=True):
    """vtysh configuration commands that drain (or undrain) a running switch without a reload; the same
    lines frr.conf.j2 renders for a drained switch, so a later reload of a drained build changes nothing."""
    block = drain_config(bgp["asn"])
    out = ["configure terminal"]
    if drain:
        out += ["route-map %s permit 10" % block["route_map"],
                "set as-path prepend %s" % " ".join(str(a) for a in block["prepend"]),
                "set community %s additive" % block["community"], "exit"]
    out += ["router bgp %s" % bgp["asn"], "address-family ipv4 unicast",
            ("" if drain else "no ") + RUNNING_MARKER,
            "exit-address-family", "exit"]
    if not drain:
        out.append("no route-map %s" % block["route_map"])
    return out + ["end"]
