"""Tenant VRFs of an EOS switch on the twin, from its committed configuration (EOS's CLI, not the renderer's input).

EOS (user manual, "VRF" and "RIB route leaking"; EOS 4.30 and later, the multi-agent routing model): ``vrf instance
<name>`` defines a VRF, ``vrf <name>`` on a routed port binds the port (and its addresses) to it, ``ip routing vrf
<name>`` routes in it, ``router bgp`` ``vrf <name>`` is its BGP instance (``router-id``, ``maximum-paths``,
``redistribute connected``), and under ``router general``, ``vrf <destination>`` ``leak routes source-vrf <source>
subscribe-policy <route-map>`` leaks the routes of the source VRF the route-map permits into the destination VRF, with
the route-map's ``set`` clauses applied; ``redistribute connected include leaked`` in the default VRF announces the
connected routes leaked into it too.

The twin's kernel has no VRF device: as for every NOS of the twin (docs/twin.md, "Tenant VRFs"), a tenant VRF is a
namespace of its own with its own FRR, its ports bridged into it, joined to the switch's namespace by an internal iBGP
session (twin/vrf.py, the twin's machinery, given FRR's form of the VRF): here the EOS lines in FRR's words,

- ``router bgp ASN`` ``vrf V`` -> ``router bgp ASN vrf V`` with ``bgp router-id``, ``redistribute connected``,
  ``maximum-paths`` in its IPv4 address family;
- ``router general`` ``vrf V`` ``leak routes source-vrf default subscribe-policy R`` -> in V: ``import vrf route-map
  R``, ``import vrf default`` (at most one source per tenant VRF: FRR takes one import route-map per VRF);
- ``router general`` ``vrf default`` ``leak routes source-vrf V subscribe-policy R`` (one per source VRF) -> in the
  default instance ``import vrf V`` under one route-map, LEAK_MAP, an entry per source VRF: ``match source-vrf V``
  and R's own ``set`` clauses (as FRR matches a leak's source VRF).

Anything else under ``router general`` or a VRF's BGP instance (route distinguishers, route targets: EVPN) raises
Unsupported, naming the line.
"""
import re

from .unsupported import Unsupported

LEAK_MAP = "EOS_LEAK_TO_DEFAULT"
_ROUTE_MAP_LINES = ("match ip address prefix-list ", "match community ", "set community ", "set as-path prepend ")


def leaks(config):
    """{destination VRF: [(source VRF, subscribe policy)]} of ``router general``."""
    out = {}
    for block in config.blocks("router general"):
        for vrf in block.children:
            m = re.match(r"vrf (\S+)\Z", vrf.line)
            if not m:
                raise Unsupported("router general: %s is not modelled on the twin" % vrf.line)
            for child in vrf.children:
                leak = re.match(r"leak routes source-vrf (\S+) subscribe-policy (\S+)\Z", child.line)
                if not leak:
                    raise Unsupported("router general vrf %s: %s is not modelled on the twin" % (m.group(1), child.line))
                out.setdefault(m.group(1), []).append((leak.group(1), leak.group(2)))
    return out


def tenant_vrfs(config):
    """The VRFs ``vrf instance`` defines, but the management one (a routed Ethernet port in one is a tenant's)."""
    return [b.line.split()[2] for b in config.blocks("vrf instance ")]


def _entries(config, name):
    found = [b for b in config.blocks("route-map ") if b.line.split()[1] == name]
    if not found:
        raise Unsupported("subscribe-policy %s: no such route-map (EOS leaks nothing through it)" % name)
    return found


def leak_route_maps(config):
    """FRR's route-map LEAK_MAP: an entry per source VRF leaking into the default VRF, ``match source-vrf`` and the
    subscribe policy's own clauses."""
    lines, seq = [], 0
    for source, policy in sorted((leaks(config).get("default") or [])):
        for entry in _entries(config, policy):
            seq += 10
            action = entry.line.split()[2]
            lines += ["route-map %s %s %d" % (LEAK_MAP, action, seq), " match source-vrf %s" % source]
            for child in entry.children:
                if not child.line.startswith(_ROUTE_MAP_LINES + ("description ",)):
                    raise Unsupported("%s: %s has no FRR form on the twin" % (entry.line, child.line))
                lines += [] if child.line.startswith("description ") else [" " + child.line]
            lines += ["exit", "!"]
    return lines


def leak_lines(config, vrf):
    """The ``import vrf`` lines of VRF ``vrf``'s IPv4 address family in FRR's form."""
    found = leaks(config).get(vrf) or []
    if not found:
        return []
    if vrf == "default":
        return ["  import vrf route-map %s" % LEAK_MAP] + ["  import vrf %s" % s for s, _p in sorted(found)]
    if len(found) > 1 or found[0][0] != "default":
        raise Unsupported("router general vrf %s: leaks from %s: a tenant VRF leaks from the default VRF only on the "
                          "twin" % (vrf, ", ".join(s for s, _p in found)))
    return ["  import vrf route-map %s" % found[0][1], "  import vrf default"]


def vrf_blocks(config, block, asn, router_id):
    """FRR's ``router bgp ASN vrf V`` blocks of the ``vrf V`` modes of ``router bgp`` (``block``)."""
    out = []
    for child in block.children:
        m = re.match(r"vrf (\S+)\Z", child.line)
        if not m:
            continue
        name, own_id, af = m.group(1), None, []
        if name not in tenant_vrfs(config):
            raise Unsupported("router bgp vrf %s: no vrf instance %s" % (name, name))
        for line in [c.line for c in child.children]:
            words = line.split()
            if words[0] == "router-id":
                own_id = words[1]
            elif words[0] == "maximum-paths":
                af.append("  maximum-paths %s" % words[1])
            elif words[0] == "redistribute" and words[1] == "connected" and "include" not in words:
                af.insert(0, "  " + line)
            else:
                raise Unsupported("router bgp vrf %s: %s is not modelled on the twin" % (name, line))
        af += leak_lines(config, name)
        out += ["router bgp %s vrf %s" % (asn, name), " bgp router-id %s" % (own_id or router_id), " !",
                " address-family ipv4 unicast"] + af + [" exit-address-family", "exit", "!"]
    return out


def vrf_ports(config, configured, links, kernel_port):
    """{VRF: {Linux port: (MTU, [addresses], up)}} of the cabled Ethernet ports bound to a tenant VRF
    (``configured``: translate.interfaces): what the twin moves into each VRF's namespace."""
    out = {}
    for name, conf in sorted(configured.items()):
        port = kernel_port(name)
        link = links.get(port)
        if not conf.get("vrf") or not name.startswith("Ethernet") or not link \
                or (link.get("linkinfo") or {}).get("info_kind") != "veth":
            continue
        if conf["vrf"] not in tenant_vrfs(config):
            raise Unsupported("interface %s: vrf %s: no vrf instance %s" % (name, conf["vrf"], conf["vrf"]))
        out.setdefault(conf["vrf"], {})[port] = (conf["mtu"], list(conf["addrs"]), conf["up"])
    return out
