"""Structured config -> the NVUE object tree of one Cumulus Linux switch (the `set:` document of its
startup.yaml), following NVIDIA's Cumulus Linux 5.14 user guide (docs/spectrum-x.md names the page
each part follows).

Values are the object model's own: "on"/"off" and "enable"/"disable" are strings, integers are
integers, map keys (rule numbers, traffic classes) are strings, as `nv config save` writes them.
Only NOS-neutral code is read here: the structured config is the whole input.
"""
import re

from ...errors import SpecError
from ...nos_registry import DEFAULT_NOS
from . import nvue_qos, nvue_tenants

MGMT_VRF = "mgmt"
PEER_GROUP = "FABRIC"
SERVER_LINKS = "SERVER_LINKS"
_NUMBER = re.compile(r"(\d+)")
_SPEED = {1: "1G", 10: "10G", 25: "25G", 40: "40G", 50: "50G", 100: "100G", 200: "200G", 400: "400G", 800: "800G"}
# The releases whose object model this renderer writes: every document it renders for the lab fabrics is
# valid in each of them (tests/unit/test_nos_cumulus.py). 5.10 and older lack `service lldp state` and the
# ACL port match; 5.15 moved an interface's addresses from `ip` to `ipv4`/`ipv6` and adaptive routing from
# `enable: on` to `state: enabled`.
RENDERED_RELEASES = ("5.11", "5.12", "5.13", "5.14")
# NVUE breaks a cage out by the number of sub-ports (`link breakout 2x`): these are the counts it names
# (NVUE command reference, "Interface": 1x, 2x, 4x, 8x).
BREAKOUT_COUNTS = (1, 2, 4, 8)
# The one VLAN-aware bridge NVUE creates and NVIDIA's examples use (user guide, "VLAN-aware Bridge Mode").
BRIDGE = "br_default"
# MLAG (user guide, "Multi-Chassis Link Aggregation - MLAG"): the lower priority is the primary; NVIDIA
# reserves 44:38:39:ff:00:00-44:38:39:ff:ff:ff for the MLAG system MAC shared by a pair.
MLAG_PRIORITY = {"active": 4096, "standby": 8192}
MLAG_MAC = "44:38:39:ff:%02x:%02x"


def check_rendered(release, key="switch_config.cumulus_release"):
    if release not in RENDERED_RELEASES:
        raise SpecError(key, "the collection writes NVUE's object model of Cumulus Linux %s, not %s (a release "
                        "NVIDIA's model differs in for what is rendered here): choose one of those" % (
                            ", ".join(RENDERED_RELEASES), release))


def _port_number(name):
    return [int(part) if part.isdigit() else part for part in _NUMBER.split(name)]


def _onoff(flag):
    return "on" if flag else "off"


def _speed(entry, hostname, model):
    speed = entry["speed_gbps"]
    if speed not in _SPEED:
        raise SpecError("models.switches.%s.port_groups" % model, "%s %s: NVUE has no link speed of %d Gb/s (it "
                        "knows %s): give the port a speed NVUE names, or a breakout to one" % (
                            hostname, entry["name"], speed, ", ".join(_SPEED[s] for s in sorted(_SPEED))))
    return _SPEED[speed]


def _breakout(cfg, port, mode):
    count = int(mode.split("x", 1)[0]) if mode.split("x", 1)[0].isdigit() else 0
    if count not in BREAKOUT_COUNTS:
        raise SpecError("models.switches.%s.breakouts" % cfg["model"], "%s %s: NVUE breaks a port out %s ways, not "
                        "as %r: list only breakouts of that many sub-ports for the model (or leave the port whole)"
                        % (cfg["hostname"], port, ", ".join(str(c) for c in BREAKOUT_COUNTS), mode))
    return count


def _fec(fec):
    return {"rs": "rs", "none": "off"}.get(fec, "auto")


