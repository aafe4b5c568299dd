"""Tenant isolation on the rail leaves, ACL mode: one ingress ACL per tenant per leaf, bound to the
leaf's ports towards that tenant's servers.

A packet entering the fabric from a server port may go only to the /31s of its own tenant's NICs on
the rails of the leaf's ports (rail-aligned, as NCCL sends between servers: PXN moves data to the
right rail over NVLink first; a top-of-rack leaf carries every rail of its servers), or to the leaf
itself (its loopback and its own end of each bound port); every other IPv4 packet is dropped, and
counted. Non-IP frames (ARP) are not matched, so neighbour resolution keeps working. Servers run no
BGP or BFD towards the leaf, so nothing else is needed. Filtering on entry is enough: every packet a
server receives entered the fabric at some server port, where the sender's ACL allowed only its own
tenant. Servers in no tenant (the free pool) reach only their leaf. Only match and drop: DSCP, ECN
and queues of RoCE are untouched. The VRF mode (structured/tenant_vrf.py) uses the free pool's ACL.
"""
import ipaddress

from ..ipam import cidr, fmt
from ..tenant_assignment import FREE_POOL, attached

QUARANTINE = "QUARANTINE"
ACL_PREFIX = "TENANT_"


def acl_name(tenant):
    return QUARANTINE if tenant == FREE_POOL else ACL_PREFIX + tenant.upper().replace("-", "_")


def tenant_of_acl(name):
    """The tenant whose ACL ``acl_name`` named ``name`` (FREE_POOL for QUARANTINE), or None for any other name: what
    a switch's read-back of its bound ACLs gives each port."""
    if name == QUARANTINE:
        return FREE_POOL
    if name.startswith(ACL_PREFIX) and len(name) > len(ACL_PREFIX):
        return name[len(ACL_PREFIX):].lower().replace("_", "-")
    return None


def nic_rails(plan):
    """{server port name: rail}: a NIC's rail is its position among the server model's backend NICs
    (a top-of-rack leaf carries every rail, so the leaf cannot say)."""
    return {nic["name"]: rail for rail, nic in enumerate(plan.sizing.server_model.backend_nics)}


def server_ports(leaf):
    """[(port, server, /31 base, server port)] of a leaf's cabled server ports, in port order of the plan."""
    out = []
    for link in leaf.links:
        if link.network == "backend" and link.tier == "server" and link.a is leaf:
            out.append((link.a_port, link.b, link.ipv4, link.b_port))
    return out


class TenantNetworks:
    """Per plan: the collapsed /31s of each tenant's NICs per set of rails (shared by the leaves)."""

    def __init__(self, plan, assignment):
        self.plan = plan
        self.assignment = assignment
        self.links = {}   # tenant -> [(rail, /31 base)]
        self.collapsed = {}   # (tenant, rails) -> [prefix]
        rails = nic_rails(plan)
        for link in plan.links:
            if link.network == "backend" and link.tier == "server" and link.b.role == "gpu_server":
                self.links.setdefault(assignment.tenant_of(link.b.name), []).append((rails[link.b_port], link.ipv4))

    def for_rails(self, tenant, rails):
        key = (tenant, rails)
        if tenant == FREE_POOL:
            return []
        if key not in self.collapsed:
            nets = [ipaddress.ip_network(cidr(base, 31)) for rail, base in self.links.get(tenant, ()) if rail in rails]
            self.collapsed[key] = [str(n) for n in ipaddress.collapse_addresses(nets)]
        return self.collapsed[key]


def _networks(plan):
    cached = getattr(plan, "_tenant_networks", None)
    assignment = attached(plan)
    if cached is None or cached.assignment is not assignment:
        cached = plan._tenant_networks = TenantNetworks(plan, assignment)
    return cached


def ports_by_tenant(leaf, plan):
    """{tenant: [(port, server, /31 base, server port)]} of the leaf's server ports, or None when the plan
    has no tenant assignment or the switch is no leaf with servers."""
    assignment = attached(plan)
    if assignment is None or leaf.role != "backend_leaf":
        return None
    by_tenant = {}
    for entry in server_ports(leaf):
        by_tenant.setdefault(assignment.tenant_of(entry[1].name), []).append(entry)
    return by_tenant or None


def _rails_text(rails):
    return "rail %d" % rails[0] if len(rails) == 1 else "rails " + ", ".join(str(r) for r in rails)


def tenant_acl(leaf, plan, tenant, bound):
    """The ingress ACL of ``tenant`` on ``leaf``, bound to its ``bound`` ports."""
    rails_of = nic_rails(plan)
    rails = tuple(sorted({rails_of[server_port] for _p, _s, _b, server_port in bound}))
    own = [cidr(leaf.loopback, 32)] + ["%s/32" % fmt(base) for _port, _server, base, _sp in bound]
    permit = _networks(plan).for_rails(tenant, rails)
    covered = [ipaddress.ip_network(n) for n in permit]
    extra = [n for n in own if not any(ipaddress.ip_network(n).subnet_of(c) for c in covered)]
    rules = [{"action": "permit", "destination": n, "why": "tenant %s, %s" % (tenant, _rails_text(rails))}
             for n in permit]
    rules += [{"action": "permit", "destination": n, "why": "the leaf itself"} for n in extra]
    rules.append({"action": "deny", "destination": "any", "why": "every other IPv4 packet"})
    return {"name": acl_name(tenant), "tenant": tenant, "stage": "ingress", "counters": True,
            "ports": [port for port, _server, _base, _sp in bound],
            "servers": sorted({server.name for _port, server, _base, _sp in bound}), "rules": rules}
