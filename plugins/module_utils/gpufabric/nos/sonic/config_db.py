"""Structured config -> SONiC config_db.json tables (the data half of the SONiC rendering).

Values are strings, as SONiC stores them in Redis. Which tables are ours, and which the platform
shares with us, is declared in nos/sonic/templates/config_db.schema.yml (see schema.py). Every
table has a model in sonic-yang-models, and the result validates against them (sonic_yang).
"""
from . import platform as sonic_platform
from .ranges import to_ranges

# SONiC device types by fabric tier (T0 / T1 / T2 in SONiC's terms).
DEVICE_TYPE = {"backend_leaf": "ToRRouter", "backend_spine": "LeafRouter", "backend_superspine": "SpineRouter",
               "frontend_leaf": "ToRRouter", "frontend_spine": "LeafRouter", "frontend_superspine": "SpineRouter",
               "oob_switch": "MgmtToRRouter", "backend_core": "SpineRouter"}
# The platform's buffer template defines these profiles; only the lossless PG profile is per speed and cable.
# Data-plane ACL rules count down from here (SONiC's PRIORITY: 0..999999, higher wins).
TENANT_ACL_TOP_PRIORITY = 900000
INGRESS_LOSSY, EGRESS_LOSSY, EGRESS_LOSSLESS = "ingress_lossy_profile", "egress_lossy_profile", "egress_lossless_profile"
# split-unified: the bgp container keeps the operator's one frr.conf across restarts and reloads it with
# frr-reload.py; bgpcfgd renders nothing for BGP since config_db has no BGP_NEIGHBOR rows (docs/switch-config.md).
ROUTING_CONFIG_MODE = "split-unified"


def _s(value):
    return str(value).lower() if isinstance(value, bool) else str(value)


def _metadata(cfg):
    # buffer_model is left to the platform: changing it takes a swss restart, not a config replace.
    meta = {"hostname": cfg["hostname"], "type": DEVICE_TYPE[cfg["role"]],
            "docker_routing_config_mode": ROUTING_CONFIG_MODE}
    if "bgp" in cfg:
        meta["bgp_asn"] = _s(cfg["bgp"]["asn"])
    return {"DEVICE_METADATA": {"localhost": meta}}


def _ports(cfg):
    port, interface = {}, {}
    for i in cfg["ethernet_interfaces"]:
        port[i["name"]] = {"admin_status": "up" if i["enabled"] else "down", "description": i["description"],
                           "lanes": sonic_platform.lanes(cfg["model"], i["name"], i.get("breakout")),
                           "speed": _s(i["speed_gbps"] * 1000), "fec": i["fec"], "mtu": _s(i["mtu"]),
                           "autoneg": "off"}
        for family in ("ipv4", "ipv6"):
            if family in i:
                interface[i["name"]] = {}
                interface["%s|%s" % (i["name"], i[family])] = {}
    tables = {"PORT": port, "INTERFACE": interface}
    if cfg.get("breakouts"):
        # every cage's mode, as SONiC's dynamic port breakout keeps it (checked against platform.json)
        tables["BREAKOUT_CFG"] = {name: {"brkout_mode": mode} for name, mode in cfg["breakouts"].items()}
    return tables


def _loopback(cfg):
    lo = cfg["loopback"]
    out = {lo["name"]: {}}
    for family in ("ipv4", "ipv6"):
        if family in lo:
            out["%s|%s" % (lo["name"], lo[family])] = {}
    return {"LOOPBACK_INTERFACE": out}


