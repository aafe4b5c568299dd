"""Cabling per port: the LLDP neighbour each planned port sees against the planned peer.

Two cables swapped at one end show as four wrong observations (two ports on each side); they are
reported as ONE swap at the side where both swapped ports share a device (where the technician swaps
them back), naming both ends.
"""
from .base import FAIL, PASS, Check, SWITCH_ROLES, for_roles

# How long after the far end learned this port a missing neighbour here is still "not learned yet": two
# transmit intervals of lldpd's default (30 s), which switch NOSes keep. A link that just came up is learned on each side
# when that side's next LLDPDU arrives.
LLDP_LEARNING_S = 60


class Cabling(Check):
    name = "cabling"
    description = "each planned port sees its planned peer over LLDP; swaps are reported once"
    sources = for_roles(SWITCH_ROLES + ("gpu_server",), ("lldp",))

    def run(self, ctx):
        expect = ctx.expect
        planned, seen, results = {}, {}, []
        for dev, state in self.usable(ctx, results):
            for port in expect.ports[dev.name].values():
                planned[(dev.name, port.name)] = (port.peer, port.peer_port)
            for local, neighbors in state.lldp.items():
                seen[(dev.name, local)] = [(n["system"], n["port"]) for n in neighbors]
        observed = {end: peers[0] for end, peers in seen.items() if len(peers) == 1}
        explained = set()
        for swap in self._swaps(planned, observed):
            explained.update(swap[1])
            results.append(swap[0])
        for end in sorted(planned, key=lambda e: (e[0], _port_key(e[1]))):
            if end in explained:
                continue
            port = expect.port(*end)
            peers = seen.get(end, [])
            want = planned[end]
            if len(peers) > 1:
                results.append(self.result(end[0], end[1], FAIL, "%s sees %d LLDP neighbours (%s), planned one: %s %s"
                                           % (port.label(), len(peers), ", ".join("%s %s" % p for p in peers), *want)))
            elif not peers:
                results.append(self._missing(ctx, port, want))
            elif peers[0] == want:
                results.append(self.result(end[0], end[1], PASS, "%s -- %s %s" % (port.label(), *want)))
            else:
                results.append(self.result(end[0], end[1], FAIL, "%s is cabled to %s %s, planned %s %s"
                                           % (port.label(), peers[0][0], peers[0][1], *want)))
        # A planned device in a port the plan leaves empty: a cable in the wrong port.
        names = set(expect.by_name)
        for end, peer in sorted(observed.items()):
            if end not in planned and end not in expect.all_ports and peer[0] in names:
                results.append(self.result(end[0], end[1], FAIL, "%s %s is cabled to %s %s, but the plan leaves this "
                                           "port empty" % (end[0], end[1], *peer)))
        return results

    def _missing(self, ctx, port, want):
        peer_state = ctx.states.get(want[0])
        why = "link down, or LLDP not running on %s" % want[0]
        far = (peer_state.lldp or {}).get(want[1]) if peer_state is not None else None
        if far:
            ages = [n.get("age_s") for n in far if n.get("age_s") is not None]
            if ages and min(ages) < LLDP_LEARNING_S:
                why = ("not learned yet: %s %s learned this port %d s ago; LLDP learns a link within a transmit "
                       "interval, validate again" % (want[0], want[1], min(ages)))
            else:
                why = "%s %s does see it: LLDP transmit is off or filtered here" % want
        return self.result(port.device, port.name, FAIL, "%s has no LLDP neighbour, planned %s %s (%s)"
                           % (port.label(), want[0], want[1], why))

    def _swaps(self, planned, observed):
        """[(result, ends explained)] for every pair of planned ends that see each other's planned peers."""
        found, used = [], set()
        candidates = []
        for x, got in observed.items():
            if x not in planned or got == planned[x] or got not in planned:
                continue
            w = planned[got]          # the end that should have seen what x sees
            if w == x or observed.get(w) != planned[x]:
                continue
            a, b = planned[x], planned[w]
            far_consistent = observed.get(a) in (w, None) and observed.get(b) in (x, None)
            pair = tuple(sorted((x, w)))
            # Prefer the side where both ports share a device: that is where the cables are swapped back.
            candidates.append((0 if x[0] == w[0] else 1, pair, (a, b), far_consistent))
        for _rank, pair, far, far_consistent in sorted(candidates):
            x, w = pair
            if x in used or w in used:
                continue
            ends = {x, w} | ({far[0], far[1]} if far_consistent else set())
            px, pw = planned[x], planned[w]
            if x[0] == w[0]:
                where = "%s %s and %s" % (x[0], x[1], w[1])
            else:
                where = "%s %s and %s %s" % (x[0], x[1], w[0], w[1])
            message = ("swap: %s see each other's planned peers (%s %s / %s %s): swap these two cables"
                       % (where, px[0], px[1], pw[0], pw[1]))
            found.append((self.result(x[0], "%s<->%s" % (x[1], w[1]), FAIL, message), ends))
            used.update(ends)
        return found


def _port_key(name):
    digits = "".join(c for c in name if c.isdigit())
    return (name.rstrip("0123456789"), int(digits) if digits else 0, name)
