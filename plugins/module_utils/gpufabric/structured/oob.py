"""Out-of-band access switches: one flat management VLAN over every access port and the uplinks, an
in-band management address on it, and DHCP relay toward the provisioning host when the spec names one.

The relay inserts option 82 so that the provisioning host answers by cabling position (docs/ztp.md).
The switch's relay agent (isc-dhcp-relay, run as ``dhcrelay -m discard -a %h:%p %P``) writes the
circuit-id as "<hostname>:<port alias>": CIRCUIT_ID below is that format, and the one place the
provisioning side reads it from.
"""
from ..ipam import fmt

OOB_VLAN = 10
CIRCUIT_ID = "{hostname}:{port}"
# A request that already carries option 82 is dropped: a device on an access port must not be able
# to claim another position (relay-agent-mode "discard", dhcrelay -m discard).
OPTION82_EXISTING = "discard"


def circuit_id(hostname, port_alias):
    return CIRCUIT_ID.format(hostname=hostname, port=port_alias)


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
    if provisioning_host:
        vlan["dhcp_relay_option82"] = {"circuit_id": CIRCUIT_ID, "existing": OPTION82_EXISTING}
    return [vlan]


def mgmt_interface(dev):
    """The OOB switch's in-band management interface: its VLAN interface on the OOB VLAN."""
    return dev.model.platform["vlan_interface"].format(vid=OOB_VLAN)