def _interfaces(cfg):
    out = {}
    for port, mode in sorted((cfg.get("breakouts") or {}).items(), key=lambda item: _port_number(item[0])):
        count = _breakout(cfg, port, mode)
        if count > 1:
            # A broken-out cage is configured on its parent port, by the number of sub-ports ("2x"); the
            # sub-ports (swpNs0, swpNs1) carry speed and addresses (user guide, "Switch Port Attributes").
            out[port] = {"type": "swp", "link": {"breakout": {"%dx" % count: {}}}}
    for entry in cfg["ethernet_interfaces"]:
        link = {"mtu": entry["mtu"], "speed": _speed(entry, cfg["hostname"], cfg["model"]), "fec": _fec(entry["fec"]),
                "state": {"up" if entry["enabled"] else "down": {}}}
        iface = {"type": "swp", "description": entry["description"][:255], "link": link}
        if "ipv4" in entry:
            iface["ip"] = {"address": {entry["ipv4"]: {}}}
        out[entry["name"]] = iface
    lo = cfg.get("loopback")
    if lo:
        out[lo["name"]] = {"type": "loopback", "ip": {"address": {lo["ipv4"]: {}}}}
    return out


def _management(cfg, doc):
    m, svc = cfg["management"], cfg["services"]
    vrf = MGMT_VRF if m["vrf"] != "default" else "default"
    # Cumulus Linux's management VRF is always named mgmt and holds eth0 (user guide, "Management VRF").
    if m["interface"] in doc["interface"]:
        # Managed in-band (the OOB switch on its VLAN's SVI, which _bridge made): the address is already there.
        doc["interface"][m["interface"]].setdefault("ip", {}).setdefault("address", {})[m["ipv4"]] = {}
    else:
        doc["interface"][m["interface"]] = {"type": "eth", "ip": {"address": {m["ipv4"]: {}}, "vrf": vrf}}
    doc.setdefault("vrf", {}).setdefault(vrf, {})["router"] = {"static": {"0.0.0.0/0": {
        "address-family": "ipv4-unicast", "via": {m["gateway"]: {"type": "ipv4-address"}}}}}
    system = doc["system"]
    if svc["syslog_servers"]:
        system["syslog"] = {"server": {ip: {"vrf": vrf} for ip in svc["syslog_servers"]}}
    snmp = {"state": "enabled", "system-location": svc["snmp"]["location"],
            "listening-address": {"all": {"vrf": vrf}}}
    if svc["snmp"]["contact"]:
        snmp["system-contact"] = svc["snmp"]["contact"]
    system["snmp-server"] = snmp
    if svc["tacacs_servers"]:
        # The shared secret stays out of the build (vault it; docs/spectrum-x.md).
        system["aaa"] = {"tacacs": {"vrf": vrf, "server": {ip: {"priority": 1, "port": 49}
                                                           for ip in svc["tacacs_servers"]}}}
    if svc["ntp_servers"]:
        doc["service"]["ntp"] = {vrf: {"server": {ip: {"iburst": "on"} for ip in svc["ntp_servers"]}}}
    lldp = svc["lldp"]
    doc["service"]["lldp"] = {"state": "enabled" if lldp["enabled"] else "disabled",
                              "tx-interval": lldp["hello_time_s"], "tx-hold-multiplier": lldp["multiplier"]}
    # Control-plane ACL: SSH and SNMP only from the OOB network (user guide, "Access Control Lists",
    # control-plane ACLs). Rule numbers leave room between them, as NVIDIA's examples do.
    rules = {}
    ports = {"ssh": ("tcp", 22), "snmp": ("udp", 161)}
    number = 10
    for service in m["protected_services"]:
        proto, port = ports[service]
        for source in m["allowed_sources"]:
            rules[str(number)] = {"match": {"ip": {"protocol": proto, "source-ip": source,
                                                   proto: {"dest-port": {str(port): {}}}}},
                                  "action": {"permit": {}}, "remark": "%s from the OOB network" % service}
            number += 10
        rules[str(number)] = {"match": {"ip": {"protocol": proto, proto: {"dest-port": {str(port): {}}}}},
                              "action": {"deny": {}}, "remark": "%s from anywhere else" % service}
        number += 10
    doc.setdefault("acl", {})["GPUFABRIC_MGMT"] = {"type": "ipv4", "rule": rules}
    system["control-plane"] = {"acl": {"GPUFABRIC_MGMT": {"inbound": {}}}}


