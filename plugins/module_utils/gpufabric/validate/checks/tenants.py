"""Tenant isolation, measured: from every server NIC, an ICMP probe to every other server's NIC on the
same rail. Same-tenant pairs must answer, pairs of different tenants (or the free pool) must not; the
expectation is the rendered isolation of the running assignment (tenants/reach.py), never a second list.
Reported per server and NIC, naming the leaf and port and the ACL or VRF that decides."""
from ...tenant_assignment import attached
from ...tenants.reach import Reach, rail_nics
from ..state import probe_command as state_probe_command
from .base import FAIL, PASS, SKIP, Check, for_roles

PROBE_TIMEOUT_S = 2.0
LIST_AT_MOST = 4


def _reach(plan):
    """Reach and NICs of the plan's attached assignment, computed once per plan and assignment."""
    assignment = attached(plan)
    cached = getattr(plan, "_tenant_reach", None)
    if cached is None or cached[0] is not assignment:
        cached = plan._tenant_reach = (assignment, Reach(plan, assignment), rail_nics(plan))
    return cached


def probe_pairs(plan, server):
    """[(source NIC, destination NIC)] the check probes from ``server``; empty without an assignment."""
    assignment, _reach_, nics = _reach(plan)
    if assignment is None:
        return []
    return [(src, dst) for src in nics.get(server, ()) for other, found in sorted(nics.items()) if other != server
            for dst in found if dst.rail == src.rail]


def probe_command(pairs):
    """The probe command of [(source NIC, destination NIC)] (validate/state.py)."""
    return state_probe_command([(src.address, dst.address) for src, dst in pairs], PROBE_TIMEOUT_S)


def _listed(items):
    more = len(items) - LIST_AT_MOST
    return ", ".join(items[:LIST_AT_MOST]) + (" and %d more" % more if more > 0 else "")


class TenantIsolation(Check):
    name = "tenant_isolation"
    description = "same-tenant NIC pairs reach each other on their rail; pairs of different tenants do not"
    sources = for_roles(("gpu_server",), ("reach",))

    def run(self, ctx):
        results = []
        plan = ctx.expect.plan
        assignment, reach, _nics = _reach(plan)
        for dev, state in self.usable(ctx, results):
            if assignment is None or state.reach is None:
                results.append(self.result(dev.name, "*", SKIP, "no tenant assignment is running (playbooks/tenants.yml)"
                                           if assignment is None else "this collector cannot probe reachability"))
                continue
            by_src = {}
            for src, dst in probe_pairs(plan, dev.name):
                by_src.setdefault(src, []).append(dst)
            for src, dsts in by_src.items():
                cut, leak, same, other = [], [], 0, 0
                for dst in dsts:
                    wanted = reach.both_ways(src, dst)
                    same += wanted
                    other += not wanted
                    got = state.reach.get("%s>%s" % (src.address, dst.address))
                    if wanted and not got:
                        cut.append("%s %s" % (dst.server, dst.address))
                    elif got and not wanted:
                        leak.append("%s %s (tenant %s)" % (dst.server, dst.address, assignment.tenant_of(dst.server)))
                where = "%s, %s" % (src.label(), reach.decided_by(src.leaf, src.port))
                tenant = assignment.tenant_of(dev.name)
                if leak or cut:
                    problems = (["reaches %s outside tenant %s" % (_listed(leak), tenant)] if leak else []) + \
                               (["cannot reach %s of its own tenant" % _listed(cut)] if cut else [])
                    results.append(self.result(dev.name, src.name, FAIL, "%s: %s" % (where, "; ".join(problems))))
                else:
                    results.append(self.result(dev.name, src.name, PASS, "%s: tenant %s, reaches its %d same-tenant "
                                               "NIC(s), none of %d other(s)" % (where, tenant, same, other)))
        return results
