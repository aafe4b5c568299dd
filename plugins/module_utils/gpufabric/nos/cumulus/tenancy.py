"""What a Cumulus rail leaf enforces of tenant isolation now, read from the switch: its applied NVUE configuration
(the output of ``nv config show -o json``: NVUE's header document, then one ``set`` of the applied tree), so a
tenant change starts from the fabric as it is (tenants/live.py puts the leaves together).

The collection renders (nvue.py) each tenant's ipv4 ACL bound inbound to that tenant's server ports, named by
structured/tenant_acl.acl_name (TENANT_<NAME>, the free pool's QUARANTINE), and, in VRF mode, each tenant's ports
into the VRF ``Vrf-<name>`` (``interface.<port>.ip.vrf``). A tenant name has no underscore and no capital
(tenant_assignment.py), so the ACL's name gives it back."""
import json

from ...structured.tenant_acl import tenant_of_acl
from ...structured.tenant_vrf import vrf_name

# The command whose output is the switch's applied configuration as JSON.
RUNNING_COMMAND = "nv config show -o json"
_VRF_PREFIX = vrf_name("")


def applied_tree(running):
    """The applied NVUE tree of ``running`` (``nv config show -o json`` text, its parsed list of documents, or a
    tree): the ``set`` documents merged in order."""
    if isinstance(running, str):
        running = json.loads(running) if running.strip() else []
    if isinstance(running, dict):
        return running
    if not isinstance(running, list):
        raise ValueError("expected a list of NVUE documents, got %s" % type(running).__name__)
    tree = {}
    for doc in running:
        if isinstance(doc, dict) and isinstance(doc.get("set"), dict):
            tree.update(doc["set"])
    return tree


def bindings(running):
    """{"acl": {port: tenant}, "vrf": {port: tenant}} of a running Cumulus switch: the tenant of the ACL bound
    inbound to each port, and of the VRF each routed port is in."""
    tree = applied_tree(running)
    acl, vrf = {}, {}
    defined = tree.get("acl") or {}
    for port, conf in sorted((tree.get("interface") or {}).items()):
        conf = conf or {}
        for name, how in sorted((conf.get("acl") or {}).items()):
            tenant = tenant_of_acl(name)
            # Control-plane and hand-made ACLs isolate no tenant; an ACL bound but not defined enforces nothing.
            if tenant is None or "inbound" not in (how or {}) or (defined.get(name) or {}).get("type") != "ipv4":
                continue
            acl[port] = tenant
        name = ((conf.get("ip") or {}).get("vrf")) or ""
        if name.startswith(_VRF_PREFIX) and len(name) > len(_VRF_PREFIX):
            vrf[port] = name[len(_VRF_PREFIX):]
    return {"acl": acl, "vrf": vrf}
