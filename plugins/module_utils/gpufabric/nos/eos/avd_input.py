"""Structured config -> the input of AVD's ``eos_cli_config_gen`` (its structured_config keys) for one Arista EOS
switch: hostname, routed ports, loopback, management, services and BGP. QoS and tenants are ``avd_qos.py``.

Keys and values are those of pyavd's schema (pyavd 6.4.0, ``eos_cli_config_gen``); ``render.py`` validates what is
built here against that schema before anything is rendered. Only NOS-neutral code is read: the structured config
is the whole input, the catalog says how many lanes a cage has (an EOS speed names its lanes).
"""
from ...errors import SpecError
from . import avd_qos

PEER_GROUP = "FABRIC"
SERVER_LINKS = "SERVER_LINKS"
# EOS's management VRF name in Arista's own designs (AVD's eos_designs default, mgmt_interface_vrf).
MGMT_VRF = "MGMT"
# An EOS speed names the rate and, from 100G lanes up or where the rate can run over more than one lane count,
# its lanes: "800g-8", "400g-4" (a 400G sub-port of an 800G cage), "400g-8" (a 400G QSFP-DD cage of 50G lanes).
_SPEED_WORDS = {800: "800g", 400: "400g", 200: "200g", 100: "100g", 50: "50g", 40: "40g", 25: "25g", 10: "10g"}
SPEEDS = frozenset(["800g-8", "800g-4", "400g-8", "400g-4", "400g-2", "200g-4", "200g-2", "200g-1", "100g-4",
                    "100g-2", "100g-1", "50g-2", "50g-1", "40g-4", "25g", "10g"])
ROLES = ("backend_leaf", "backend_spine", "backend_superspine", "backend_core")


def check_role(cfg):
    """EOS is rendered for the backend's routed tiers so far: another role is refused, not half rendered."""
    if cfg["role"] not in ROLES:
        raise SpecError("nos", "%s (%s) would run Arista EOS, which this collection renders only for %s so far (no "
                        "MLAG, VLANs or OOB access yet, docs/eos.md): set that role's nos to another NOS"
                        % (cfg["hostname"], cfg["role"], ", ".join(ROLES)))
    for key in ("port_channels", "vlans", "mclag", "static_routes"):
        if cfg.get(key):
            raise SpecError("nos", "%s: its structured config has %s, which the EOS renderer does not write yet "
                            "(docs/eos.md): run it on another NOS" % (cfg["hostname"], key))


