"""A server's networking as the files of each Linux network stack: systemd-networkd units, one netplan file,
NetworkManager keyfiles. All three carry the same structured config (structured/server.py): rail NIC /31s with a
routing table and source rule each, the frontend LACP bond, the management port."""
from . import yaml_text

HEADER = "# gpucluster.fabric: rendered from the build's structured.yml; do not edit on the host.\n"
BOND_OPTIONS = {"lacp_rate": "fast", "miimon": 100, "xmit_hash_policy": "layer3+4"}


def _ini(sections):
    """[(section, [(key, value)])] -> INI text; repeated sections (networkd [Route]) are kept apart."""
    blocks = ["[%s]\n%s" % (name, "".join("%s=%s\n" % kv for kv in items)) for name, items in sections]
    return HEADER + "\n".join(blocks)


def _route_entries(cfg, nic):
    return [t["routes"] for t in cfg["routing"]["tables"] if t["table"] == nic["table"]][0]


def networkd(cfg):
    """{file name: text} for /etc/systemd/network."""
    out = {}
    for nic in cfg["nics"]:
        sections = [("Match", [("Name", nic["name"])]), ("Link", [("MTUBytes", nic["mtu"]), ("RequiredForOnline", "no")]),
                    ("Network", [("Address", nic["cidr"]), ("LinkLocalAddressing", "no"), ("IPv6AcceptRA", "no")])]
        for route in _route_entries(cfg, nic):
            items = [("Gateway", route["gateway"])] if route["gateway"] else [("Destination", route["destination"])]
            if route["source"]:
                items.append(("PreferredSource", route["source"]))
            if route["scope"] == "link":
                items.append(("Scope", "link"))
            sections.append(("Route", items + [("Table", nic["table"])]))
        sections.append(("RoutingPolicyRule", [("From", nic["address"] + "/32"), ("Table", nic["table"]),
                                               ("Priority", nic["priority"])]))
        out["20-gpufabric-%s.network" % nic["name"]] = _ini(sections)
    bond = cfg["frontend"]
    if bond:
        out["20-gpufabric-%s.netdev" % bond["name"]] = _ini([
            ("NetDev", [("Name", bond["name"]), ("Kind", "bond"), ("MTUBytes", bond["mtu"])]),
            ("Bond", [("Mode", bond["mode"]), ("LACPTransmitRate", "fast"), ("MIIMonitorSec", "100ms"),
                      ("TransmitHashPolicy", "layer3+4")])])
        net = [("Address", bond["address"])] + ([("Gateway", bond["gateway"])] if bond["gateway"] else [])
        out["20-gpufabric-%s.network" % bond["name"]] = _ini([("Match", [("Name", bond["name"])]), ("Network", net)])
        out["20-gpufabric-%s-members.network" % bond["name"]] = _ini([
            ("Match", [("Name", " ".join(bond["members"]))]), ("Link", [("MTUBytes", bond["mtu"])]),
            ("Network", [("Bond", bond["name"])])])
    mgmt = cfg["management"]
    if mgmt:
        net = [("Address", mgmt["address"])] + ([("Gateway", mgmt["gateway"])] if mgmt["gateway"] else [])
        out["20-gpufabric-mgmt.network"] = _ini([("Match", [("Name", mgmt["name"])]), ("Network", net)])
    return out


