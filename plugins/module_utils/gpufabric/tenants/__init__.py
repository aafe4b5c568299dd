"""Tenants: who holds which GPU server, and what that means for the fabric.

assignment.py reads and checks the tenant file; change.py compares two assignments (which servers
move, which switch ports and switches change, in which order). The rail leaves' port ACLs are
rendered by structured/tenant_acl.py. See docs/tenancy.md.
"""
from .assignment import (FREE_POOL, Assignment, AssignmentError, load_assignment,  # noqa: F401
                         parse_assignment, plan_servers)


def attach(plan, assignment):
    """Give the plan its tenant assignment (or None): the build renders isolation from it."""
    plan.tenant_assignment = assignment
    return plan


def attached(plan):
    return getattr(plan, "tenant_assignment", None)
