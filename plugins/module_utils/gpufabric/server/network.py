"""Server networking from the plan: rail NIC /31s with per-NIC policy routing, the frontend bond and the
management port, as structured data the role renders (systemd-networkd or netplan) and rail_routing applies.

Why per-NIC tables: all eight rail NICs are up with a default route each; without source routing the kernel
sends everything out of one of them. Rule ``from <NIC i address> lookup <table i>`` makes traffic sourced from
NIC i leave through NIC i towards its rail-i leaf."""
import ipaddress

from ..errors import SpecError
from ..ipam import fmt

# The ARP and reverse-path settings that let eight NICs share one host without answering for each other.
SYSCTLS = {"arp_ignore": 1, "arp_announce": 2, "rp_filter": 2}


def _iface(fabric, network):
    return [i for i in fabric.get("interfaces", []) if i.get("network") == network]


def _slash31(name, text):
    """(address, network "a.b.c.d/31", the other address) of a rail NIC's ``text`` "a.b.c.d/31". Integer
    arithmetic, not ipaddress objects: a large fabric has tens of thousands of rail NICs."""
    address, _sep, prefix = text.partition("/")
    if prefix != "31":
        ipaddress.ip_interface(text)  # a malformed address raises ValueError, as it always did
        raise SpecError("fabric.interfaces.%s.ipv4" % name, "%s is not a /31" % text)
    value = int(ipaddress.IPv4Address(address))
    return fmt(value), "%s/31" % fmt(value & ~1), fmt(value ^ 1)


def backend(fabric, table_base=101, rule_priority_base=1001, mtu=None):
    """Rail NICs in rail order: [{name, rail, address, prefix, cidr, network, gateway, table, priority, mtu,
    peer, peer_interface}]. The leaf holds the lower address of the /31 and is the NIC's gateway."""
    out = []
    for rail, nic in enumerate(_iface(fabric, "backend")):
        if "ipv4" not in nic:
            raise SpecError("fabric.interfaces.%s" % nic.get("name"), "backend interface without ipv4: re-plan")
        address, network, peer = _slash31(nic["name"], nic["ipv4"])
        out.append({"name": nic["name"], "rail": rail, "address": address, "prefix": 31,
                    "cidr": "%s/31" % address, "network": network, "gateway": peer,
                    "table": table_base + rail, "priority": rule_priority_base + rail,
                    "mtu": int(mtu or nic.get("mtu", 9000)), "peer": nic.get("peer"),
                    "peer_interface": nic.get("peer_interface"), "rdma": nic.get("rdma")})
    return out


def frontend(fabric, bond_name="bond0", bond_mode="802.3ad", mtu=None):
    """The frontend bond over the dual-homed ports, with the plan's address and gateway; None without one."""
    ports = _iface(fabric, "frontend")
    if not ports or not fabric.get("frontend_ipv4"):
        return None
    return {"name": bond_name, "mode": bond_mode, "members": [p["name"] for p in ports],
            "address": fabric["frontend_ipv4"], "gateway": fabric.get("frontend_gateway"),
            "mtu": int(mtu or max(p.get("mtu", 1500) for p in ports))}


def management(fabric, address, prefix=None, gateway=None, port=None):
    """The management port: the inventory address (ansible_host) with the site's prefix; None when no prefix is
    known (the port then keeps whatever addressing it booted with, usually DHCP)."""
    oob = [i for i in _iface(fabric, "oob") if i["name"] != "idrac"]
    name = port or (oob[0]["name"] if oob else None)
    if not name or not prefix:
        return None
    return {"name": name, "address": "%s/%d" % (address, int(prefix)), "gateway": gateway,
            "mtu": oob[0].get("mtu", 1500) if oob else 1500}


def sysctls(nics):
    """{key: value}: all/default plus each rail NIC (the kernel takes the max of all and the interface for
    rp_filter, so both must be relaxed)."""
    out = {}
    for scope in ["all", "default"] + [n["name"] for n in nics]:
        for key, value in SYSCTLS.items():
            out["net.ipv4.conf.%s.%s" % (scope, key)] = value
    return out


def routing(nics):
    """The policy routing of the rail NICs: {"tables": [{table, routes}], "rules": [{priority, from, table}]}.
    Each table holds the NIC's /31 (source: its address) and a default route via its rail leaf."""
    tables, rules = [], []
    for nic in nics:
        tables.append({"table": nic["table"], "routes": [
            {"destination": nic["network"], "gateway": None, "dev": nic["name"], "source": nic["address"],
             "scope": "link"},
            {"destination": "default", "gateway": nic["gateway"], "dev": nic["name"], "source": None,
             "scope": "global"}]})
        rules.append({"priority": nic["priority"], "from": nic["address"] + "/32", "table": nic["table"]})
    return {"tables": tables, "rules": rules}


def config(fabric, mgmt_address=None, mgmt_prefix=None, mgmt_gateway=None, table_base=101,
           rule_priority_base=1001, backend_mtu=None, bond_name="bond0", bond_mode="802.3ad"):
    """Everything the network stage renders, as one dict."""
    nics = backend(fabric, table_base, rule_priority_base, backend_mtu)
    return {"backend": nics, "frontend": frontend(fabric, bond_name, bond_mode),
            "management": management(fabric, mgmt_address, mgmt_prefix, mgmt_gateway),
            "routing": routing(nics), "sysctls": sysctls(nics)}
