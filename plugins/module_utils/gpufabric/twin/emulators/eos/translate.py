"""What a committed EOS configuration does to the switch's namespace on the twin: the ports' MTU, addresses and admin
state, the loopback's addresses, and the FRR configuration that stands in for EOS's routing agents (FRR 8.4 runs in
each switch's namespace, as for the other NOSes' switches).

Taking effect here: ``hostname``; ``interface EthernetN/M`` (``shutdown``, ``mtu`` on a routed port, ``no switchport``
with ``ip address``); ``interface LoopbackN`` (``ip address``); ``ip prefix-list``; ``route-map`` (``match ip address
prefix-list``, ``match community``, ``set as-path prepend``, ``set community``); ``router bgp`` (``router-id``, ``no bgp
default ipv4-unicast``, ``maximum-paths``, ``bgp bestpath as-path multipath-relax``, peer groups, neighbours with
``remote-as``, ``description``, ``timers``, ``shutdown``, ``bfd`` at bfdd's defaults, ``allowas-in``, ``route-map``,
``send-community``, ``aggregate-address``, ``redistribute connected``, ``network``, ``address-family ipv4``
``activate``); tenant VRFs (``vrf instance``, an interface's ``vrf``, ``router bgp`` ``vrf``, ``router general`` ``leak
routes``: vrfs.py). Every other known line (QoS, PFC, speeds, FEC, ACLs on management, SNMP, NTP, logging, AAA, LLDP
timers, VRF MGMT) is kept in the running-config and has no effect. What the twin cannot run raises Unsupported.

EOS defaults followed (EOS user manual): an Ethernet port is enabled (``no shutdown``) and a switchport unless ``no
switchport``; a routed port's MTU is 1500 unless ``mtu``; an IP address on a switchport is refused by EOS, so a
switchport carries none here.
"""
import ipaddress
import re

from .unsupported import Unsupported  # noqa: F401  (acl.py and eapi.py take it from here)
from .vrfs import leak_lines, leak_route_maps, vrf_blocks

EOS_L3_MTU = 1500


def _lines(node):
    return [c.line for c in node.children] if node is not None else []


def _value(node, prefix):
    for line in _lines(node):
        if line.startswith(prefix + " "):
            return line[len(prefix) + 1:]
    return None


def interfaces(config):
    """{name: {"mtu", "addrs", "up", "routed", "description"}} of the interfaces the configuration names."""
    out = {}
    for block in config.blocks("interface "):
        name = block.line.split()[1]
        lines = _lines(block)
        routed = "no switchport" in lines or not name.startswith(("Ethernet", "Port-Channel"))
        address = _value(block, "ip address")
        addrs = []
        if address and address != "dhcp":
            try:
                ipaddress.ip_interface(address)
            except ValueError:
                raise Unsupported("interface %s: ip address %s" % (name, address))
            addrs = [address]
        mtu = _value(block, "mtu")
        out[name] = {"mtu": int(mtu) if mtu else EOS_L3_MTU, "addrs": addrs if routed else [],
                     "up": "shutdown" not in lines, "routed": routed, "description": _value(block, "description") or "",
                     "dhcp": address == "dhcp", "vrf": _value(block, "vrf"), "speed": _value(block, "speed")}
    return out


def hostname(config, default="localhost"):
    for line in _lines(config.root):
        if line.startswith("hostname "):
            return line.split()[1]
    return default


def _prefix_lists(config):
    lines = []
    for block in config.root.children:
        words = block.line.split()
        if words[:2] != ["ip", "prefix-list"]:
            continue
        if len(words) > 3:
            lines.append(block.line)
        for child in block.children:
            lines.append("ip prefix-list %s %s" % (words[2], child.line))
    return lines + (["!"] if lines else [])


def _route_maps(config):
    lines = []
    for block in config.blocks("route-map "):
        words = block.line.split()
        if len(words) != 4:
            raise Unsupported("%s: a route-map entry needs permit|deny and a sequence number" % block.line)
        lines.append(block.line)
        for line in _lines(block):
            if line.startswith(("match ip address prefix-list ", "match community ", "set community ",
                                "set as-path prepend ")):
                lines.append(" " + line)
            elif line.startswith("description "):
                continue
            else:
                raise Unsupported("%s: %s has no FRR form on the twin" % (block.line, line))
        lines += ["exit", "!"]
    return lines


def _community_lists(config):
    lines = []
    for line in _lines(config.root):
        m = re.match(r"ip community-list (?:standard )?(\S+) (permit|deny) (.+)", line)
        if m:
            lines.append("bgp community-list standard %s seq %d %s %s" % (m.group(1), 5 * (len(lines) + 1), m.group(2),
                                                                          m.group(3)))
    return lines + (["!"] if lines else [])


BFD_DEFAULTS = ("300", "300", "3")


