"""The data path: every server reaches every other server on every rail, from NIC i to the rail-i NICs
(so the per-NIC policy routing, the leaves and the spines all carry it); with rail planes, a NIC reaches
nothing on another rail, and with a tenant assignment running, nothing its tenant ACLs keep out. And a packet
of the NIC's full MTU, not fragmented, gets across the fabric and back (path_mtu): a link whose MTU is below the
servers' drops RDMA's full-size frames while small pings still pass."""
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


class PathMtu(Check):
    name = "path_mtu"
    description = "an echo of each rail NIC's planned MTU, Don't Fragment, answered by a NIC of its rail across the fabric"
    sources = for_roles(("gpu_server",), ("reach",))

    def run(self, ctx):
        results = []
        for dev, state in self.usable(ctx, results):
            for src, dst, size, label in ctx.expect.mtu_probes(dev.name):
                full = state.reach.get("%s>%s/%d" % (src, dst, size))
                small = state.reach.get("%s>%s" % (src, dst))
                if full:
                    results.append(self.result(dev.name, label, PASS, "%s answered" % label))
                elif full is None:
                    results.append(self.result(dev.name, label, FAIL, "%s: the probe did not report it" % label))
                elif small:
                    results.append(self.result(dev.name, label, FAIL, (
                        "%s: no answer, while a small echo on the same path is answered: a port on the path (this "
                        "NIC, a switch port or the far NIC) has an MTU below %d; see the mtu check") % (label, size)))
                else:
                    results.append(self.result(dev.name, label, FAIL, "%s: no answer (nor to a small echo: see "
                                               "rail_reachability)" % label))
        return results
