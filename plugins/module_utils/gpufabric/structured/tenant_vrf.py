"""Tenant isolation on the rail leaves, VRF mode: one VRF per tenant present on a leaf, the leaf's
ports towards a tenant's servers bound to it; servers in no tenant stay in the default VRF behind
the free pool's port ACL (structured/tenant_acl.py), which names only the leaf's own addresses.

Membership travels in BGP, not in configuration: each tenant VRF's connected /31s are leaked into
the default VRF tagged with the tenant's community (64512:<tenant id>), travel over the existing
eBGP fabric as host routes, and every leaf's VRF of that tenant imports from the default VRF only
routes carrying that community. A server can send only into its own tenant's table, which holds no
route to another tenant's NICs, so a cross-tenant packet is dropped at its first leaf. A server that
changes tenant changes only the leaves that serve it (its ports' VRF binding, and a VRF that appears
or goes); the other leaves learn its /31s under the new community with no change of their own.

Consequences: the leaf's server-link aggregate is still announced, but no longer `summary-only`, so
every server /31 of the fabric is a route on every leaf and spine (lab: 32; 16,384 GPUs: 16,384),
and every tenant VRF holds its tenant's /31s on every rail (tenants reach across rails over the
spines where the design allows). The encapsulation is none: RoCE's DSCP, ECN and queues are as
without tenants. See docs/tenancy.md.
"""
from ..tenant_assignment import FREE_POOL, attached
from .tenant_acl import tenant_acl

# The high half of every tenant community: the first private ASN (RFC 6996), never a fabric ASN here.
COMMUNITY_ASN = 64512
EXPORT_ROUTE_MAP = "TENANT_EXPORT"


def announces_host_routes(plan):
    """Whether the leaves announce every server /31 beside their aggregate (VRF mode: each carries its
    tenant's community), rather than the aggregate alone."""
    assignment = attached(plan)
    return assignment is not None and assignment.isolation == "vrf"


def vrf_name(tenant):
    return "Vrf-" + tenant


def community(tenant_id):
    return "%d:%d" % (COMMUNITY_ASN, tenant_id)


def _tag(tenant):
    return "TENANT_" + tenant.upper().replace("-", "_")


def vrf_isolation(leaf, plan, by_tenant):
    """The leaf's ``tenant_isolation`` section in VRF mode."""
    assignment = attached(plan)
    vrfs = []
    for tenant in sorted(t for t in by_tenant if t != FREE_POOL):
        bound = by_tenant[tenant]
        tenant_id = assignment.ids[tenant]
        vrfs.append({"name": vrf_name(tenant), "tenant": tenant, "id": tenant_id, "community": community(tenant_id),
                     "community_list": _tag(tenant), "import_route_map": _tag(tenant) + "_IMPORT",
                     "ports": [port for port, _server, _base, _sp in bound],
                     "servers": sorted({server.name for _port, server, _base, _sp in bound})})
    acls = [tenant_acl(leaf, plan, FREE_POOL, by_tenant[FREE_POOL])] if FREE_POOL in by_tenant else []
    return {"mode": "vrf", "export_route_map": EXPORT_ROUTE_MAP, "vrfs": vrfs, "acls": acls}