def _neighbor(name, rest, line, neighbors, order, groups, af_lines):
    """One ``neighbor`` line of ``router bgp`` into FRR's lines: the peer's own (``neighbors``) and its address
    family's (``af_lines``)."""
    if name not in neighbors:
        neighbors[name] = []
        order.append(name)
    if rest == ["peer", "group"]:
        groups.add(name)
        neighbors[name].append(("0", " neighbor %s peer-group" % name))
    elif rest[:2] == ["peer", "group"]:
        neighbors[name].append(("2", " neighbor %s peer-group %s" % (name, rest[2])))
    elif rest[0] == "remote-as":
        neighbors[name].append(("1", " neighbor %s remote-as %s" % (name, rest[1])))
    elif rest[0] == "description":
        neighbors[name].append(("3", " neighbor %s description %s" % (name, " ".join(rest[1:]))))
    elif rest[0] == "timers":
        neighbors[name].append(("4", " neighbor %s timers %s %s" % (name, rest[1], rest[2])))
    elif rest == ["bfd"]:
        neighbors[name].append(("5", " neighbor %s bfd" % name))
    elif rest[0] == "bfd":
        timers = (rest[2], rest[4], rest[6])
        if timers != BFD_DEFAULTS:
            raise Unsupported("router bgp: %s: only bfdd's default timers (interval 300 min-rx 300 multiplier 3) "
                              "on the twin" % line)
    elif rest == ["shutdown"]:
        # EOS keeps the peer configured and down (``show ip bgp summary``: Idle, reason Admin); FRR says the same.
        neighbors[name].append(("6", " neighbor %s shutdown" % name))
    elif rest[0] == "send-community":
        return     # FRR sends communities unless told not to
    elif rest[0] == "allowas-in":
        count = rest[1] if len(rest) > 1 else "3"
        af_lines.append(("6" + name, "  neighbor %s allowas-in%s" % (name, "" if count == "3" else " " + count)))
    elif rest[0] == "route-map":
        af_lines.append(("7" + name + rest[2], "  neighbor %s route-map %s %s" % (name, rest[1], rest[2])))
    else:
        raise Unsupported("router bgp: %s has no FRR form on the twin" % line)


def _address_family(child):
    """FRR's address-family lines of one mode under ``router bgp`` (``address-family ipv4``; a tenant VRF's is refused)."""
    af_lines = []
    if child.line == "address-family ipv4":
        for line in _lines(child):
            words = line.split()
            if words[0] == "neighbor" and words[2] == "activate":
                af_lines.append(("5" + words[1], "  neighbor %s activate" % words[1]))
            elif words[0] == "neighbor" and words[2] == "route-map":
                af_lines.append(("7" + words[1] + words[4], "  neighbor %s route-map %s %s"
                                 % (words[1], words[3], words[4])))
            elif words[0] == "network":
                af_lines.append(("1", "  " + line))
            elif line.startswith("no neighbor "):
                continue
            else:
                raise Unsupported("router bgp address-family ipv4: %s has no FRR form on the twin" % line)
    return af_lines


def _address_key(name):
    """Peers in FRR's order: by address, numerically (a peer group's name first)."""
    try:
        return (0, int(ipaddress.ip_address(name)), name)
    except ValueError:
        return (1, 0, name)


def _bgp(config):
    blocks = config.blocks("router bgp ")
    if not blocks:
        return []
    if "ip routing" not in _lines(config.root):
        return []      # EOS runs no routing protocol without ip routing
    block = blocks[0]
    asn = block.line.split()[2]
    top, af_lines = [], []
    groups, neighbors, order = set(), {}, []
    router_id = None
    for line in [c.line for c in block.children if not c.children and c.mode is None]:
        words = line.split()
        if words[0] == "router-id":
            router_id = words[1]
        elif line == "no bgp default ipv4-unicast" or line == "bgp default ipv4-unicast":
            continue
        elif words[0] == "maximum-paths":
            af_lines.append(("9", "  maximum-paths %s" % words[1]))
        elif line == "bgp bestpath as-path multipath-relax":
            top.append(("2", " " + line))
        elif line in ("bgp log-neighbor-changes",) or words[0] in ("graceful-restart", "distance", "timers"):
            continue
        elif words[0] == "neighbor":
            _neighbor(words[1], words[2:], line, neighbors, order, groups, af_lines)
        elif words[0] == "aggregate-address":
            af_lines.append(("2", "  aggregate-address %s" % " ".join(words[1:])))
        elif words[0] == "redistribute":
            # include leaked: the tenant VRFs' connected routes leaked into the default VRF are announced too; on the
            # twin they reach the default instance as BGP routes over its sessions to the VRFs (vrfs.py), announced
            # as any BGP route, so FRR's line is the plain one.
            af_lines.append(("3", "  " + line.replace(" include leaked", "")))
        elif words[0] == "network":
            af_lines.append(("1", "  " + line))
        else:
            raise Unsupported("router bgp: %s has no FRR form on the twin" % line)
    for child in block.children:
        af_lines += _address_family(child)
    if router_id is None:
        raise Unsupported("router bgp %s: no router-id (the twin does not pick one)" % asn)
    af_lines += [("9z" + line, line) for line in leak_lines(config, "default")]
    out = ["router bgp %s" % asn, " bgp router-id %s" % router_id, " no bgp default ipv4-unicast"]
    out += [line for _k, line in sorted(top)]
    for name in sorted(order, key=lambda n: (n not in groups, _address_key(n))):
        out += [line for _k, line in sorted(neighbors[name])]
    if af_lines:
        out += [" !", " address-family ipv4 unicast"] + [line for _k, line in sorted(af_lines)] + [" exit-address-family"]
    return out + ["exit", "!"] + vrf_blocks(config, block, asn, router_id)


def frr_conf(config, host):
    """The frr.conf standing in for the switch's routing agents under ``config``, in the form FRR 8.4 shows it. Its
    ``hostname`` is the namespace's (FRR shows the host name of the UTS namespace it runs in, docs/twin.md), whatever
    host name the configuration gives the switch (``show hostname`` answers that one)."""
    lines = ["frr defaults datacenter", "hostname %s" % host, "log syslog informational",
             "service integrated-vtysh-config", "!"]
    lines += _prefix_lists(config) + _community_lists(config) + _route_maps(config) + leak_route_maps(config) + _bgp(config)
    return "\n".join(lines) + "\n"
