"""Every management port of the plan by cabling position: the OOB switch, its port, and the
circuit-id the switch's DHCP relay writes into option 82 for a request arriving there."""
import collections

from ..ipam import fmt
from ..structured.oob import circuit_id

Position = collections.namedtuple("Position", "relay port circuit_id device device_port kind address model")

# What is cabled to an OOB port: a switch's management port, a server's iDRAC or its host management port.
KINDS = ("switch", "bmc", "host")


def _kind(dev, port):
    if dev.role != "gpu_server":
        return "switch"
    return "bmc" if port == dev.model.bmc_port["name"] else "host"


def management_positions(plan, port_aliases=None):
    """[Position] in plan order. ``port_aliases`` {relay: {port: alias}}: the names the relay puts in
    the circuit-id (a NOS home's port_aliases: the alias a NOS's relay writes instead of the port name)."""
    aliases = port_aliases or {}
    out = []
    for link in plan.links:
        if link.network != "oob":
            continue
        relay, dev = link.a, link.b
        kind = _kind(dev, link.b_port)
        alias = aliases.get(relay.name, {}).get(link.a_port, link.a_port)
        out.append(Position(relay.name, link.a_port, circuit_id(relay.name, alias), dev.name, link.b_port, kind,
                            fmt(dev.bmc if kind == "bmc" else dev.mgmt), dev.model.name))
    return out


def access_ports(plan, port_aliases=None):
    """[(relay, port, circuit-id)] of every access port of every OOB switch that has a planned position,
    cabled or not: a request from any of them can be named by position."""
    aliases = port_aliases or {}
    relays = {}
    for link in plan.links:
        if link.network == "oob":
            relays.setdefault(link.a.name, link.a)
    out = []
    for name, relay in relays.items():
        for index in relay.model.usable("down") + relay.model.usable("any"):
            port = relay.model.ports[index][0]
            out.append((name, port, circuit_id(name, aliases.get(name, {}).get(port, port))))
    return out
