"""An EOS switch's IPv4 access lists on its ports as the twin's nftables rules (twin/nftables.py loads them).

EOS (user manual, "Access Control Lists"): an ``ip access-list`` is a list of numbered rules, checked in order, the
first match deciding, an IPv4 packet matching none denied (the implicit deny at the end of every list); ``ip
access-group <name> in`` on a routed port filters what enters it. Rules the twin turns into nftables: ``permit|deny
ip <source> <destination>`` with ``any``, ``host A`` or ``A/P``; ``remark`` and ``counters per-entry`` change
nothing here. Any other rule (a protocol other than ``ip``, ports, ``log``) is refused at commit, naming it.
"""
import ipaddress
import re

from .translate import Unsupported

_RULE = re.compile(r"(?:\d+ )?(permit|deny) ip (any|host \S+|\S+/\d+) (any|host \S+|\S+/\d+)\Z")


def _match(side, text):
    if text == "any":
        return ""
    address = text.split()[1] if text.startswith("host ") else text
    try:
        network = ipaddress.ip_network(address, strict=False)
    except ValueError:
        raise Unsupported("access list address %s" % text)
    if network.version != 4:
        raise Unsupported("access list address %s: IPv4 only on the twin" % text)
    return "ip %s %s " % (side, network if network.prefixlen < 32 else network.network_address)


def _lists(config):
    found = {}
    for block in config.blocks("ip access-list "):
        words = block.line.split()
        if words[2] == "standard":
            continue        # standard lists filter management (ssh, snmp): kept, no effect on the twin
        rules = []
        for child in block.children:
            line = child.line
            if line == "counters per-entry" or re.match(r"(\d+ )?remark ", line):
                continue
            m = _RULE.match(line)
            if not m:
                raise Unsupported("ip access-list %s: %s is not modelled on the twin" % (words[2], line))
            verdict = "accept" if m.group(1) == "permit" else "drop"
            rules.append("meta protocol ip %s%s%s" % (_match("saddr", m.group(2)), _match("daddr", m.group(3)), verdict))
        found[words[2]] = rules + ["meta protocol ip drop"]   # EOS's implicit deny
    return found


def port_rules(config, kernel_port):
    """{Linux port name: [nft rules]} of the routed Ethernet ports with an inbound access list."""
    lists = _lists(config)
    out = {}
    for block in config.blocks("interface Ethernet"):
        for child in block.children:
            m = re.match(r"ip access-group (\S+) in\Z", child.line)
            if m:
                if m.group(1) not in lists:
                    continue     # EOS applies a missing list as permit-all until it is defined
                out[kernel_port(block.line.split()[1])] = list(lists[m.group(1)])
    return out