def netplan(cfg):
    """{file name: text} for /etc/netplan (netplan renders it for systemd-networkd)."""
    ethernets = {}
    for nic in cfg["nics"]:
        routes = []
        for route in _route_entries(cfg, nic):
            entry = {"to": route["destination"], "table": nic["table"]}
            if route["gateway"]:
                entry["via"] = route["gateway"]
            if route["source"]:
                entry["from"] = route["source"]
            if route["scope"] == "link":
                entry["scope"] = "link"
            routes.append(entry)
        ethernets[nic["name"]] = {"mtu": nic["mtu"], "addresses": [nic["cidr"]], "link-local": [], "routes": routes,
                                  "routing-policy": [{"from": nic["address"] + "/32", "table": nic["table"],
                                                      "priority": nic["priority"]}]}
    doc = {"network": {"version": 2, "renderer": "networkd", "ethernets": ethernets}}
    bond = cfg["frontend"]
    if bond:
        for port in bond["members"]:
            ethernets[port] = {"mtu": bond["mtu"]}
        entry = {"interfaces": list(bond["members"]), "mtu": bond["mtu"], "addresses": [bond["address"]],
                 "parameters": {"mode": bond["mode"], "lacp-rate": "fast", "mii-monitor-interval": 100,
                                "transmit-hash-policy": "layer3+4"}}
        if bond["gateway"]:
            entry["routes"] = [{"to": "default", "via": bond["gateway"]}]
        doc["network"]["bonds"] = {bond["name"]: entry}
    mgmt = cfg["management"]
    if mgmt:
        ethernets[mgmt["name"]] = {"addresses": [mgmt["address"]]}
        if mgmt["gateway"]:
            ethernets[mgmt["name"]]["routes"] = [{"to": "default", "via": mgmt["gateway"]}]
    return {"60-gpufabric.yaml": HEADER + yaml_text.dump(doc)}


def _nm(name, kind, interface, extra):
    return _ini([("connection", [("id", "gpufabric-" + name), ("type", kind), ("interface-name", interface),
                                 ("autoconnect", "true")] + extra.pop("connection", []))]
                + list(extra.items()))


def networkmanager(cfg):
    """{file name: text} for /etc/NetworkManager/system-connections (keyfiles; NetworkManager wants mode 0600)."""
    out = {}
    for nic in cfg["nics"]:
        ipv4 = [("method", "manual"), ("address1", nic["cidr"])]
        for index, route in enumerate(_route_entries(cfg, nic), 1):
            dest = "0.0.0.0/0" if route["destination"] == "default" else route["destination"]
            ipv4.append(("route%d" % index, dest + ("," + route["gateway"] if route["gateway"] else "")))
            options = ["table=%d" % nic["table"]] + (["src=" + route["source"]] if route["source"] else [])
            if route["scope"] == "link":
                options.append("scope=253")     # RT_SCOPE_LINK
            ipv4.append(("route%d_options" % index, ",".join(options)))
        ipv4.append(("routing-rule1", "priority %d from %s/32 table %d" % (nic["priority"], nic["address"], nic["table"])))
        out["gpufabric-%s.nmconnection" % nic["name"]] = _nm(nic["name"], "ethernet", nic["name"], {
            "ethernet": [("mtu", nic["mtu"])], "ipv4": ipv4, "ipv6": [("method", "disabled")]})
    bond = cfg["frontend"]
    if bond:
        ipv4 = [("method", "manual"), ("address1", bond["address"])]
        if bond["gateway"]:
            ipv4.append(("gateway", bond["gateway"]))
        out["gpufabric-%s.nmconnection" % bond["name"]] = _nm(bond["name"], "bond", bond["name"], {
            "bond": sorted(dict(BOND_OPTIONS, mode=bond["mode"]).items()),
            "ethernet": [("mtu", bond["mtu"])], "ipv4": ipv4, "ipv6": [("method", "disabled")]})
        for port in bond["members"]:
            out["gpufabric-%s.nmconnection" % port] = _nm(port, "ethernet", port, {
                "connection": [("master", bond["name"]), ("slave-type", "bond")], "ethernet": [("mtu", bond["mtu"])]})
    mgmt = cfg["management"]
    if mgmt:
        ipv4 = [("method", "manual"), ("address1", mgmt["address"])]
        if mgmt["gateway"]:
            ipv4.append(("gateway", mgmt["gateway"]))
        out["gpufabric-mgmt.nmconnection"] = _nm("mgmt", "ethernet", mgmt["name"], {"ipv4": ipv4})
    return out
