"""Tenants: who holds which GPU server, and what that means for the fabric.

The assignment itself (reading and checking the tenant file, attaching it to a plan) is ``tenant_assignment.py``,
a layer below the structured config; this package holds what reads the structured config: change.py compares two
assignments (which servers move, which switch ports and switches change, in which order), live.py reads the
running one back from the rail leaves, phases.py builds each phase of a change, reach.py says who must reach whom,
state.py records the last run. The rail leaves' port ACLs are rendered by structured/tenant_acl.py. See
docs/tenancy.md.
"""
from ..tenant_assignment import (FREE_POOL, Assignment, AssignmentError, attach, attached,  # noqa: F401
                                 load_assignment, parse_assignment, plan_servers)