def speed(entry, lanes, hostname):
    """The EOS speed of a port of ``lanes`` SerDes lanes (None: the cage's own speed, EOS's default)."""
    count = (entry.get("breakout") or {}).get("of", 1)
    lanes_of_port = max(1, lanes // count)
    word = _SPEED_WORDS.get(entry["speed_gbps"])
    name = word if lanes_of_port == 1 and word in ("25g", "10g") else "%s-%d" % (word, lanes_of_port)
    if word is None or name not in SPEEDS:
        raise SpecError("models.switches.%s.port_groups" % entry.get("model", "?"), "%s %s: EOS has no speed of %d "
                        "Gb/s over %d lane(s): give the cage a breakout EOS names (%s)"
                        % (hostname, entry["name"], entry["speed_gbps"], lanes_of_port, ", ".join(sorted(SPEEDS))))
    return name


def _fec(fec):
    if fec == "rs":
        return {"reed_solomon": True}
    if fec == "none":
        return {"enabled": False}
    return None


def ethernet_interfaces(cfg, lanes):
    """Every front-panel port of the structured config as a routed EOS port (``no switchport``)."""
    out = []
    for entry in cfg["ethernet_interfaces"]:
        port = {"name": entry["name"], "description": entry["description"][:240], "shutdown": not entry["enabled"],
                "mtu": entry["mtu"], "switchport": {"enabled": False}}
        cage = (entry.get("breakout") or {}).get("port", entry["name"])
        port["speed"] = speed(dict(entry, model=cfg["model"]), lanes.get(cage, 8), cfg["hostname"])
        fec = _fec(entry["fec"])
        if fec:
            port["error_correction_encoding"] = fec
        if "ipv4" in entry:
            port["ip_address"] = entry["ipv4"]
        out.append(port)
    return out


def management(cfg, out):
    """Management1 in VRF MGMT with its default route; NTP, syslog, SNMP, LLDP timers. The SSH and SNMP sources of
    the structured config become standard ACLs on those services in VRF MGMT."""
    m, svc = cfg["management"], cfg["services"]
    vrf = MGMT_VRF if m["vrf"] != "default" else "default"
    out["management_interfaces"] = [{"name": m["interface"], "description": "OOB management", "shutdown": False,
                                     "vrf": vrf, "ip_address": m["ipv4"], "gateway": m["gateway"], "type": "oob"}]
    if vrf != "default":
        out["vrfs"] = [{"name": vrf, "ip_routing": False}]
    out["static_routes"] = [{"vrf": vrf, "prefix": "0.0.0.0/0", "next_hop": m["gateway"]}]
    if svc["ntp_servers"]:
        out["ntp"] = {"servers": [{"name": ip, "vrf": vrf, "iburst": True} for ip in svc["ntp_servers"]]}
    if svc["syslog_servers"]:
        out["logging"] = {"vrfs": [{"name": vrf, "hosts": [{"name": ip} for ip in svc["syslog_servers"]]}]}
    snmp = {"location": svc["snmp"]["location"]}
    if svc["snmp"]["contact"]:
        snmp["contact"] = svc["snmp"]["contact"]
    out["snmp_server"] = snmp
    if svc["tacacs_servers"]:
        # The shared secret stays out of the build (docs/eos.md).
        out["tacacs_servers"] = {"hosts": [{"host": ip, "vrf": vrf} for ip in svc["tacacs_servers"]]}
    lldp = svc["lldp"]
    out["lldp"] = {"run": lldp["enabled"], "timer": lldp["hello_time_s"],
                   "holdtime": lldp["hello_time_s"] * lldp["multiplier"]}
    acl = "GPUFABRIC-MGMT"
    out["standard_access_lists"] = [{"name": acl, "entries": [
        {"sequence": 10 * k, "action": "permit", "source": source} for k, source in enumerate(m["allowed_sources"], 1)]}]
    if "ssh" in m["protected_services"]:
        out["management_ssh"] = {"vrfs": [{"name": vrf, "enable": True, "ip_access_group_in": acl}]}
    if "snmp" in m["protected_services"]:
        snmp["ipv4_acls"] = [{"name": acl, "vrf": vrf}]


def bgp(cfg, out):
    """eBGP over the /31s in one peer group: BFD, timers, maximum paths, summaries (an aggregate fed by the
    server links, redistributed through a prefix list), the drain's route-map out when the plan drains it."""
    b = cfg["bgp"]
    group = {"name": PEER_GROUP, "bfd": True, "send_community": "all",
             "bfd_timers": {"interval": b["bfd"]["min_tx_ms"], "min_rx": b["bfd"]["min_rx_ms"],
                            "multiplier": b["bfd"]["multiplier"]},
             "timers": "%d %d" % (b["timers"]["keepalive"], b["timers"]["hold"])}
    if b["allowas_in"]:
        group["allowas_in"] = {"enabled": True, "times": b["allowas_in"]}
    af_group = {"name": PEER_GROUP, "activate": True}
    if "drain" in b:
        af_group["route_map_out"] = b["drain"]["route_map"]
    router = {"as": str(b["asn"]), "router_id": b["router_id"],
              "bgp": {"default": {"ipv4_unicast": False}},
              "maximum_paths": {"paths": b["max_paths"], "ecmp": b["max_paths"]},
              "peer_groups": [group],
              "neighbors": [{"ip_address": n["ip"], "peer_group": PEER_GROUP, "remote_as": str(n["remote_as"]),
                             "description": n["description"][:80]} for n in b["neighbors"]],
              "address_family_ipv4": {"peer_groups": [af_group],
                                      "networks": [{"prefix": net} for net in b["networks"]]}}
    if b["multipath_relax"]:
        # AVD's schema has no key for it: one line of EOS's router bgp, as AVD's own bgp_defaults carry such lines.
        router["bgp_defaults"] = ["bgp bestpath as-path multipath-relax"]
    if b["summaries"]:
        router["aggregate_addresses"] = [{"prefix": s, "summary_only": b.get("summary_only", True)}
                                         for s in b["summaries"]]
        router["redistribute"] = {"connected": {"enabled": True, "route_map": SERVER_LINKS}}
        out["prefix_lists"] = [{"name": SERVER_LINKS, "sequence_numbers": [
            {"sequence": 10 * k, "action": "permit %s le 31" % s} for k, s in enumerate(b["summaries"], 1)]}]
        out["route_maps"] = [{"name": SERVER_LINKS, "sequence_numbers": [
            {"sequence": 10, "type": "permit", "match": ["ip address prefix-list %s" % SERVER_LINKS]}]}]
    if "drain" in b:
        d = b["drain"]
        sets = ["community %s additive" % d["community"]]
        if d["prepend"]:
            sets.insert(0, "as-path prepend %s" % " ".join(str(a) for a in d["prepend"]))
        out.setdefault("route_maps", []).append({"name": d["route_map"], "sequence_numbers": [
            {"sequence": 10, "type": "permit", "set": sets}]})
    out["router_bgp"] = router


def structured(cfg, lanes):
    """The eos_cli_config_gen input of one switch (a dict of its schema's keys), unvalidated."""
    check_role(cfg)
    out = {"hostname": cfg["hostname"], "service_routing_protocols_model": "multi-agent",
           "ip_routing": True, "ethernet_interfaces": ethernet_interfaces(cfg, lanes)}
    lo = cfg.get("loopback")
    if lo:
        out["loopback_interfaces"] = [{"name": lo["name"], "description": "router ID, BGP",
                                       "ip_address": lo["ipv4"]}]
    if "management" in cfg:
        management(cfg, out)
    if "bgp" in cfg:
        bgp(cfg, out)
    if "qos" in cfg:
        avd_qos.qos(cfg, out)
    if "tenant_isolation" in cfg:
        avd_qos.tenants(cfg, out)
    return out
