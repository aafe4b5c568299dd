"""The fabric as the collected BGP sessions show it: which routed links work, and from that how many
uplinks each leaf should use toward each other leaf (the ECMP width the plan gives it today).

A routed link works unless a collected end reports its session to the other end not Established. With
every link working the width is all uplinks, as planned; with some down, a leaf's best paths toward a
leaf are the uplinks whose far side still reaches it in the fewest hops (eBGP prefers the shorter AS
path, so a longer detour is no ECMP member). Checks then blame the broken link once, not every leaf
whose ECMP it narrows.
"""
from .expect import ROUTED_TIERS


def _closer(out, via):
    """Merge ``via`` ({leaf: hops} from a neighbour) into ``out``, one hop further, keeping the shorter."""
    for leaf, hops in via.items():
        if hops + 1 < out.get(leaf, 1 << 30):
            out[leaf] = hops + 1


class FabricView:
    def __init__(self, expect, states):
        self.expect = expect
        self.down = {}    # link -> reason
        for dev in expect.devices:
            state = states.get(dev.name)
            if state is None or dev.role == "gpu_server" or state.problem("bgp"):
                continue
            peers = (state.bgp or {}).get("peers", {})
            for ip, want in expect.bgp_neighbors(dev.name).items():
                status = (peers.get(ip) or {}).get("state")
                if status != "Established":
                    port = expect.port(dev.name, want["port"])
                    if port is not None:
                        self.down.setdefault(port.link, "%s %s -- %s %s: BGP %s" % (
                            dev.name, want["port"], want["peer"], want["peer_port"], status or "not configured"))
        self._below, self._reach = {}, {}

    def _routed(self, dev):
        return [link for link in dev.links
                if link.tier in ROUTED_TIERS and link.ipv4 is not None and link.network in self.expect.networks]

    def _down_dist(self, dev):
        """{leaf name: hops} reachable from ``dev`` going only down working links."""
        if dev.name not in self._below:
            if dev.role == "backend_leaf":
                out = {dev.name: 0}
            else:
                out = {}
                for link in self._routed(dev):
                    if link.a is dev and link not in self.down:
                        _closer(out, self._down_dist(link.b))
            self._below[dev.name] = out
        return self._below[dev.name]

    def _dist(self, dev):
        """{leaf name: hops} from ``dev``, up then down, over working links."""
        if dev.name not in self._reach:
            out = dict(self._down_dist(dev))
            for link in self._routed(dev):
                if link.b is dev and link not in self.down:
                    _closer(out, self._dist(link.a))
            self._reach[dev.name] = out
        return self._reach[dev.name]

    def best_uplinks(self, leaf, other):
        """([Port] of ``leaf``'s uplinks that are ECMP members toward ``other``, [Port] down)."""
        uplinks = self.expect.uplinks(leaf)
        if not self.down:
            return uplinks, []
        working = [p for p in uplinks if p.link not in self.down]
        hops = {p.name: self._dist(p.link.a).get(other) for p in working}
        best = min([h for h in hops.values() if h is not None], default=None)
        return [p for p in working if best is not None and hops[p.name] == best], \
            [p for p in uplinks if p.link in self.down]


def fabric_view(ctx):
    """One FabricView per validation run, shared by the checks that need it."""
    view = ctx.cache.get("fabric_view")
    if view is None:
        view = ctx.cache["fabric_view"] = FabricView(ctx.expect, ctx.states)
    return view
