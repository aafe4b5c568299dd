"""Out-of-band access switches: one flat management VLAN over every access port and the uplinks, an
in-band management address on it, and DHCP relay toward the provisioning host when the spec names one.
"""
from ..ipam import fmt

OOB_VLAN = 10
MGMT_INTERFACE = "Vlan%d" % OOB_VLAN


def oob_config(dev, interfaces, ctx, provisioning_host):
    use = {name: port_use for name, _speed, port_use, _ff in dev.model.ports}
    uplinks = [i for i in interfaces if i["peer"] is None and use[i["name"]] == "up"]
    for port in uplinks:
        # The OOB core is outside the plan, so uplinks are enabled but carry no peer.
        port["enabled"] = True
        port["description"] = "OOB uplink"
    vlan = {"id": OOB_VLAN, "name": "oob",
            "untagged": [i["name"] for i in interfaces if i["enabled"]],
            "tagged": [],
            "ipv4": "%s/%d" % (fmt(dev.mgmt), ctx.mgmt_prefix),
            "dhcp_relay_servers": [provisioning_host] if provisioning_host else []}
    return [vlan]
