"""The data path: every server reaches every other server on every rail, from NIC i to the rail-i NICs
(so the per-NIC policy routing, the leaves and the spines all carry it); with rail planes, a NIC reaches
nothing on another rail, and with a tenant assignment running, nothing its tenant ACLs keep out."""
from .base import FAIL, PASS, Check, for_roles


class RailReachability(Check):
    name = "rail_reachability"
    description = "ICMP from each rail NIC to the same rail of every other server; none across rail planes or tenants"
    sources = for_roles(("gpu_server",), ("reach",))

    def run(self, ctx):
        results = []
        for dev, state in self.usable(ctx, results):
            for src, dst, wanted, label in ctx.expect.reach_probes(dev.name):
                reached = state.reach.get("%s>%s" % (src, dst))
                if reached is wanted:
                    results.append(self.result(dev.name, label, PASS, "%s %s" % (
                        label, "reachable" if wanted else "unreachable, as planned (rail planes or tenants apart)")))
                elif reached is None:
                    results.append(self.result(dev.name, label, FAIL, "%s: the probe did not report it" % label))
                else:
                    results.append(self.result(dev.name, label, FAIL, "%s: %s" % (
                        label, "unreachable" if wanted else "reachable across rail planes or tenants")))
        return results
