"""The RoCEv2 lossless QoS profile: where DSCP 26 maps to priority 3 and which queues get PFC and ECN.

The profile comes from data/qos_profiles.yml by name; the spec may pick another name and override
any key. The result is NOS-neutral maps that every backend switch port shares, so both ends of a
backend link always carry identical PFC and ECN settings.
"""
from ..datafiles import load, merge
from ..errors import SpecError

TRAFFIC_CLASSES = range(8)


def resolve_profile(name, overrides=None):
    """The named profile with ``overrides`` merged in, as NOS-neutral maps (one per fabric, shared)."""
    profiles = load("qos_profiles")
    if name not in profiles:
        raise SpecError("switch_config.qos_profile", "unknown QoS profile %r; known: %s" % (name, ", ".join(sorted(profiles))))
    raw = merge(profiles[name], overrides)
    # A validated override fills the keys a class leaves out with None: out means "not set".
    raw["classes"] = [{k: v for k, v in c.items() if v is not None} for c in raw["classes"]]
    dscp_to_tc = {dscp: raw["default_traffic_class"] for dscp in range(64)}
    for cls in raw["classes"]:
        for dscp in cls["dscp"]:
            dscp_to_tc[dscp] = cls["traffic_class"]
    lossless = sorted(c["traffic_class"] for c in raw["classes"] if c.get("lossless"))
    if not lossless:
        raise SpecError("switch_config.qos_overrides", "profile %r has no lossless class: RoCEv2 needs one "
                        "(a class with lossless: true)" % name)
    return {
        "profile": name,
        "description": raw["description"],
        "trust": "dscp",
        "dscp_to_traffic_class": dscp_to_tc,
        # Queue n serves traffic class n and, for the lossless classes, priority group n: one lossless
        # class per PFC priority keeps pause frames from stopping anything else.
        "traffic_class_to_queue": {tc: tc for tc in TRAFFIC_CLASSES},
        "traffic_class_to_priority_group": {tc: (tc if tc in lossless else 0) for tc in TRAFFIC_CLASSES},
        "pfc_priority_to_queue": {p: p for p in TRAFFIC_CLASSES},
        "pfc_priorities": list(lossless),
        "lossless_priority_groups": list(lossless),
        "ecn_queues": sorted(c["traffic_class"] for c in raw["classes"] if c.get("ecn")),
        "ecn": dict(raw["ecn"]),
        "strict_priority_queues": sorted(c["traffic_class"] for c in raw["classes"] if c.get("strict_priority")),
        "dwrr_weights": dict(sorted((c["traffic_class"], c["dwrr_weight"]) for c in raw["classes"]
                                    if "dwrr_weight" in c)),
        "pfc_watchdog": dict(raw["pfc_watchdog"]),
    }


def qos_config(profile, interfaces):
    """The profile applied to ``interfaces`` (every backend port of a backend switch)."""
    return dict(profile, interfaces=[i["name"] for i in interfaces if i["enabled"] and i["network"] == "backend"])
