"""Tenants: who holds which GPU server, and what that means for the fabric.

assignment.py reads and checks the tenant file; change.py compares two assignments (which servers
move, which switch ports and switches change, in which order). The rail leaves' port ACLs are
rendered by structured/tenant_acl.py. See docs/tenancy.md.
"""
from .assignment import (FREE_POOL, Assignment, AssignmentError, load_assignment,  # noqa: F401
                         parse_assignment, plan_servers)


def attach(plan, assignment):
    """Give the plan its tenant assignment (or None): the build renders isolation from it. A spare standing
    in for a failed server holds that server's tenant, and the failed server goes to the free pool
    (maintenance.replaced, day2/spares.py); the assignment file keeps naming the failed server."""
    if assignment is not None and plan.replaced:
        assignment = with_stand_ins(assignment, plan)
    plan.tenant_assignment = assignment
    return plan


def with_stand_ins(assignment, plan):
    taken = [(s, assignment.tenant_of(s)) for s in plan.replaced.values() if assignment.tenant_of(s) != FREE_POOL]
    if taken:
        raise AssignmentError(["maintenance.replaced: spare %s is in tenant %s: a spare stands in from the free pool; "
                               "take it out of the tenant file" % taken[0]])
    tenants = {name: [plan.replaced.get(s, s) for s in members] for name, members in assignment.tenants.items()}
    return Assignment(tenants, [d.name for d in plan.servers], assignment.isolation)


def attached(plan):
    return getattr(plan, "tenant_assignment", None)