def _bond_number(name):
    digits = re.search(r"(\d+)$", name)
    return int(digits.group(1)) if digits else 0


def _check_relay(cfg, vlan):
    if vlan.get("dhcp_relay_servers"):
        # ZTP matches a relayed request by the circuit-id "<switch>:<port>" (structured/oob.py, ztp/kea.py);
        # Cumulus Linux's relay sends the port alone (`use-pif-circuit-id`) or the SVI, so positions behind a
        # Cumulus OOB switch could not be told apart.
        raise SpecError("oob.provisioning_host", "%s runs Cumulus Linux, whose DHCP relay cannot write the option 82 "
                        "circuit-id ZTP matches positions by (%s): set oob.switch.nos: %s (whose relay writes it), or "
                        "leave oob.provisioning_host out" % (cfg["hostname"], vlan["dhcp_relay_option82"]["circuit_id"],
                                                             DEFAULT_NOS))


def _bridge(cfg, doc):
    """Bonds, the VLAN-aware bridge, its VLANs' SVIs and MLAG (user guide: "Bonding - Link Aggregation",
    "VLAN-aware Bridge Mode", "Multi-Chassis Link Aggregation - MLAG", "Virtual Router Redundancy - VRR").
    The MC-LAG of the structured config maps onto MLAG: a peer link bond, one bond per dual-homed server
    with the same MLAG id on both leaves, the partner's loopback as the backup IP (the keepalive path that
    survives a peer-link failure), and the server gateway as a VRR address both leaves answer for."""
    interfaces = doc["interface"]
    mclag = cfg.get("mclag")
    vlans = cfg.get("vlans") or []
    access = {}
    for vlan in vlans:
        _check_relay(cfg, vlan)
        for name in vlan["untagged"]:
            access[name] = vlan["id"]
    for channel in cfg.get("port_channels") or ():
        bond = {"member": {m: {} for m in channel["members"]}, "mode": "lacp"}
        peer_link = mclag is not None and channel["name"] == mclag["peer_link"]
        if mclag is not None and channel["mclag"]:
            # The MLAG id must be the same on both peers for one server: the structured config gives a
            # server's bond the same name on both leaves, so its number is the id.
            bond["mlag"] = {"enable": "on", "id": _bond_number(channel["name"])}
        interfaces[channel["name"]] = {"type": "peerlink" if peer_link else "bond",
                                       "description": channel["description"][:255], "bond": bond,
                                       "link": {"mtu": channel["mtu"]}}
    for name, entry in interfaces.items():
        if entry.get("type") not in ("swp", "bond", "peerlink"):
            continue
        if name in access:
            entry["bridge"] = {"domain": {BRIDGE: {"access": access[name]}}}
        elif any(name in vlan["tagged"] for vlan in vlans):
            entry["bridge"] = {"domain": {BRIDGE: {"vlan": {str(v["id"]): {} for v in vlans if name in v["tagged"]}}}}
    if vlans:
        doc["bridge"] = {"domain": {BRIDGE: {"type": "vlan-aware", "vlan": {str(v["id"]): {} for v in vlans}}}}
    for vlan in vlans:
        svi = {"type": "svi", "vlan": vlan["id"], "ip": {"address": {vlan["ipv4"]: {}}}}
        if vlan.get("virtual_gateway"):
            svi["ip"]["vrr"] = {"enable": "on", "address": {vlan["virtual_gateway"]: {}},
                                "mac-address": vlan["virtual_gateway_mac"], "state": {"up": {}}}
        interfaces["vlan%d" % vlan["id"]] = svi
    if mclag is not None:
        domain = mclag["domain_id"]
        doc["mlag"] = {"enable": "on", "mac-address": MLAG_MAC % ((domain >> 8) & 255, domain & 255),
                       "peer-ip": "linklocal", "priority": MLAG_PRIORITY[mclag["role"]],
                       "backup": {mclag["peer_ip"]: {"vrf": "default"}}}


