"""The per-tenant view of the build documents: servers, GPUs and the rail leaves each tenant uses."""
from ..tenant_assignment import FREE_POOL


def tenant_rows(plan, assignment):
    """[(tenant, servers, GPUs, rail leaves, server names)] with the free pool last."""
    gpus_per_server = plan.summary["gpus"] // max(1, plan.summary["servers"])
    leaves = {}
    for link in plan.links:
        if link.network == "backend" and link.tier == "server" and link.b.role == "gpu_server":
            leaves.setdefault(assignment.tenant_of(link.b.name), set()).add(link.a.name)
    groups = list(assignment.tenants.items()) + [(FREE_POOL, assignment.free)]
    return [(name if name != FREE_POOL else "free pool (quarantined)", len(members), len(members) * gpus_per_server,
             len(leaves.get(name, ())), ", ".join(members) or "-") for name, members in groups if members or name != FREE_POOL]
