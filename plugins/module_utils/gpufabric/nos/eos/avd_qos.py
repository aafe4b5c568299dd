"""A switch's RoCE QoS and its tenants as ``eos_cli_config_gen`` input, after Arista's AI networking deployment
guidance (docs/eos.md): DSCP trust and the plan's DSCP-to-traffic-class map, priority-flow-control with the
lossless priorities no-drop on every port the QoS profile names, a QoS profile (``service-profile``) giving each
tx-queue its scheduling and the lossless queue its ECN marking (random-detect ecn), and the PFC watchdog.

Every value is the plan's (structured/qos.py, from data/qos_profiles.yml): nothing here picks a DSCP or a class.
"""
from ...errors import SpecError

# One QoS profile, applied to every port the structured config's QoS names.
QOS_PROFILE = "GPUFABRIC-ROCE"
# EOS's PFC watchdog actions (priority-flow-control pause watchdog action): drop, notify-only, errdisable.
WATCHDOG_ACTIONS = {"drop": "drop", "alert": "notify-only"}
# How many DSCP values one `qos map dscp ... to traffic-class` line lists.
DSCP_PER_LINE = 8


def check_qos(q, hostname):
    """Refuse a QoS profile EOS cannot express as written here (before anything is written)."""
    if q["trust"] != "dscp":
        raise SpecError("switch_config.qos_overrides.trust", "%s runs Arista EOS, rendered here with DSCP trust only "
                        "(%r given): set trust to dscp" % (hostname, q["trust"]))
    if q["pfc_priority_to_queue"] != q["traffic_class_to_queue"]:
        raise SpecError("switch_config.qos_overrides.pfc_priority_to_queue", "%s runs Arista EOS, where a PFC "
                        "priority pauses the traffic class of that number and its tx-queue: make "
                        "pfc_priority_to_queue equal traffic_class_to_queue" % hostname)
    if q["pfc_watchdog"]["action"] not in WATCHDOG_ACTIONS:
        raise SpecError("switch_config.qos_overrides.pfc_watchdog.action", "%s runs Arista EOS, whose PFC watchdog "
                        "drops or only notifies (%r cannot be expressed): set it to %s"
                        % (hostname, q["pfc_watchdog"]["action"], " or ".join(sorted(WATCHDOG_ACTIONS))))


def _seconds(ms):
    return "%g" % (ms / 1000.0)


