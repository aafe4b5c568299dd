"""Multi-plane backends (backend.planes): each plane is validated as a fabric by the other checks; these two add
what only planes have. ``plane_isolation``: no leaf holds a route to another plane's servers (a cable or BGP
session joining planes would carry one). ``plane_health``: per plane, which of its switches are down (no BGP
session up) or degraded, and whether every GPU pair still reaches the other over at least one plane, which is
what a plane failure must leave intact. A classic fabric (one plane) gets no result from either."""
from .base import FAIL, PASS, Check, for_roles


class _PlaneCheck(Check):
    def devices(self, ctx):
        if ctx.expect.planes == 1:
            return
        yield from super().devices(ctx)


class PlaneIsolation(_PlaneCheck):
    name = "plane_isolation"
    description = "with multi-plane NICs no leaf has a route to another plane's servers"
    sources = for_roles(("backend_leaf",), ("routes",))

    def run(self, ctx):
        results = []
        summaries = ctx.expect.leaf_summaries()
        plane_of = {name: ctx.expect.plan.device(name).fabric_plane for name in summaries}
        for dev, state in self.usable(ctx, results):
            leaks = ["%s %s (plane %d)" % (other, prefix, plane_of[other] + 1) for other, prefix in sorted(summaries.items())
                     if plane_of[other] != dev.fabric_plane and prefix in state.routes]
            if leaks:
                results.append(self.result(dev.name, "planes", FAIL, "%s (plane %d) has routes to other planes: %s: a "
                                           "cable or a BGP session joins planes" % (
                                               dev.name, dev.fabric_plane + 1, ", ".join(leaks[:5]) +
                                               (" and %d more" % (len(leaks) - 5) if len(leaks) > 5 else ""))))
            else:
                results.append(self.result(dev.name, "planes", PASS, "%s (plane %d) sees no other plane"
                                           % (dev.name, dev.fabric_plane + 1)))
        return results


class PlaneHealth(_PlaneCheck):
    name = "plane_health"
    description = "per plane: the switches that are down or degraded; every GPU pair reachable over some plane"
    sources = dict(for_roles(("backend_leaf", "backend_spine", "backend_superspine", "backend_core"), ("bgp",)),
                   gpu_server=("reach",))

    def run(self, ctx):
        expect = ctx.expect
        if expect.planes == 1:
            return []
        results = []
        down, degraded = {}, {}
        servers = []
        for dev, state in self.usable(ctx, results):
            if dev.role == "gpu_server":
                servers.append((dev, state))
                continue
            planned = expect.bgp_neighbors(dev.name)
            if not planned:
                continue
            up = sum(1 for ip in planned if (state.bgp["peers"].get(ip) or {}).get("state") == "Established")
            if up == 0:
                down.setdefault(dev.fabric_plane, []).append(dev.name)
            elif up < len(planned):
                degraded.setdefault(dev.fabric_plane, []).append("%s (%d of %d sessions)" % (dev.name, up, len(planned)))
        # Switches of a plane that were not collected at all are down as far as validation can tell.
        for dev in expect.devices:
            if dev.fabric_plane is not None and dev.name not in ctx.states:
                down.setdefault(dev.fabric_plane, []).append(dev.name + " (not collected)")
        for plane in range(expect.planes):
            name = "plane %d" % (plane + 1)
            if down.get(plane) or degraded.get(plane):
                parts = (["down: " + ", ".join(down[plane])] if down.get(plane) else []) + \
                        (["degraded: " + ", ".join(degraded[plane])] if degraded.get(plane) else [])
                results.append(self.result(name, "switches", FAIL, "%s: %s" % (name, "; ".join(parts))))
            else:
                results.append(self.result(name, "switches", PASS, "%s: every switch has all its BGP sessions up"
                                           % name))
        results += self._pairs(expect, servers)
        return results

    def _pairs(self, expect, servers):
        """One result a server: the servers and rails its GPUs reach over no plane at all."""
        out = []
        for dev, state in servers:
            reached, probed = {}, set()
            for src, dst, wanted, label in expect.reach_probes(dev.name):
                if not wanted:
                    continue
                key = label.split(" -> ")[1].rsplit(" plane ", 1)[0] + " from " + label.split(" -> ")[0].rsplit(
                    " plane ", 1)[0]
                probed.add(key)
                if state.reach.get("%s>%s" % (src, dst)):
                    reached[key] = True
            lost = sorted(probed - set(reached))
            if lost:
                out.append(self.result(dev.name, "pairs", FAIL, "%s reaches %d GPU(s) over no plane: %s" % (
                    dev.name, len(lost), ", ".join(lost[:4]) + (" and %d more" % (len(lost) - 4) if len(lost) > 4
                                                                else ""))))
            else:
                out.append(self.result(dev.name, "pairs", PASS, "%s reaches each of its %d probed GPU(s) over at "
                                       "least one plane" % (dev.name, len(probed))))
        return out
