"""What a server's rail NICs carry for RoCE, read from the same resolved QoS profile as the switch ports.

The switch side (structured/qos.py, resolve_profile) and this module read one FabricContext.qos, so
``switch_config.qos_overrides`` moves the switch maps, the NIC settings and the NCCL traffic class together.
"""
from ..errors import SpecError

# The two low bits of the IP ToS byte are ECN: ECT(0) tells the switch it may mark instead of drop, which
# DCQCN needs; the upper six bits are the DSCP. NVIDIA's RoCE ToS 106 is DSCP 26 with ECT(0).
ECT0 = 0b10
ROCE_MODE = "RoCE v2"


def _dscps_on(profile, classes):
    return sorted(d for d, tc in profile["dscp_to_traffic_class"].items() if tc in classes)


def _only(values, what, profile):
    if len(values) != 1:
        raise SpecError("switch_config.qos_overrides", "the NICs need exactly one %s in QoS profile %r, it has %s"
                        % (what, profile["profile"], values or "none"))
    return values[0]


def roce_settings(profile, nic=None):
    """{trust, dscp, lossless_priority, pfc_priorities, ecn_priorities, cnp_dscp, cnp_priority, traffic_class,
    roce_mode, dscp_to_priority, mlxconfig} for every rail NIC of the fabric. ``nic`` is the NIC model's
    catalog facts (data/hardware.yml `nics`); its own firmware parameters join the RoCE ones."""
    own = dict((nic or {}).get("mlxconfig") or {})
    lossless = _only(list(profile["pfc_priorities"]), "lossless (PFC) priority", profile)
    dscp = _only(_dscps_on(profile, (lossless,)), "RoCE DSCP on priority %d" % lossless, profile)
    # CNPs ride the strict-priority class so congestion feedback overtakes the data it throttles.
    strict = profile["strict_priority_queues"]
    cnp_dscp = _only(_dscps_on(profile, strict), "CNP DSCP on a strict-priority class", profile)
    cnp_priority = profile["dscp_to_traffic_class"][cnp_dscp]
    return {
        "profile": profile["profile"],
        "trust": profile["trust"],
        "dscp": dscp,
        "lossless_priority": lossless,
        "pfc_priorities": [lossless],
        "ecn_priorities": [p for p in profile["ecn_queues"] if p == lossless],
        "cnp_dscp": cnp_dscp,
        "cnp_priority": cnp_priority,
        "traffic_class": (dscp << 2) | ECT0,
        "roce_mode": ROCE_MODE,
        # The NIC's default DSCP map is priority = DSCP >> 3 (26 -> 3 by luck, 24 -> 3 not 4): set both classes.
        "dscp_to_priority": {dscp: lossless, cnp_dscp: cnp_priority},
        # Firmware parameters that survive a reboot (mlxconfig): CNP marking and the priorities DCQCN runs on.
        "mlxconfig": dict(own, CNP_DSCP_P1=cnp_dscp, CNP_802P_PRIO_P1=cnp_priority,
                          ROCE_CC_PRIO_MASK_P1=1 << lossless),
    }
