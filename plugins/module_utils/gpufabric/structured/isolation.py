"""A rail leaf's ``tenant_isolation`` section, in the mode the tenant assignment names: port ACLs
(structured/tenant_acl.py) or one VRF per tenant (structured/tenant_vrf.py)."""
from ..tenant_assignment import FREE_POOL, attached
from .tenant_acl import ports_by_tenant, tenant_acl
from .tenant_vrf import vrf_isolation


def tenant_isolation(leaf, plan):
    """The leaf's ``tenant_isolation`` section, or None when the plan has no tenant assignment."""
    by_tenant = ports_by_tenant(leaf, plan)
    if by_tenant is None:
        return None
    mode = attached(plan).isolation
    if mode == "vrf":
        return vrf_isolation(leaf, plan, by_tenant)
    acls = [tenant_acl(leaf, plan, tenant, by_tenant[tenant])
            for tenant in sorted(by_tenant, key=lambda t: (t == FREE_POOL, t))]
    return {"mode": mode, "acls": acls}
