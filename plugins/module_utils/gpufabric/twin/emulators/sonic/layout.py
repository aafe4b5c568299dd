"""What a SONiC switch's namespace on the twin is made of, read from its rendered config_db.json: the twin builds
the namespace (twin/desired.py) from this neutral description, so it runs what we render, not a second reading of
the plan.

PORT gives each port's MTU (SONiC's default 9100) and admin state; INTERFACE, VLAN_INTERFACE, LOOPBACK_INTERFACE and
MGMT_INTERFACE ("name|cidr" keys) the addresses; PORTCHANNEL_MEMBER the LAG members; VLAN_MEMBER the VLAN a port
joins; VLAN the bridges; ACL_TABLE/ACL_RULE the port filters (acl.py); VRF and INTERFACE vrf_name the tenant VRFs.
"""
import json

from .acl import AclError, port_rules

CONFIG_FILE = "config_db.json"
DEFAULT_MTU = 9100


class LayoutError(ValueError):
    """The rendered config_db cannot be represented on the twin; the message names the table or rule."""


def addresses(table):
    """{'Ethernet0': ['10.0.0.0/31'], ...} from an INTERFACE-like table ("name|cidr" keys)."""
    out = {}
    for key in table or {}:
        if "|" in key:
            name, addr = key.split("|", 1)
            out.setdefault(name, []).append(addr)
    return out


def tenant_vrfs(config_db):
    """{VRF name: [ports]} of a config_db (VRF table, INTERFACE vrf_name)."""
    out = {name: [] for name in config_db.get("VRF", {})}
    for key, row in sorted(config_db.get("INTERFACE", {}).items()):
        if "|" not in key and row.get("vrf_name"):
            out.setdefault(row["vrf_name"], []).append(key)
    return out


def layout(text):
    """The twin's description of a switch from its rendered config_db.json text (the plane interface, docs/twin.md):
    {"native": the config_db (what the management plane is loaded with), "ports": {port: {"mtu", "addrs", "up"}},
    "lags": {lag: [member ports, first first]}, "bridge_of": {port: bridge}, "bridges": {bridge: [addrs]},
    "loopback": [addrs], "mgmt": {port: [addrs]}, "acl": {port: [nft rule text]}, "vrfs": {vrf: [ports]}}."""
    db = json.loads(text)
    addrs = addresses(db.get("INTERFACE"))
    ports = {name: {"mtu": int(row.get("mtu", DEFAULT_MTU)), "addrs": addrs.get(name, []),
                    "up": row.get("admin_status", "up") == "up"} for name, row in db.get("PORT", {}).items()}
    lags = {}
    for key in sorted(db.get("PORTCHANNEL_MEMBER", {})):
        lag, member = key.split("|", 1)
        lags.setdefault(lag, []).append(member)
    bridge_of = {}
    for key in db.get("VLAN_MEMBER", {}):
        vlan, member = key.split("|", 1)
        bridge_of[member] = vlan
    vlan_addrs = addresses(db.get("VLAN_INTERFACE"))
    try:
        acl = port_rules(db)
    except AclError as exc:
        raise LayoutError(str(exc))
    return {"native": db, "ports": ports, "lags": lags, "bridge_of": bridge_of,
            "bridges": {name: vlan_addrs.get(name, []) for name in sorted(db.get("VLAN", {}))},
            "loopback": [a for found in addresses(db.get("LOOPBACK_INTERFACE")).values() for a in found],
            "mgmt": addresses(db.get("MGMT_INTERFACE")), "acl": acl, "vrfs": tenant_vrfs(db)}
