"""The declared schema of a switch's structured config: the contract every NOS renderer (nos/<name>/),
every validation expectation and docs/switch-config.md are written against.

``SCHEMA_VERSION`` (major, minor): a new optional key is a minor step, a renamed, removed or retyped
key a major one. A NOS home states the version it reads (``STRUCTURED_SCHEMA``); ``check_reader`` refuses
a home written against another major version. Keys ending in ``?`` may be absent (the config has them
only for some roles or designs); ``Map(key type, value schema)`` is a mapping of any keys of one type.
``schema_errors`` checks a config against it, one "path: problem" line per departure.
"""
SCHEMA_VERSION = (1, 0)


class Map:
    """A mapping whose keys are all of ``key`` type and values all match ``value``."""
    __slots__ = ("key", "value")

    def __init__(self, key, value):
        self.key, self.value = key, value


OPT_STR = (str, type(None))
INTERFACE = {
    "name": str, "description": str, "enabled": bool, "peer": OPT_STR, "peer_interface": OPT_STR,
    "network": str, "tier": OPT_STR, "speed_gbps": int, "fec": str, "mtu": int,
    "cable_length_m?": (int, float), "ipv4?": str, "ipv6?": str, "channel_group?": str,
    "breakout?": {"port": str, "mode": str, "sub": int, "of": int},
}
NEIGHBOR = {"ip": str, "remote_as": int, "peer": str, "peer_interface": str, "interface": str, "local_ip": str,
            "description": str}
BGP = {
    "asn": int, "router_id": str, "multipath_relax": bool, "max_paths": int,
    "timers": {"keepalive": int, "hold": int},
    "bfd": {"profile": str, "min_rx_ms": int, "min_tx_ms": int, "multiplier": int},
    "allowas_in": int, "networks": [str], "summaries": [str], "neighbors": [NEIGHBOR],
    "summary_only?": bool,
    "drain?": {"route_map": str, "prepend": [int], "community": str},
}
QOS = {
    "profile": str, "description": str, "trust": str,
    "dscp_to_traffic_class": Map(int, int), "traffic_class_to_queue": Map(int, int),
    "traffic_class_to_priority_group": Map(int, int), "pfc_priority_to_queue": Map(int, int),
    "pfc_priorities": [int], "lossless_priority_groups": [int], "ecn_queues": [int],
    "ecn": {"min_threshold_bytes": int, "max_threshold_bytes": int, "mark_probability_percent": int},
    "strict_priority_queues": [int], "dwrr_weights": Map(int, int),
    "pfc_watchdog": {"detection_time_ms": int, "restoration_time_ms": int, "action": str, "poll_interval_ms": int},
    "interfaces": [str],
}
ACL = {"name": str, "tenant": str, "stage": str, "counters": bool, "ports": [str], "servers": [str],
       "rules": [{"action": str, "destination": str, "why": str}]}
VRF = {"name": str, "tenant": str, "id": int, "community": str, "community_list": str, "import_route_map": str,
       "ports": [str], "servers": [str]}
VLAN = {
    "id": int, "name": str, "untagged": [str], "tagged": [str], "ipv4": str,
    "virtual_gateway?": str, "virtual_gateway_mac?": str, "unique_ip?": bool,
    "dhcp_relay_servers?": [str], "dhcp_relay_option82?": {"circuit_id": str, "existing": str},
}
SCHEMA = {
    "hostname": str, "role": str, "network": str, "model": str, "nos": str, "rack": str,
    "rail?": int, "plane?": int, "pod?": int, "su?": int, "side?": str, "zone?": int,
    "ethernet_interfaces": [INTERFACE],
    "breakouts?": Map(str, str),
    "loopback?": {"name": str, "ipv4": str, "ipv6?": str},
    "management": {"interface": str, "vrf": str, "ipv4": str, "gateway": str, "allowed_sources": [str],
                   "protected_services": [str]},
    "services": {"ntp_servers": [str], "syslog_servers": [str], "tacacs_servers": [str],
                 "snmp": {"location": str, "contact": str},
                 "lldp": {"enabled": bool, "hello_time_s": int, "multiplier": int}},
    "bgp?": BGP,
    "qos?": QOS,
    "tenant_isolation?": {"mode": str, "acls": [ACL], "export_route_map?": str, "vrfs?": [VRF]},
    "port_channels?": [{"name": str, "members": [str], "peer": str, "peer_interface": str, "description": str,
                        "mtu": int, "min_links": int, "lacp": str, "mclag": bool}],
    "vlans?": [VLAN],
    "mclag?": {"domain_id": int, "role": str, "peer": str, "source_ip": str, "peer_ip": str, "peer_link": str,
               "keepalive_interval_s": int, "session_timeout_s": int, "members": [str]},
    "static_routes?": [{"prefix": str, "next_hop": str}],
}


def _type_error(value, types, path):
    types = types if isinstance(types, tuple) else (types,)
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        return ["%s: %r is not %s" % (path, value, " or ".join(t.__name__ for t in types))]
    return []


def schema_errors(value, schema=None, path="switch"):
    """Every place where ``value`` departs from ``schema`` (SCHEMA by default), as "path: problem" lines."""
    schema = SCHEMA if schema is None else schema
    if isinstance(schema, Map):
        if not isinstance(value, dict):
            return ["%s: a mapping expected, got %r" % (path, value)]
        errors = []
        for key, item in value.items():
            errors += _type_error(key, schema.key, "%s key %r" % (path, key))
            errors += schema_errors(item, schema.value, "%s.%s" % (path, key))
        return errors
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return ["%s: a mapping expected, got %r" % (path, value)]
        keys = {k.rstrip("?"): k.endswith("?") for k in schema}
        errors = ["%s: unknown key %r" % (path, k) for k in value if k not in keys]
        for key, sub in schema.items():
            name = key.rstrip("?")
            if name in value:
                errors += schema_errors(value[name], sub, "%s.%s" % (path, name))
            elif not keys[name]:
                errors.append("%s.%s: missing" % (path, name))
        return errors
    if isinstance(schema, list):
        if not isinstance(value, list):
            return ["%s: a list expected, got %r" % (path, value)]
        return [e for i, item in enumerate(value) for e in schema_errors(item, schema[0], "%s[%d]" % (path, i))]
    return _type_error(value, schema, path)


def check_reader(name, version):
    """Refuse a reader (a NOS home's renderer) written against another major version of the schema."""
    if tuple(version)[0] != SCHEMA_VERSION[0] or tuple(version) > SCHEMA_VERSION:
        raise ValueError("nos %s reads structured config schema %s, the collection writes %s: update nos/%s/"
                         % (name, ".".join(map(str, version)), ".".join(map(str, SCHEMA_VERSION)), name))
