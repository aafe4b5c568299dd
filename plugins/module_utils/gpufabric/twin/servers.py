"""A GPU server on the twin: its namespace as its rendered servers/<host>/structured.yml says (rail NICs with their
/31s, routing tables and rules, sysctls, the frontend bond), the same data the gpu_server role installs."""
from .model import Iface, TwinError


def _server_structured(files, host):
    import yaml  # here, not at the top: Ansible's import sanity test loads module_utils without PyYAML

    path = "servers/%s/structured.yml" % host
    if path not in files:
        raise TwinError("%s: no rendered %s in the build (run playbooks/build.yml first)" % (host, path))
    return yaml.safe_load(files[path])


def server_namespace(twin, dev, files):
    """A server as its rendered structured.yml says: rail NICs with their /31s, tables, rules and sysctls."""
    cfg = _server_structured(files, dev.name)
    ns = twin.ns(dev.name, dev.role)
    ns.sysctls = {key: str(value) for key, value in cfg["sysctls"].items()}
    for nic in cfg["nics"]:
        ns.add(Iface(nic["name"], "veth", nic["mtu"], [nic["cidr"]]))
        ns.lldp_ports.append(nic["name"])
    for table in cfg["routing"]["tables"]:
        for route in table["routes"]:
            ns.routes.append((table["table"], route["destination"], route["gateway"], route["dev"], route["source"]))
    for rule in cfg["routing"]["rules"]:
        ns.rules.append((rule["priority"], rule["from"].split("/")[0], rule["table"]))
    bond = cfg["frontend"]
    for port in bond["members"] if bond else ():
        # This kernel has no bonding driver: the bond is active-backup done by the kernel's routing. Every member holds
        # the bond's address and its MAC (as a bond's members send with the bond's MAC), each gets a connected route,
        # and a member without carrier has its routes ignored (ignore_routes_with_linkdown), so traffic leaves through
        # the first member whose link is up, and a leaf going down moves it to the other one, with the neighbour
        # entries elsewhere still right (docs/twin.md).
        ns.add(Iface(port, "veth", bond["mtu"], [bond["address"]], mac=bond_mac(dev.name)))
        ns.lldp_ports.append(port)
        ns.sysctls["net.ipv4.conf.%s.ignore_routes_with_linkdown" % port] = "1"
    if bond:
        ns.sysctls["net.ipv4.conf.all.ignore_routes_with_linkdown"] = "1"
    ns.add(Iface("lo", "loopback", None, ["127.0.0.1/8"]))
    return ns


def bond_mac(host):
    """The MAC of a server's frontend bond on the twin: locally administered, from the server's name."""
    import hashlib

    digest = hashlib.sha256(host.encode()).digest()
    return "02:" + ":".join("%02x" % b for b in digest[:5])
