"""Tenants: who holds which GPU server, and what that means for the fabric.

assignment.py reads and checks the tenant file; change.py compares two assignments (which servers
move, which switch ports and switches change, in which order). The rail leaves' port ACLs are
rendered by structured/tenant_acl.py. See docs/tenancy.md.
"""
from .assignment import (FREE_POOL, Assignment, AssignmentError, load_assignment,  # noqa: F401
                         parse_assignment, plan_servers)


def attach(plan, assignment):
    """Give the plan its tenant assignment (or None): the build renders isolation from it (see attached)."""
    plan.tenant_assignment = assignment
    attached(plan)   # a spare already in a tenant is refused here, not later in a renderer
    return plan


def attached(plan):
    """The assignment the fabric enforces: the attached one, with each spare standing in for a failed server
    (maintenance.replaced, day2/spares.py) holding that server's tenant and the failed server in the free
    pool. The attached assignment keeps naming the failed server, so the restore gives its tenant back."""
    assignment = getattr(plan, "tenant_assignment", None)
    # An assignment that already has its stand-ins (attached() of the plan, attached again by isolation_by_leaf)
    # is the fabric's as it is.
    if assignment is None or not getattr(plan, "replaced", None) or getattr(assignment, "stood_in", False):
        return assignment
    cached = getattr(plan, "_stood_in", None)
    if cached is None or cached[0] is not assignment:
        cached = plan._stood_in = (assignment, _with_stand_ins(assignment, plan))
    return cached[1]


def _with_stand_ins(assignment, plan):
    taken = [(s, assignment.tenant_of(s)) for s in plan.replaced.values() if assignment.tenant_of(s) != FREE_POOL]
    if taken:
        raise AssignmentError(["maintenance.replaced: spare %s is in tenant %s: a spare stands in from the free pool; "
                               "take it out of the tenant file" % taken[0]])
    tenants = {name: [plan.replaced.get(s, s) for s in members] for name, members in assignment.tenants.items()}
    effective = Assignment(tenants, [d.name for d in plan.servers], assignment.isolation, assignment.ids)
    effective.stood_in = True
    return effective
