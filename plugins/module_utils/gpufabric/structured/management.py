"""Management plane: the management port in its own VRF, reachable only from the OOB network; NTP,
syslog, SNMP, TACACS+ and LLDP."""
from ..ipam import fmt

MGMT_VRF = "mgmt"
LLDP = {"enabled": True, "hello_time_s": 30, "multiplier": 4}


def management_config(dev, ctx, interface=None, vrf=MGMT_VRF):
    """``interface`` defaults to the model's management port; the OOB switch passes its in-band SVI."""
    return {
        "interface": interface or dev.model.mgmt_port,
        "vrf": vrf,
        "ipv4": "%s/%d" % (fmt(dev.mgmt), ctx.mgmt_prefix),
        "gateway": ctx.mgmt_gateway,
        # Control-plane ACL: SSH and SNMP are accepted only from the OOB network.
        "allowed_sources": [ctx.mgmt_network],
        "protected_services": ["ssh", "snmp"],
    }


def services_config(dev, ctx):
    svc = ctx.services
    return {
        "ntp_servers": svc["ntp_servers"],
        "syslog_servers": svc["syslog_servers"],
        "tacacs_servers": svc["tacacs_servers"],
        "snmp": {"location": dev.rack.name, "contact": svc["snmp_contact"]},
        "lldp": dict(LLDP),
    }
