"""Routing against the plan: every leaf's server summary announced (and nothing more specific), ECMP
width towards every remote leaf's summary given the links that work, and rail isolation in rail_planes
clusters (no rail may reach another rail's servers over the fabric). Each fault is blamed where it is:
a missing summary on the leaf that should announce it, a down uplink on that link (bgp_sessions),
not on every leaf whose view of it changes."""
import ipaddress

from ...day2.drain import drained_switches
from ..fabric_view import fabric_view
from .base import FAIL, PASS, SKIP, Check, for_roles

LIST_AT_MOST = 6


def _listed(items):
    head = ", ".join(items[:LIST_AT_MOST])
    return head + (" and %d more" % (len(items) - LIST_AT_MOST) if len(items) > LIST_AT_MOST else "")


ROUTE_SOURCES = dict(for_roles(("backend_leaf",), ("routes", "bgp")),
                     **for_roles(("backend_spine", "backend_superspine", "backend_core"), ("bgp",)))


def _observers(ctx):
    """[(leaf, state)] of every backend leaf whose routes were collected."""
    if "route_observers" not in ctx.cache:
        ctx.cache["route_observers"] = [
            (dev, state) for dev, state in ((d, ctx.states.get(d.name)) for d in ctx.expect.devices)
            if state is not None and dev.role == "backend_leaf" and state.routes is not None
            and not state.problem("routes")]
    return ctx.cache["route_observers"]


def unannounced(ctx):
    """{leaf: (summary, [leaves that should see it])} of leaves whose summary no other leaf has, though at
    least two leaves with a working path to it were collected: the owner does not announce it."""
    if "unannounced" not in ctx.cache:
        view = fabric_view(ctx)
        out = {}
        for owner, prefix in sorted(ctx.expect.leaf_summaries().items()):
            should = [dev.name for dev, state in _observers(ctx) if dev.name != owner
                      and ctx.expect.reachable(dev.name, owner) and view.best_uplinks(dev.name, owner)[0]]
            seen = [dev.name for dev, state in _observers(ctx) if dev.name in should and prefix in state.routes]
            if len(should) >= 2 and not seen:
                out[owner] = (prefix, should)
        ctx.cache["unannounced"] = out
    return ctx.cache["unannounced"]


def _more_specifics(observers, summaries):
    """{owner leaf: (routes more specific than its summary, leaves that have them)}, from the BGP routes of
    every observing leaf but the owner. Each route is placed by masking it to each summary length, so the
    work grows with the routes seen, not with routes times leaves."""
    owner_of, lengths = {}, set()
    for owner, prefix in summaries.items():
        net = ipaddress.ip_network(prefix)
        owner_of[(net.version, int(net.network_address), net.prefixlen)] = owner
        lengths.add((net.version, net.max_prefixlen, net.prefixlen))
    parsed, out = {}, {}
    for dev, state in observers:
        for route, info in state.routes.items():
            if info.get("protocol") != "bgp" or "/" not in route:
                continue
            sub = parsed.get(route)
            if sub is None:
                sub = parsed[route] = ipaddress.ip_network(route, strict=False)
            for version, bits, length in lengths:
                if version != sub.version or sub.prefixlen <= length:
                    continue
                owner = owner_of.get((version, int(sub.network_address) >> (bits - length) << (bits - length), length))
                if owner is not None and owner != dev.name:
                    routes, seen_on = out.setdefault(owner, (set(), set()))
                    routes.add(route)
                    seen_on.add(dev.name)
    return out


class LeafSummaries(Check):
    name = "leaf_summaries"
    description = "each leaf's server summary reaches the leaves that should see it, and no more-specific of it leaks"
    sources = for_roles(("backend_leaf",), ("routes",))

    def run(self, ctx):
        results = []
        list(self.usable(ctx, results))       # leaves without routes: their SKIP/ERROR
        observers = _observers(ctx)
        if not observers:
            return results
        missing = unannounced(ctx)
        # Tenant VRF mode announces the /31s on purpose: each travels with its tenant's community.
        leaks = {} if ctx.expect.host_routes_announced() else _more_specifics(observers, ctx.expect.leaf_summaries())
        for owner, prefix in sorted(ctx.expect.leaf_summaries().items()):
            if owner not in ctx.expect.by_name:
                continue
            if owner in missing:
                should = missing[owner][1]
                results.append(self.result(owner, "summary %s" % prefix, FAIL, "%s does not announce its server "
                                           "summary %s: none of the %d leaves that should reach it has a route (check "
                                           "`aggregate-address %s summary-only` on %s and that its server links are up)"
                                           % (owner, prefix, len(should), prefix, owner)))
            else:
                results.append(self.result(owner, "summary %s" % prefix, PASS, "%s's summary %s is announced"
                                           % (owner, prefix)))
            leaked, seen_on = leaks.get(owner, ((), ()))
            if leaked:
                results.append(self.result(owner, "more-specifics of %s" % prefix, FAIL, "%s leaks %d routes past its "
                                           "summary %s: %s (seen on %d leaves): the aggregate must be summary-only"
                                           % (owner, len(leaked), prefix, _listed(sorted(leaked)), len(seen_on))))
        return results


class EcmpWidth(Check):
    name = "ecmp_width"
    description = "each leaf reaches every remote leaf summary over every uplink the working fabric gives it"
    sources = ROUTE_SOURCES

    def run(self, ctx):
        results = []
        summaries = ctx.expect.leaf_summaries()
        view, missing = fabric_view(ctx), unannounced(ctx)
        drained = drained_switches(ctx.expect.plan)
        for dev, state in self.usable(ctx, results):
            if dev.role != "backend_leaf":
                continue
            short, narrowed = [], False
            uplinks = len(ctx.expect.uplinks(dev.name))
            for other, prefix in sorted(summaries.items()):
                if other == dev.name or not ctx.expect.reachable(dev.name, other) or other in missing:
                    continue
                best, _down = view.best_uplinks(dev.name, other)
                # A drained switch announces prepended paths: ECMP over the others only, unless it is the last.
                shunned = {p.name: p.peer for p in best if p.peer in drained}
                if len(shunned) < len(best):
                    best = [p for p in best if p.name not in shunned]
                else:
                    shunned = {}
                narrowed = narrowed or len(best) < uplinks
                hops = (state.routes.get(prefix) or {}).get("nexthops", [])
                used = {h["interface"] for h in hops}
                transit = sorted({shunned[name] for name in used if name in shunned})
                lacking = ["%s (to %s)" % (p.name, p.peer) for p in best if p.name not in used]
                if transit:
                    short.append("%s %s still through drained %s" % (other, prefix, ", ".join(transit)))
                elif lacking or len(hops) < len(best):
                    short.append("%s %s over %d of %d (missing %s)" % (other, prefix, len(hops), len(best),
                                                                       ", ".join(lacking) or "?"))
            note = ("; fewer paths expected where links are down (%s)" % _listed(sorted(view.down.values()))
                    if narrowed else "")
            if short:
                results.append(self.result(dev.name, "ECMP", FAIL, "%s reaches %d remote leaf summaries over fewer "
                                           "paths than its working uplinks give: %s%s"
                                           % (dev.name, len(short), _listed(short), note)))
            else:
                results.append(self.result(dev.name, "ECMP", PASS, "%s reaches every remote leaf summary over every "
                                           "working uplink%s" % (dev.name, note)))
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
