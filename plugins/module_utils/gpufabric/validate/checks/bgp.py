"""Every planned BGP session Established with the planned ASNs, and no session the plan does not have."""
from .base import FAIL, PASS, Check, ROUTED_ROLES, for_roles


class BgpSessions(Check):
    name = "bgp_sessions"
    description = "planned eBGP sessions Established, planned local and peer ASNs, no unplanned sessions"
    sources = for_roles(ROUTED_ROLES, ("bgp",))

    def run(self, ctx):
        results = []
        for dev, state in self.usable(ctx, results):
            planned = ctx.expect.bgp_neighbors(dev.name)
            if not planned and not state.bgp["peers"]:
                continue
            if state.bgp["local_as"] != dev.asn:
                results.append(self.result(dev.name, "local AS", FAIL, "%s runs BGP as AS %s, planned AS %s: fix "
                                           "`router bgp` (every peer will reject it)" % (dev.name, state.bgp["local_as"],
                                                                                         dev.asn)))
            for ip, want in sorted(planned.items()):
                results.append(self._session(ctx, dev, state, ip, want))
            for ip, peer in sorted(state.bgp["peers"].items()):
                if ip not in planned:
                    results.append(self.result(dev.name, ip, FAIL, "%s has an unplanned BGP session to %s (AS %s, %s): "
                                               "remove it" % (dev.name, ip, peer["remote_as"], peer["state"])))
        return results

    def _session(self, ctx, dev, state, ip, want):
        what = "%s BGP %s (%s %s, via %s)" % (dev.name, ip, want["peer"], want["peer_port"], want["port"])
        peer = state.bgp["peers"].get(ip)
        if peer is None:
            return self.result(dev.name, ip, FAIL, "%s is not configured: add neighbor %s remote-as %s"
                               % (what, ip, want["remote_as"]))
        if peer["remote_as"] != want["remote_as"]:
            return self.result(dev.name, ip, FAIL, "%s has peer AS %s configured, planned AS %s: fix the neighbour's "
                               "remote-as" % (what, peer["remote_as"], want["remote_as"]))
        if peer["state"] != "Established":
            return self.result(dev.name, ip, FAIL, "%s is %s, planned Established: %s"
                               % (what, peer["state"], self._why(ctx, dev, peer, want)))
        return self.result(dev.name, ip, PASS, "%s Established, AS %s, %s prefixes received"
                           % (what, peer["remote_as"], peer["prefixes_received"]))

    @staticmethod
    def _why(ctx, dev, peer, want):
        """The likely cause, read from the far end's own view of the session where it was collected."""
        if "Admin" in str(peer["state"]):
            return "shut down here: `no neighbor ... shutdown`"
        far = ctx.states.get(want["peer"])
        far_bgp = far.bgp if far is not None else None
        if far_bgp is None:
            return "check the link and %s's BGP configuration" % want["peer"]
        mine = far_bgp["peers"].get(want["local_ip"])
        if mine is None:
            return "%s has no neighbour %s configured" % (want["peer"], want["local_ip"])
        if "Admin" in str(mine["state"]):
            return "%s has neighbour %s shut down" % (want["peer"], want["local_ip"])
        if mine["remote_as"] != dev.asn:
            return "%s expects AS %s for neighbour %s, planned AS %s" % (
                want["peer"], mine["remote_as"], want["local_ip"], dev.asn)
        if far_bgp["local_as"] != want["remote_as"]:
            return "%s runs AS %s, planned AS %s" % (want["peer"], far_bgp["local_as"], want["remote_as"])
        return "check the link %s -- %s %s (state %s there)" % (want["port"], want["peer"], want["peer_port"],
                                                                mine["state"])
