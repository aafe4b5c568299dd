"""What a SONiC rail leaf enforces of tenant isolation now, read from the switch: its running CONFIG_DB (the
output of ``show runningconfiguration all``), so a tenant change starts from the fabric as it is and not from
a file an earlier run left (tenants/live.py turns the readings of every rail leaf into the running assignment).

The collection renders (config_db.py) each tenant's ingress L3 ACL table with ``policy_desc`` "tenant NAME:
servers" and, in VRF mode, each tenant's ports into the VRF ``Vrf-NAME`` (INTERFACE|port vrf_name)."""
import json

# The command whose output is the switch's running CONFIG_DB as JSON.
RUNNING_COMMAND = "show runningconfiguration all"
_TENANT_DESC = "tenant "
_VRF_PREFIX = "Vrf-"


def bindings(running):
    """{"acl": {port: tenant}, "vrf": {port: tenant}} of a running CONFIG_DB (a dict or its JSON text): the
    tenant of the ACL table bound to each port, and of the VRF each routed port is in."""
    if isinstance(running, str):
        running = json.loads(running) if running.strip() else {}
    acl, vrf = {}, {}
    for _name, row in sorted((running.get("ACL_TABLE") or {}).items()):
        desc = row.get("policy_desc") or ""
        if row.get("type") != "L3" or (row.get("stage") or "ingress").lower() != "ingress" \
                or not desc.startswith(_TENANT_DESC) or ":" not in desc:
            continue   # control-plane ACLs, and any table the collection did not write, isolate no tenant
        tenant = desc[len(_TENANT_DESC):].split(":", 1)[0]
        ports = row.get("ports") or []
        for port in ports.split(",") if isinstance(ports, str) else ports:
            acl[port] = tenant
    for key, row in (running.get("INTERFACE") or {}).items():
        name = (row or {}).get("vrf_name") or ""
        if "|" not in key and name.startswith(_VRF_PREFIX):
            vrf[key] = name[len(_VRF_PREFIX):]
    return {"acl": acl, "vrf": vrf}