def _management(cfg):
    m, svc = cfg["management"], cfg["services"]
    vrf = {"vrf": m["vrf"]} if m["vrf"] != "default" else {}
    tables = {
        "ACL_TABLE": {}, "ACL_RULE": {},
        "LLDP": {"GLOBAL": {"enabled": _s(svc["lldp"]["enabled"]), "hello_time": _s(svc["lldp"]["hello_time_s"]),
                            "multiplier": _s(svc["lldp"]["multiplier"])}},
        "FEATURE": {"lldp": {"state": "enabled"}},
        "NTP_SERVER": {ip: {"iburst": "on"} for ip in svc["ntp_servers"]},
        "SYSLOG_SERVER": {ip: dict(vrf) for ip in svc["syslog_servers"]},
        "SNMP": {"LOCATION": {"Location": svc["snmp"]["location"]}},
        "TACPLUS_SERVER": {ip: dict(vrf, priority="1", tcp_port="49") for ip in svc["tacacs_servers"]},
    }
    if svc["snmp"]["contact"]:
        tables["SNMP"]["CONTACT"] = {"Contact": svc["snmp"]["contact"]}
    if svc["tacacs_servers"]:
        tables["AAA"] = {"authentication": {"login": "tacacs+,local", "failthrough": "true"}}
    if svc["ntp_servers"] and vrf:
        tables["NTP"] = {"global": {"vrf": m["vrf"], "src_intf": m["interface"]}}
    if m["vrf"] != "default":
        tables["MGMT_VRF_CONFIG"] = {"vrf_global": {"mgmtVrfEnabled": "true"}}
        tables["MGMT_PORT"] = {m["interface"]: {"admin_status": "up", "alias": m["interface"]}}
        tables["MGMT_INTERFACE"] = {"%s|%s" % (m["interface"], m["ipv4"]): {"gwaddr": m["gateway"]}}
    for service in m["protected_services"]:
        name = "GPUFABRIC_MGMT_" + service.upper()
        tables["ACL_TABLE"][name] = {"type": "CTRLPLANE", "stage": "ingress", "services": [service.upper()],
                                     "policy_desc": "%s only from the OOB network" % service.upper()}
        for k, source in enumerate(m["allowed_sources"]):
            # Control-plane ACLs deny whatever no rule accepts.
            rule = {"PRIORITY": _s(9999 - k), "SRC_IP": source, "PACKET_ACTION": "ACCEPT", "IP_TYPE": "IPV4ANY"}
            tables["ACL_RULE"]["%s|ACCEPT_%d" % (name, k + 1)] = rule
    return tables


def _map(mapping):
    return {_s(k): _s(v) for k, v in mapping.items()}


def _qos_tables(q, name, model):
    """The switch-wide QoS tables of profile ``name`` (maps, scheduler, WRED, buffer pools and profiles, the PFC
    watchdog's poll interval), with the per-port tables empty for _qos to fill."""
    sched = {"%s_Q%d" % (name, queue): {"type": "DWRR", "weight": _s(w)} for queue, w in q["dwrr_weights"].items()}
    sched.update({"%s_Q%d" % (name, queue): {"type": "STRICT"} for queue in q["strict_priority_queues"]})
    ecn = q["ecn"]
    wred = {"ecn": "ecn_all", "wred_green_enable": "true", "wred_yellow_enable": "true", "wred_red_enable": "true"}
    for color in ("green", "yellow", "red"):
        wred.update({color + "_min_threshold": _s(ecn["min_threshold_bytes"]),
                     color + "_max_threshold": _s(ecn["max_threshold_bytes"]),
                     color + "_drop_probability": _s(ecn["mark_probability_percent"])})
    pools, profiles = sonic_platform.buffer_pools_and_profiles(model)
    return {"DSCP_TO_TC_MAP": {name: _map(q["dscp_to_traffic_class"])},
            "TC_TO_QUEUE_MAP": {name: _map(q["traffic_class_to_queue"])},
            "TC_TO_PRIORITY_GROUP_MAP": {name: _map(q["traffic_class_to_priority_group"])},
            "MAP_PFC_PRIORITY_TO_QUEUE": {name: _map(q["pfc_priority_to_queue"])},
            "WRED_PROFILE": {name: wred}, "SCHEDULER": sched,
            "PORT_QOS_MAP": {}, "QUEUE": {}, "BUFFER_PG": {}, "BUFFER_QUEUE": {}, "CABLE_LENGTH": {"AZURE": {}},
            "BUFFER_POOL": pools, "BUFFER_PROFILE": profiles,
            "PFC_WD": {"GLOBAL": {"POLL_INTERVAL": _s(q["pfc_watchdog"]["poll_interval_ms"])}}}


