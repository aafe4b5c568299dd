"""A Cumulus Linux switch's RoCE QoS as NVUE objects: `qos roce` lossless, the plan's DSCP map, PFC, ECN, scheduler
and PFC watchdog as the profiles RoCE mode uses, and adaptive routing where the switch has it."""
from ...errors import SpecError

# One profile name for every QoS object: the switch has one RoCE profile, applied to its backend ports.
QOS_PROFILE = "gpufabric-roce"
# NVUE's PFC watchdog polls every polling-interval ms and acts after `robustness` polls of a storm;
# its only action is to stop honouring pause frames on the queue (the QoS profile's pfc_watchdog action "drop").
PFC_WATCHDOG_ACTIONS = ("drop",)
# Adaptive routing: NVIDIA supports it on Spectrum-4 from Cumulus Linux 5.6 (earlier: Spectrum-2/3 beta),
# on routed ports, not on bonds or SVIs (NVUE command reference, "Adaptive Routing").
ADAPTIVE_ROUTING_MODELS = frozenset({"SN5600"})


def check_qos(profile, hostname="switch"):
    """Refuse a QoS profile NVUE cannot express (before anything is written)."""
    wd = profile["pfc_watchdog"]
    if wd["action"] not in PFC_WATCHDOG_ACTIONS:
        raise SpecError("switch_config.qos_overrides.pfc_watchdog.action", "%s runs Cumulus Linux, whose PFC "
                        "watchdog only stops honouring pause frames on a stormed queue (%r cannot be expressed): "
                        "set it to drop" % (hostname, wd["action"]))
    if wd["detection_time_ms"] % wd["poll_interval_ms"] or not 100 <= wd["poll_interval_ms"] <= 5000:
        raise SpecError("switch_config.qos_overrides.pfc_watchdog", "%s runs Cumulus Linux, whose PFC watchdog "
                        "detects a storm after a whole number of polls of 100-5000 ms (detection %d ms, poll "
                        "%d ms): make detection_time_ms a multiple of poll_interval_ms" % (
                            hostname, wd["detection_time_ms"], wd["poll_interval_ms"]))


def qos(cfg, doc):
    """`qos roce` lossless (NVIDIA's RoCE defaults), and the plan's own values stated as the profiles
    RoCE mode uses, so the switch carries exactly the DSCP, priority and ECN the servers' NICs are set to
    (both from structured/qos.py's profile)."""
    q = cfg["qos"]
    check_qos(q, cfg["hostname"])
    # All 64 code points: Cumulus Linux's default map sends DSCP 24-31 to priority 3, the profile does not.
    mapping = {"trust": "l3", "dscp": {str(dscp): {"switch-priority": tc}
                                       for dscp, tc in sorted(q["dscp_to_traffic_class"].items())}}
    ecn = q["ecn"]
    congestion = {"traffic-class": {str(tc): {"ecn": "enable", "red": "disable",
                                              "min-threshold": ecn["min_threshold_bytes"],
                                              "max-threshold": ecn["max_threshold_bytes"],
                                              "probability": ecn["mark_probability_percent"]}
                                    for tc in q["ecn_queues"]}}
    pfc = {"switch-priority": {str(p): {} for p in q["pfc_priorities"]}, "tx": "enable", "rx": "enable"}
    sched = {str(tc): {"mode": "dwrr", "bw-percent": w} for tc, w in q["dwrr_weights"].items()}
    sched.update({str(tc): {"mode": "strict"} for tc in q["strict_priority_queues"]})
    wd = q["pfc_watchdog"]
    doc["qos"] = {
        "roce": {"enable": "on", "mode": "lossless"},
        "mapping": {QOS_PROFILE: mapping},
        "pfc": {QOS_PROFILE: pfc},
        "congestion-control": {QOS_PROFILE: congestion},
        "egress-scheduler": {QOS_PROFILE: {"traffic-class": sched}},
        "pfc-watchdog": {"polling-interval": wd["poll_interval_ms"],
                         "robustness": wd["detection_time_ms"] // wd["poll_interval_ms"]},
    }
    ports = {i["name"]: i for i in cfg["ethernet_interfaces"]}
    adaptive = cfg["model"] in ADAPTIVE_ROUTING_MODELS
    for name in q["interfaces"]:
        iface = doc["interface"][name]
        iface["qos"] = {"mapping": {"profile": QOS_PROFILE}, "pfc": {"profile": QOS_PROFILE},
                        "congestion-control": {"profile": QOS_PROFILE},
                        "egress-scheduler": {"profile": QOS_PROFILE},
                        "pfc-watchdog": {"state": "enable"}}
        if adaptive and ports[name]["tier"] not in (None, "server"):
            # Adaptive routing spreads RoCE over the fabric links, not the server ports (user guide,
            # "Adaptive Routing": Spectrum-4, routed ports, RoCE traffic).
            iface["router"] = {"adaptive-routing": {"enable": "on"}}
    if adaptive:
        doc["router"]["adaptive-routing"] = {"enable": "on"}
