"""Routing against the plan: ECMP width towards every remote leaf's server summary, and rail isolation
in rail_planes clusters (no rail may reach another rail's servers over the fabric)."""
from .base import FAIL, PASS, SKIP, Check, for_roles

LIST_AT_MOST = 6


def _listed(items):
    head = ", ".join(items[:LIST_AT_MOST])
    return head + (" and %d more" % (len(items) - LIST_AT_MOST) if len(items) > LIST_AT_MOST else "")


class EcmpWidth(Check):
    name = "ecmp_width"
    description = "each leaf reaches every reachable remote leaf summary over all its uplinks"
    sources = for_roles(("backend_leaf",), ("routes",))

    def run(self, ctx):
        results = []
        summaries = ctx.expect.leaf_summaries()
        for dev, state in self.usable(ctx, results):
            uplinks = ctx.expect.uplinks(dev.name)
            width = len(uplinks)
            short = []
            for other, prefix in sorted(summaries.items()):
                if other == dev.name or not ctx.expect.reachable(dev.name, other):
                    continue
                hops = (state.routes.get(prefix) or {}).get("nexthops", [])
                if len(hops) < width:
                    used = {h["interface"] for h in hops}
                    missing = ["%s (to %s)" % (p.name, p.peer) for p in uplinks if p.name not in used]
                    short.append("%s %s over %d of %d (missing %s)" % (other, prefix, len(hops), width,
                                                                       ", ".join(missing) or "?"))
            if short:
                results.append(self.result(dev.name, "ECMP", FAIL, "%s reaches %d remote leaf summaries over fewer "
                                           "than its %d uplinks: %s" % (dev.name, len(short), width, _listed(short))))
            else:
                results.append(self.result(dev.name, "ECMP", PASS, "%s reaches every remote leaf summary over %d "
                                           "paths" % (dev.name, width)))
        return results


class RailIsolation(Check):
    name = "rail_isolation"
    description = "in rail_planes clusters no leaf has a route to another rail's servers"
    sources = for_roles(("backend_leaf",), ("routes",))

    def run(self, ctx):
        results = []
        summaries = ctx.expect.leaf_summaries()
        for dev, state in self.devices(ctx):
            if ctx.expect.design != "rail_planes":
                results.append(self.result(dev.name, "rails", SKIP, "design %s: rails share the spines by design"
                                           % ctx.expect.design))
                continue
            blocked = self.blocked(dev.name, state)
            if blocked:
                results.append(blocked)
                continue
            leaks = ["%s %s (rail %s)" % (other, prefix, ctx.expect.plan.device(other).rail)
                     for other, prefix in sorted(summaries.items())
                     if other != dev.name and not ctx.expect.reachable(dev.name, other) and prefix in state.routes]
            if leaks:
                results.append(self.result(dev.name, "rails", FAIL, "%s (rail %s) has routes to other rails: %s: "
                                           "a cable or a BGP session crosses planes" % (dev.name, dev.rail,
                                                                                        _listed(leaks))))
            else:
                results.append(self.result(dev.name, "rails", PASS, "%s (rail %s) sees no other rail"
                                           % (dev.name, dev.rail)))
        return results