def _qos(cfg):
    q = cfg["qos"]
    name = q["profile"].upper()
    lossless = q["pfc_priorities"]
    ports = {i["name"]: i for i in cfg["ethernet_interfaces"]}
    pfc = ",".join(_s(p) for p in lossless)
    wd = q["pfc_watchdog"]
    t = _qos_tables(q, name, cfg["model"])
    profiles = t["BUFFER_PROFILE"]
    lossy_queues = to_ranges([n for n in range(8) if n not in lossless])
    # What every port repeats, worked out once a switch (a 512-port switch has 512 ports of the same few kinds).
    queues = [(queue, {"scheduler": "%s_Q%d" % (name, queue)}, queue in q["ecn_queues"])
              for queue in sorted(set(q["dwrr_weights"]) | set(q["strict_priority_queues"]))]
    qos_map = {"dscp_to_tc_map": name, "tc_to_queue_map": name, "tc_to_pg_map": name, "pfc_to_queue_map": name,
               "pfc_enable": pfc, "pfcwd_sw_enable": pfc}
    watchdog = {"action": wd["action"], "detection_time": _s(wd["detection_time_ms"]),
                "restoration_time": _s(wd["restoration_time_ms"])}
    lossless_pgs = ["%d" % pg for pg in q["lossless_priority_groups"]]
    lossless_queues = ["%d" % queue for queue in lossless]
    buffers = {}    # (speed, cable length) -> (cable, profile name)
    for port in q["interfaces"]:
        i = ports[port]
        speed = i["speed_gbps"] * 1000
        key = (speed, i["cable_length_m"])
        known = buffers.get(key)
        if known is None:
            cable = sonic_platform.lossless_cable(cfg["model"], speed, i["cable_length_m"])
            pg_profile, row = sonic_platform.lossless_profile(cfg["model"], speed, cable)
            profiles[pg_profile] = row
            known = buffers[key] = cable, pg_profile
        cable, pg_profile = known
        t["CABLE_LENGTH"]["AZURE"][port] = cable
        t["PORT_QOS_MAP"][port] = dict(qos_map)
        for queue, entry, ecn_queue in queues:
            entry = dict(entry)
            if ecn_queue:
                entry["wred_profile"] = name
            t["QUEUE"]["%s|%d" % (port, queue)] = entry
        t["BUFFER_PG"]["%s|0" % port] = {"profile": INGRESS_LOSSY}
        for pg in lossless_pgs:
            t["BUFFER_PG"][port + "|" + pg] = {"profile": pg_profile}
        for queues_ in lossy_queues:
            t["BUFFER_QUEUE"]["%s|%s" % (port, queues_)] = {"profile": EGRESS_LOSSY}
        for queue in lossless_queues:
            t["BUFFER_QUEUE"][port + "|" + queue] = {"profile": EGRESS_LOSSLESS}
        t["PFC_WD"][port] = dict(watchdog)
    return t


