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
    for position, port in enumerate(bond["members"] if bond else ()):
        # The bond's address sits on its first NIC: active-backup with the first NIC active (this
        # kernel has no bonding driver); the second NIC is up and cabled, carrying LLDP only.
        ns.add(Iface(port, "veth", bond["mtu"], [bond["address"]] if position == 0 else ()))
        ns.lldp_ports.append(port)
    ns.add(Iface("lo", "loopback", None, ["127.0.0.1/8"]))
    return ns