def _threshold(value):
    return (value // 1024, "kbytes") if value % 1024 == 0 else (value, "bytes")


def _dscp_map(q):
    by_class = {}
    for dscp, tc in sorted(q["dscp_to_traffic_class"].items()):
        by_class.setdefault(tc, []).append(dscp)
    lines = []
    for tc, values in sorted(by_class.items()):
        for i in range(0, len(values), DSCP_PER_LINE):
            lines.append("%s to traffic-class %d" % (" ".join(str(v) for v in values[i:i + DSCP_PER_LINE]), tc))
    return lines


def _tx_queues(q):
    """The profile's tx-queues: each DWRR queue its bandwidth share, each strict queue strict, the ECN queues'
    random-detect ecn thresholds (bytes as the plan gives them) and marking probability."""
    queue_of = q["traffic_class_to_queue"]
    ecn = q["ecn"]
    queues = {}
    for tc, weight in q["dwrr_weights"].items():
        queues[queue_of[tc]] = {"id": queue_of[tc], "priority": "no priority", "bandwidth_percent": weight}
    for tc in q["strict_priority_queues"]:
        queues[queue_of[tc]] = {"id": queue_of[tc], "priority": "priority strict"}
    low, units = _threshold(ecn["min_threshold_bytes"])
    high, high_units = _threshold(ecn["max_threshold_bytes"])
    if units != high_units:
        low, high, units = ecn["min_threshold_bytes"], ecn["max_threshold_bytes"], "bytes"
    for tc in q["ecn_queues"]:
        queue = queues.setdefault(queue_of[tc], {"id": queue_of[tc]})
        queue["random_detect"] = {"ecn": {"threshold": {"units": units, "min": low, "max": high,
                                                        "max_probability": max(1, ecn["mark_probability_percent"])}}}
    return [queues[k] for k in sorted(queues)]


def qos(cfg, out):
    q = cfg["qos"]
    check_qos(q, cfg["hostname"])
    out["qos"] = {"map": {"dscp": _dscp_map(q)}}
    if any(tc != queue for tc, queue in q["traffic_class_to_queue"].items()):
        out["qos"]["map"]["traffic_class"] = ["%d to tx-queue %d" % (tc, queue)
                                              for tc, queue in sorted(q["traffic_class_to_queue"].items())]
    wd = q["pfc_watchdog"]
    out["priority_flow_control"] = {"watchdog": {
        "action": WATCHDOG_ACTIONS[wd["action"]], "timeout": _seconds(wd["detection_time_ms"]),
        "polling_interval": _seconds(wd["poll_interval_ms"]), "recovery_time": _seconds(wd["restoration_time_ms"])}}
    out["qos_profiles"] = [{"name": QOS_PROFILE, "tx_queues": _tx_queues(q)}]
    pfc = {"enabled": True, "priorities": [{"priority": p, "no_drop": True} for p in q["pfc_priorities"]]}
    ports = set(q["interfaces"])
    for port in out["ethernet_interfaces"]:
        if port["name"] in ports:
            port["qos"] = {"trust": "dscp"}
            port["priority_flow_control"] = dict(pfc)
            port["service_profile"] = QOS_PROFILE


def tenants(cfg, out):
    """Tenant isolation: ACL mode as IPv4 ACLs bound inbound to the server ports; VRF mode as one VRF per tenant
    holding its ports, routes leaked with the default VRF by community (router general leak routes, EOS's
    RIB leaking), the structured config's route-maps and community lists as they are named there."""
    ti = cfg["tenant_isolation"]
    ports = {p["name"]: p for p in out["ethernet_interfaces"]}
    for acl in ti["acls"]:
        # An EOS ACL entry is a rule or a remark: each rule's reason is a remark just before it.
        entries = []
        for n, rule in enumerate(acl["rules"], 1):
            entries.append({"sequence": 10 * n - 5, "remark": rule["why"][:100]})
            entries.append({"sequence": 10 * n, "action": rule["action"], "protocol": "ip", "source": "any",
                            "destination": rule["destination"]})
        out.setdefault("ip_access_lists", []).append({"name": acl["name"], "counters_per_entry": acl["counters"],
                                                      "entries": entries})
        for port in acl["ports"]:
            ports[port]["access_group_in"] = acl["name"]
    vrfs = ti.get("vrfs") or []
    if not vrfs:
        return
    b = cfg["bgp"]
    route_maps = out.setdefault("route_maps", [])
    general = []
    for vrf in vrfs:
        out.setdefault("vrfs", []).append({"name": vrf["name"], "ip_routing": True})
        for port in vrf["ports"]:
            ports[port]["vrf"] = vrf["name"]
        out.setdefault("ip_community_lists", []).append({"name": vrf["community_list"], "entries": [
            {"action": "permit", "communities": [vrf["community"]]}]})
        route_maps.append({"name": vrf["import_route_map"], "sequence_numbers": [
            {"sequence": 10, "type": "permit", "match": ["community %s" % vrf["community_list"]]}]})
        # EOS subscribes a VRF to each source VRF with a policy of its own, so the default VRF's export policy is
        # one route-map per tenant VRF (<export_route_map>-<vrf>), tagging that VRF's routes with its community.
        route_maps.append({"name": export_map(ti, vrf), "sequence_numbers": [
            {"sequence": 10, "type": "permit", "set": ["community %s additive" % vrf["community"]]}]})
        general.append({"name": vrf["name"], "leak_routes": [{"source_vrf": "default",
                                                              "subscribe_policy": vrf["import_route_map"]}]})
        out["router_bgp"].setdefault("vrfs", []).append({
            "name": vrf["name"], "router_id": b["router_id"],
            "maximum_paths": {"paths": b["max_paths"], "ecmp": b["max_paths"]},
            "redistribute": {"connected": {"enabled": True}}})
    general.append({"name": "default", "leak_routes": [{"source_vrf": v["name"], "subscribe_policy": export_map(ti, v)}
                                                       for v in vrfs]})
    out["router_general"] = {"vrfs": general}
    connected = out["router_bgp"].get("redistribute", {}).get("connected")
    if connected:
        # The tenant VRFs' server links, leaked into the default VRF, feed its summaries as the default VRF's own do.
        connected["include_leaked"] = True


def export_map(ti, vrf):
    """The route-map the default VRF subscribes to tenant VRF ``vrf`` with."""
    return "%s-%s" % (ti["export_route_map"], vrf["name"])