def _l2(cfg):
    t = {"PORTCHANNEL": {}, "PORTCHANNEL_MEMBER": {}, "VLAN": {}, "VLAN_MEMBER": {}, "VLAN_INTERFACE": {}}
    for pc in cfg.get("port_channels", ()):
        t["PORTCHANNEL"][pc["name"]] = {"admin_status": "up", "mtu": _s(pc["mtu"]), "min_links": _s(pc["min_links"]),
                                        "description": pc["description"]}
        for member in pc["members"]:
            t["PORTCHANNEL_MEMBER"]["%s|%s" % (pc["name"], member)] = {}
    for vlan in cfg.get("vlans", ()):
        name = "Vlan%d" % vlan["id"]
        entry = {"vlanid": _s(vlan["id"])}
        if vlan.get("dhcp_relay_servers"):
            entry["dhcp_servers"] = list(vlan["dhcp_relay_servers"])
        if vlan.get("dhcp_relay_option82"):
            # The relay table of sonic-dhcpv4-relay.yang; option 82 itself is always inserted by SONiC's relay.
            t.setdefault("DHCPV4_RELAY", {})[name] = {
                "dhcpv4_servers": list(vlan["dhcp_relay_servers"]),
                "agent_relay_mode": vlan["dhcp_relay_option82"]["existing"]}
        t["VLAN"][name] = entry
        for mode in ("untagged", "tagged"):
            for member in vlan[mode]:
                t["VLAN_MEMBER"]["%s|%s" % (name, member)] = {"tagging_mode": mode}
        t["VLAN_INTERFACE"][name] = {}
        t["VLAN_INTERFACE"]["%s|%s" % (name, vlan["ipv4"])] = {}
        if vlan.get("unique_ip"):
            t["MCLAG_UNIQUE_IP"] = {name: {"unique_ip": "enable"}}
        if vlan.get("virtual_gateway"):
            # Community SONiC's static anycast gateway (sonic-static-anycast-gateway.yang): both leaves of
            # the pair carry the gateway address and answer for it with the one SAG|GLOBAL MAC.
            t["SAG"] = {"GLOBAL": {"gateway_mac": vlan["virtual_gateway_mac"]}}
            t["VLAN_INTERFACE"][name] = {"static_anycast_gateway": "true"}
            t["VLAN_INTERFACE"]["%s|%s" % (name, vlan["virtual_gateway"])] = {"secondary": "true"}
    m = cfg.get("mclag")
    if m:
        t["MCLAG_DOMAIN"] = {_s(m["domain_id"]): {
            "source_ip": m["source_ip"], "peer_ip": m["peer_ip"], "peer_link": m["peer_link"],
            "keepalive_interval": _s(m["keepalive_interval_s"]), "session_timeout": _s(m["session_timeout_s"])}}
        t["MCLAG_INTERFACE"] = {"%d|%s" % (m["domain_id"], pc): {"if_type": "PortChannel"} for pc in m["members"]}
        # iccpd, the MC-LAG control daemon, runs only when its feature is enabled (off in the factory config).
        t["FEATURE"] = {"iccpd": {"state": "enabled"}}
    return t


def _tenant_acls(cfg):
    """Ingress L3 ACLs of tenant isolation (structured/tenant_acl.py): rules in precedence order get
    descending PRIORITY (SONiC: higher first); hit counters polled through FLEX_COUNTER_TABLE."""
    tables = {"ACL_TABLE": {}, "ACL_RULE": {}}
    for acl in cfg["tenant_isolation"]["acls"]:
        tables["ACL_TABLE"][acl["name"]] = {
            "type": "L3", "stage": acl["stage"], "ports": list(acl["ports"]),
            "policy_desc": "tenant %s: %s" % (acl["tenant"], ", ".join(acl["servers"]))[:255]}
        for n, rule in enumerate(acl["rules"], 1):
            row = {"PRIORITY": _s(TENANT_ACL_TOP_PRIORITY - n), "IP_TYPE": "IPV4ANY",
                   "PACKET_ACTION": "FORWARD" if rule["action"] == "permit" else "DROP"}
            if rule["destination"] != "any":
                row["DST_IP"] = rule["destination"]
            tables["ACL_RULE"]["%s|RULE_%d" % (acl["name"], n)] = row
    if any(acl["counters"] for acl in cfg["tenant_isolation"]["acls"]):
        tables["FLEX_COUNTER_TABLE"] = {"ACL": {"FLEX_COUNTER_STATUS": "enable"}}
    return tables


def _tenant_vrfs(cfg):
    """VRF mode (structured/tenant_vrf.py): a VRF per tenant on the leaf, its ports bound to it."""
    tables = {"VRF": {}, "INTERFACE": {}}
    for vrf in cfg["tenant_isolation"].get("vrfs", ()):
        tables["VRF"][vrf["name"]] = {}
        for port in vrf["ports"]:
            tables["INTERFACE"][port] = {"vrf_name": vrf["name"]}
    return tables


def config_db(cfg):
    """The SONiC config_db tables of one switch, from its structured config."""
    parts = [_metadata, _ports, _management, _l2]
    if "loopback" in cfg:
        parts.append(_loopback)
    if "qos" in cfg:
        parts.append(_qos)
    if "tenant_isolation" in cfg:
        parts += [_tenant_acls, _tenant_vrfs]
    tables = {}
    for part in parts:
        for name, rows in part(cfg).items():  # parts may share a table (FEATURE, ACL_TABLE): rows add up
            tables.setdefault(name, {}).update(rows)
    # SONiC's schema rejects empty tables, and an absent table is what deploy removes.
    return {name: rows for name, rows in tables.items() if rows}
