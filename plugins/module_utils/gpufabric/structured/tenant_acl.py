"""Tenant isolation on the rail leaves, ACL mode: one ingress ACL per tenant per leaf, bound to the
leaf's ports towards that tenant's servers.

A packet entering the fabric from a server port may go only to the /31s of its own tenant's NICs on
the same rail (rail-aligned, as NCCL sends between servers: PXN moves data to the right rail over
NVLink first), or to the leaf itself (its loopback and its own end of each bound
port); every other IPv4 packet is dropped, and counted. Non-IP frames (ARP) are not matched, so
neighbour resolution keeps working. Servers run no BGP or BFD towards the leaf, so nothing else is
needed. Filtering on entry is enough: every packet a server receives entered the fabric at some
server port, where the sender's ACL allowed only its own tenant. Servers in no tenant (the free
pool) reach only their leaf. Only match and drop: DSCP, ECN and queues of RoCE are untouched.
"""
import ipaddress

from ..ipam import cidr, fmt
from ..tenants import FREE_POOL, attached

QUARANTINE = "QUARANTINE"


def acl_name(tenant):
    return QUARANTINE if tenant == FREE_POOL else "TENANT_" + tenant.upper().replace("-", "_")


def server_ports(leaf):
    """[(port, server, /31 base)] of a leaf's cabled server ports, in port order of the plan."""
    out = []
    for link in leaf.links:
        if link.network == "backend" and link.tier == "server" and link.a is leaf:
            out.append((link.a_port, link.b, link.ipv4))
    return out


class TenantNetworks:
    """Per plan: the collapsed /31s of each tenant's NICs per rail (one list shared by the rail's leaves)."""

    def __init__(self, plan, assignment):
        self.plan = plan
        self.assignment = assignment
        self.links = {}   # tenant -> [(leaf, /31 base)]
        self.collapsed = {}   # (tenant, rail) -> [prefix]
        for link in plan.links:
            if link.network == "backend" and link.tier == "server" and link.b.role == "gpu_server":
                self.links.setdefault(assignment.tenant_of(link.b.name), []).append((link.a, link.ipv4))

    def _collapsed(self, tenant, rail):
        key = (tenant, rail)
        if key not in self.collapsed:
            nets = [ipaddress.ip_network(cidr(base, 31)) for leaf, base in self.links.get(tenant, ()) if leaf.rail == rail]
            self.collapsed[key] = [str(n) for n in ipaddress.collapse_addresses(nets)]
        return self.collapsed[key]

    def for_leaf(self, tenant, leaf):
        return [] if tenant == FREE_POOL else self._collapsed(tenant, leaf.rail)


def _networks(plan):
    cached = getattr(plan, "_tenant_networks", None)
    assignment = attached(plan)
    if cached is None or cached.assignment is not assignment:
        cached = plan._tenant_networks = TenantNetworks(plan, assignment)
    return cached


def tenant_isolation(leaf, plan):
    """The leaf's ``tenant_isolation`` section, or None when the plan has no tenant assignment."""
    assignment = attached(plan)
    if assignment is None or leaf.role != "backend_leaf":
        return None
    ports = server_ports(leaf)
    if not ports:
        return None
    networks = _networks(plan)
    by_tenant = {}
    for port, server, base in ports:
        by_tenant.setdefault(assignment.tenant_of(server.name), []).append((port, server.name, base))
    acls = []
    for tenant in sorted(by_tenant, key=lambda t: (t == FREE_POOL, t)):
        bound = by_tenant[tenant]
        own = [cidr(leaf.loopback, 32)] + ["%s/32" % fmt(base) for _port, _server, base in bound]
        permit = networks.for_leaf(tenant, leaf)
        covered = [ipaddress.ip_network(n) for n in permit]
        extra = [n for n in own if not any(ipaddress.ip_network(n).subnet_of(c) for c in covered)]
        rules = [{"action": "permit", "destination": n, "why": "tenant %s, rail %d" % (tenant, leaf.rail)}
                 for n in permit]
        rules += [{"action": "permit", "destination": n, "why": "the leaf itself"} for n in extra]
        rules.append({"action": "deny", "destination": "any", "why": "every other IPv4 packet"})
        acls.append({"name": acl_name(tenant), "tenant": tenant, "stage": "ingress", "counters": True,
                     "ports": [port for port, _server, _base in bound],
                     "servers": sorted({server for _port, server, _base in bound}), "rules": rules})
    return {"mode": assignment.isolation, "acls": acls}