def _bgp(cfg, doc):
    bgp = cfg["bgp"]
    doc["router"]["bgp"] = {"enable": "on", "autonomous-system": bgp["asn"], "router-id": bgp["router_id"]}
    timers = bgp["timers"]
    group = {"remote-as": "external", "timers": {"keepalive": timers["keepalive"], "hold": timers["hold"]},
             "bfd": {"enable": "on", "min-rx-interval": bgp["bfd"]["min_rx_ms"],
                     "min-tx-interval": bgp["bfd"]["min_tx_ms"], "detect-multiplier": bgp["bfd"]["multiplier"]},
             "address-family": {"ipv4-unicast": {"enable": "on"}}}
    af_group = group["address-family"]["ipv4-unicast"]
    if bgp["allowas_in"]:
        af_group["aspath"] = {"allow-my-asn": {"enable": "on", "occurrences": bgp["allowas_in"]}}
    if "drain" in bgp:
        af_group["policy"] = {"outbound": {"route-map": bgp["drain"]["route_map"]}}
    neighbors = {n["ip"]: {"remote-as": n["remote_as"], "peer-group": PEER_GROUP, "type": "numbered",
                           "description": n["description"][:80]} for n in bgp["neighbors"]}
    af = {"enable": "on", "multipaths": {"ebgp": bgp["max_paths"]},
          "network": {net: {} for net in bgp["networks"]}}
    if bgp["summaries"]:
        summary_only = _onoff(bgp.get("summary_only", True))
        af["aggregate-route"] = {s: {"summary-only": summary_only} for s in bgp["summaries"]}
        af["redistribute"] = {"connected": {"enable": "on", "route-map": SERVER_LINKS}}
    vrf_bgp = {"enable": "on", "router-id": bgp["router_id"],
               "path-selection": {"multipath": {"aspath-ignore": _onoff(bgp["multipath_relax"])}},
               "peer-group": {PEER_GROUP: group}, "neighbor": neighbors,
               "address-family": {"ipv4-unicast": af}}
    doc.setdefault("vrf", {}).setdefault("default", {}).setdefault("router", {})["bgp"] = vrf_bgp
    policy = {}
    if bgp["summaries"]:
        policy["prefix-list"] = {SERVER_LINKS: {"type": "ipv4", "rule": {
            str(5 * k): {"action": "permit", "match": {s: {"max-prefix-len": 31}}}
            for k, s in enumerate(bgp["summaries"], 1)}}}
        policy["route-map"] = {SERVER_LINKS: {"rule": {"10": {
            "match": {"type": "ipv4", "ip-prefix-list": SERVER_LINKS}, "action": {"permit": {}}}}}}
    if "drain" in bgp:
        drain = bgp["drain"]
        policy.setdefault("route-map", {})[drain["route_map"]] = {"rule": {"10": {
            "action": {"permit": {}},
            "set": {"as-path-prepend": {"as": ",".join(str(a) for a in drain["prepend"])},
                    "community": {drain["community"]: {}}}}}}
    if policy:
        doc["router"]["policy"] = policy


def nvue_set(cfg):
    """The `set:` document of one switch: NVUE's object tree as `nv config save` writes it."""
    doc = {"system": {"hostname": cfg["hostname"]}, "interface": _interfaces(cfg), "service": {}, "router": {}}
    if cfg.get("port_channels") or cfg.get("vlans"):
        _bridge(cfg, doc)
    if "management" in cfg:
        _management(cfg, doc)
    for route in cfg.get("static_routes") or ():
        doc.setdefault("vrf", {}).setdefault("default", {}).setdefault("router", {}).setdefault("static", {})[
            route["prefix"]] = {"address-family": "ipv4-unicast", "via": {route["next_hop"]: {"type": "ipv4-address"}}}
    if "bgp" in cfg:
        _bgp(cfg, doc)
    if "qos" in cfg:
        nvue_qos.qos(cfg, doc)
    if "tenant_isolation" in cfg:
        nvue_tenants.tenants(cfg, doc)
    return {key: value for key, value in doc.items() if value}


def startup(cfg, release):
    """The startup.yaml documents of one switch: NVUE's header, then one `set:` of the whole tree."""
    header = {"model": cfg["model"], "nvue-api-version": "nvue_v1", "rev-id": 1.0,
              "version": "Cumulus Linux %s.0" % release}
    return [{"header": header}, {"set": nvue_set(cfg)}]
