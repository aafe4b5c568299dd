"""What every switch of one fabric shares, computed once per plan: management subnet, services, QoS profile.

Settings an operator chooses (NTP, syslog, SNMP, TACACS+, QoS profile) come from the optional spec
section ``switch_config``; until the spec declares it, they default to empty.
"""
import ipaddress

from ..ipam import fmt
from .qos import resolve_profile

DEFAULT_QOS_PROFILE = "rocev2_lossless"


def qos_profile_name(spec):
    """The QoS profile every backend port runs (the spec's choice, else the default)."""
    return (spec.get("switch_config") or {}).get("qos_profile") or DEFAULT_QOS_PROFILE


class FabricContext:
    __slots__ = ("plan", "mgmt_prefix", "mgmt_gateway", "mgmt_network", "services", "qos")

    def __init__(self, plan):
        self.plan = plan
        spec = plan.spec
        self.mgmt_network = str(ipaddress.ip_network(spec["oob"]["pool"]))
        self.mgmt_prefix = plan.mgmt_prefix
        self.mgmt_gateway = fmt(plan.mgmt_gateway)
        cfg = spec.get("switch_config") or {}
        snmp = cfg.get("snmp") or {}
        self.services = {
            "ntp_servers": list(cfg.get("ntp_servers") or []),
            "syslog_servers": list(cfg.get("syslog_servers") or []),
            "tacacs_servers": list(cfg.get("tacacs_servers") or []),
            "snmp_contact": snmp.get("contact") or "",
        }
        self.qos = resolve_profile(qos_profile_name(spec), cfg.get("qos_overrides"))
