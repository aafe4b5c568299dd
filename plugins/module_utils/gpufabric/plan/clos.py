"""Clos shape: how the ports of each tier split, how many switches a tier needs, how large the
cluster can grow on the chosen hardware, and the error that says so when it cannot.

Every number here comes from the spec's hardware choices, never from `servers.count` alone, so the
positions derived from them (ports, addresses, ASNs) stay put when the cluster grows.
"""
import math

from ..catalog import parse_mode
from ..errors import SpecError


def ceil_div(a, b):
    return -(-a // b)


def split_ports(model, tier, path, has_up, reserve_up=0, pod_down=None):
    """Choose a tier's downlink and uplink ports on ``model``: (down, up, reserved) port indices.

    ``reserve_up`` ports are set aside after the uplinks (the MC-LAG peer link). ``pod_down``: the
    downlinks a pod of the declared size needs (``backend.pod_gpus``); an oversubscription ratio then
    applies to them, not to every port of the model.
    """
    down_pool = model.usable("down") + model.usable("any")
    up_only = model.usable("up")
    ratio = tier.get("oversubscription")
    d, u = tier.get("downlinks"), tier.get("uplinks")
    if ratio and (d is not None or u is not None):
        raise SpecError(path + ".oversubscription", "set either oversubscription or downlinks/uplinks, not both")
    if pod_down is not None:
        if d is not None and d < pod_down:
            raise SpecError(path + ".downlinks", "%d downlinks, but a pod of backend.pod_gpus needs %d: use at "
                            "least %d or smaller pods" % (d, pod_down, pod_down))
        d = pod_down if d is None else d
    if not has_up:
        if u:
            raise SpecError(path + ".uplinks", "%d uplinks on the top tier: nothing is above it (add a tier above "
                            "or remove the key)" % u)
        if ratio:
            raise SpecError(path + ".oversubscription", "the top tier has no uplinks to oversubscribe")
        d = len(down_pool) if d is None else d
        u = 0
    elif ratio:
        a, b = (int(x) for x in ratio.split(":"))
        if a < 1 or b < 1:
            raise SpecError(path + ".oversubscription", "%r: both sides must be at least 1, e.g. 3:1" % ratio)
        if d is not None:
            # The pod's downlinks are fixed: the fewest uplinks that keep the ratio at or below the
            # declared one (Meta's 7:1 over 192 racks: 28 uplinks, 6.86:1; 27 would be 7.11:1).
            u = ceil_div(d * b, a)
        else:
            total = len(down_pool) + len(up_only) - reserve_up
            d = total * a // (a + b)
            u = total - d
    else:
        any_ports = len(model.usable("any"))
        if d is None:
            d = len(model.usable("down")) + (any_ports if up_only else any_ports // 2)
        if u is None:
            u = len(up_only) - reserve_up if up_only else min(any_ports - min(d, any_ports), d) - reserve_up
    if d < 1:
        raise SpecError(path + ".downlinks", "no downlink ports: %s has %d ports for them" % (model.name, len(down_pool)))
    if d > len(down_pool):
        raise SpecError(path + ".downlinks", "%d downlinks but %s has %d ports that can face down: use at most %d "
                        "or a larger switch" % (d, model.name, len(down_pool), len(down_pool)))
    taken = set(down_pool[:d])
    up_pool = up_only + [p for p in model.usable("any") if p not in taken]
    if u < 0 or u + reserve_up > len(up_pool):
        raise SpecError(path + ".uplinks", "%d uplinks%s but %s has %d ports left after %d downlinks: use at most %d"
                        % (u, " plus %d peer-link ports" % reserve_up if reserve_up else "", model.name,
                           len(up_pool), d, max(0, len(up_pool) - reserve_up)))
    if has_up and u < 1:
        raise SpecError(path + ".uplinks", "a tier below spines needs at least one uplink")
    return down_pool[:d], up_pool[:u], up_pool[u:u + reserve_up]


def choose_breakout(model, pool, tier, key, path, peer_speed, peer_what):
    """(mode, sub-ports per cage) of the ports ``pool`` (physical indices of ``model``): the spec's ``key``
    (downlink_breakout, uplink_breakout) when set, else the mode the speeds at both ends call for (a
    400G peer on an 800G port: 2x400G, one cage serving two links). (None, 1) leaves the ports whole."""
    if not pool:
        return None, 1
    index = pool[0]
    speed = model.ports[index][1]
    listed = list(model.breakouts[index])
    explicit = tier.get(key)
    if explicit:
        wanted = parse_mode(explicit)
        if explicit == "none" or wanted == (1, speed):
            return None, 1
        mode = model.find_mode(index, *wanted) if wanted else None
        if mode is None:
            raise SpecError("%s.%s" % (path, key), "%r is not a breakout %s lists for its %dG ports (listed: %s): use "
                            "one of them, or none" % (explicit, model.name, speed, ", ".join(listed) or "none"))
        return mode, wanted[0]
    if peer_speed is None or peer_speed == speed:
        return None, 1
    if peer_speed > speed:
        raise SpecError(path + ".model", "%s are %dG, faster than %s's %dG ports: a port cannot carry a faster "
                        "link; choose a model with %dG ports (or slower NICs)" % (
                            peer_what, peer_speed, model.name, speed, peer_speed))
    if speed % peer_speed:
        return None, 1      # check_speed names the mismatch
    count = speed // peer_speed
    mode = model.find_mode(index, count, peer_speed)
    if mode is None:
        raise SpecError(path + ".model", "%s are %dG on %s's %dG ports, which needs a %dx%dG breakout, but the model "
                        "lists none (listed: %s): choose a model whose ports match or list the mode under "
                        "models.switches" % (peer_what, peer_speed, model.name, speed, count, peer_speed,
                                             ", ".join(listed) or "none"))
    return mode, count


def _cages(count, factor, path, key, mode):
    """Logical ports (what `downlinks`/`uplinks` count) to whole cages, refusing a split cage."""
    if count is None or factor == 1:
        return count
    if count % factor:
        raise SpecError("%s.%s" % (path, key), "%d is not a whole number of %s cages (%d ports each): use %d or %d" % (
            count, mode, factor, count - count % factor, count - count % factor + factor))
    return count // factor


def split_broken_out(model, tier, path, has_up, reserve_up=0, pod_down=None, down_peer=None, down_what="",
                     up_what=""):
    """split_ports with breakouts: (view, down, up, reserved) where ``view`` is the model as this tier uses it
    (its cages broken out, see catalog.PortView) and the three lists index the view's ports. ``downlinks``,
    ``uplinks`` and ``pod_down`` count the view's ports (links), the split itself is made in whole cages."""
    down_pool = model.usable("down") + model.usable("any")
    up_pool = model.usable("up") + model.usable("any")
    down_mode, df = choose_breakout(model, down_pool, tier, "downlink_breakout", path, down_peer, down_what)
    up_mode, uf = choose_breakout(model, up_pool if has_up else [], tier, "uplink_breakout", path, None, up_what)
    if not has_up and tier.get("uplink_breakout"):
        raise SpecError(path + ".uplink_breakout", "the top tier has no uplinks to break out: remove the key")
    if df == 1 and uf == 1 and down_mode is None and up_mode is None:
        down, up, reserved = split_ports(model, tier, path, has_up, reserve_up, pod_down)
        return model, down, up, reserved
    cage_tier = dict(tier, downlinks=_cages(tier.get("downlinks"), df, path, "downlinks", down_mode),
                     uplinks=_cages(tier.get("uplinks"), uf, path, "uplinks", up_mode))
    down, up, reserved = split_ports(model, cage_tier, path, has_up, reserve_up,
                                     None if pod_down is None else ceil_div(pod_down, df))
    modes = dict.fromkeys(down, down_mode) if down_mode else {}
    if up_mode:
        modes.update(dict.fromkeys(up, up_mode))
    view = model.broken_out(modes)

    def flat(cages):
        return [i for c in cages for i in view.logical[c]]

    return view, flat(down), flat(up), flat(reserved)


def _fan_out(path, what, lower, tier, lower_up):
    """(switches per plane, links from each lower switch to each): the upper tier's count must divide the
    lower switch's uplinks, or its links would not spread evenly (one clear refusal, no uneven rule)."""
    uplinks = len(lower_up)
    count = tier.get("count") or uplinks
    if uplinks % count:
        divisors = [n for n in range(1, uplinks + 1) if uplinks % n == 0]
        raise SpecError(path, "%d %s do not divide the %d %s uplinks evenly (each %s would send a different number "
                        "of links to each): use a divisor of %d (%s)" % (
                            count, what, uplinks, lower, lower, uplinks, ", ".join(map(str, divisors))))
    return count, uplinks // count


def check_speed(path, what, lower_speeds, upper_speeds):
    lo, up = set(lower_speeds), set(upper_speeds)
    if lo != up:
        raise SpecError(path, "%s: ports of %s Gb/s meet ports of %s Gb/s: choose models whose ports match"
                        % (what, "/".join(map(str, sorted(lo))), "/".join(map(str, sorted(up)))))


class Clos:
    """The shape of one Clos network (the backend, or the frontend) above its leaves.

    ``group``: leaves that must share a pod (the rails of a scalable unit, or a frontend pair).
    ``planes``: independent copies of the spine layers (one per rail for rail_planes, else 1).
    """

    def __init__(self, network, path, catalog, leaf_tier, spine_tier, super_tier, group, planes, server_speeds,
                 reserve_up=0, label="", pod_gpus=None, core_tier=None, unit_planes=True):
        self.network, self.path, self.group, self.planes = network, path, group, planes
        # A scalable unit's GPUs are spread over the planes (rail_planes), or each GPU is in every plane
        # (multi-plane NICs: backend.planes), when a pod's GPUs are counted.
        self.unit_planes = unit_planes
        what = "the servers' NICs" if network == "backend" else "the servers' frontend ports"
        self.leaf_model, self.leaf_down, self.leaf_up, self.leaf_reserved = split_broken_out(
            catalog.switch(leaf_tier["model"], path + ".leaf.model", leaf_tier["nos"]), leaf_tier, path + ".leaf",
            spine_tier is not None, reserve_up, down_peer=max(server_speeds), down_what=what)
        self.downlinks, self.uplinks = len(self.leaf_down), len(self.leaf_up)
        check_speed(path + ".leaf.model", "servers to %s leaves" % network, server_speeds,
                    [self.leaf_model.ports[p][1] for p in self.leaf_down])
        if core_tier and not super_tier:
            raise SpecError(path + ".core", "a core tier stands above superspines: add %s.superspine or remove "
                            "%s.core" % (path, path))
        self.tiers = 1 if spine_tier is None else (4 if core_tier else 3 if super_tier else 2)
        self.spine_model = self.super_model = self.core_model = None
        self.spines_per_group = self.links_to_each_spine = 0
        self.superspines_per_plane = self.links_to_each_superspine = 0
        self.cores_per_plane = self.links_to_each_core = 0
        self.spine_down = self.spine_up = self.super_down = self.super_up = self.core_down = []
        self.pods_per_zone = self.max_zones = 1
        self.label = label
        if spine_tier is None:
            self.leaves_per_pod = self.max_leaves = group
            self.max_pods = 1
            return
        spine_model = catalog.switch(spine_tier["model"], path + ".spine.model", spine_tier["nos"])
        self.size_for = spine_tier.get("size_for") or "hardware_max"
        if self.size_for == "cluster" and self.tiers >= 3:
            raise SpecError(path + ".spine.size_for", "cluster sizing applies to a two-tier fabric's spines; a "
                            "three-tier fabric's pods take the hardware's size: remove it or set spine.count")
        spines = self.spines_per_group = spine_tier.get("count") or self.uplinks
        self.spines_chosen = bool(spine_tier.get("count"))
        if self.uplinks % spines:
            raise SpecError(path + ".spine.count", "%d spines do not divide the %d leaf uplinks evenly: use a divisor "
                            "of %d" % (spines, self.uplinks, self.uplinks))
        self.links_to_each_spine = self.uplinks // spines
        self.pod_leaves = self._pod_leaves(pod_gpus)
        self.spine_model, self.spine_down, self.spine_up, _reserved = split_broken_out(
            spine_model, spine_tier, path + ".spine", self.tiers >= 3,
            pod_down=None if self.pod_leaves is None else self.pod_leaves * self.links_to_each_spine,
            down_peer=self.leaf_model.ports[self.leaf_up[0]][1], down_what="the leaf uplinks")
        check_speed(path + ".spine.model", "leaf uplinks to spines", [self.leaf_model.ports[p][1] for p in self.leaf_up],
                    [self.spine_model.ports[p][1] for p in self.spine_down])
        per_leaf = self.links_to_each_spine
        self.leaves_per_pod = self.pod_leaves or len(self.spine_down) // per_leaf // group * group
        if self.leaves_per_pod < group:
            raise SpecError(path + ".spine.downlinks", "a spine with %d downlinks and %d links to each leaf holds "
                            "%d leaves, fewer than the %d that must share it" % (
                                len(self.spine_down), per_leaf, len(self.spine_down) // per_leaf, group))
        if self.tiers == 2:
            self.max_pods = 1
        else:
            (self.super_model, self.super_down, self.super_up, self.superspines_per_plane,
             self.links_to_each_superspine) = self._upper_tier(catalog, super_tier, "superspine", "superspines",
                                                               self.spine_model, self.spine_up, self.tiers == 4)
            # A zone: the pods one superspine layer holds (the whole fabric below four tiers).
            self.pods_per_zone = len(self.super_down) // self.links_to_each_superspine
            if self.tiers == 4:
                (self.core_model, self.core_down, _up, self.cores_per_plane,
                 self.links_to_each_core) = self._upper_tier(catalog, core_tier, "core", "core switches",
                                                             self.super_model, self.super_up, False)
                self.max_zones = len(self.core_down) // self.links_to_each_core
            self.max_pods = self.pods_per_zone * self.max_zones
        self.max_leaves = self.max_pods * self.leaves_per_pod

    def _upper_tier(self, catalog, tier, key, what, lower_model, lower_up, has_up):
        """(model, down ports, up ports, switches per plane, links from each lower switch to each) of the
        superspine or core tier above ``lower_model``'s uplinks ``lower_up``."""
        path = "%s.%s" % (self.path, key)
        lower = "spine" if key == "superspine" else "superspine"
        model, down, up, _reserved = split_broken_out(
            catalog.switch(tier["model"], path + ".model", tier["nos"]), tier, path, has_up,
            down_peer=lower_model.ports[lower_up[0]][1], down_what="the %s uplinks" % lower)
        count, each = _fan_out(path + ".count", what + " per plane", lower, tier, lower_up)
        check_speed(path + ".model", "%s uplinks to %s" % (lower, what), [lower_model.ports[p][1] for p in lower_up],
                    [model.ports[p][1] for p in down])
        return model, down, up, count, each

    def _pod_leaves(self, pod_gpus):
        """Leaves per pod (and plane) of a declared pod size, or None: the spines' ports decide."""
        if pod_gpus is None:
            return None
        if self.tiers < 3:
            raise SpecError(self.path + ".pod_gpus", "pods exist in three or four tiers only: add %s.superspine or "
                            "remove pod_gpus" % self.path)
        # A scalable unit's GPUs: its leaves' downlinks, times the rails of a unit or the planes.
        unit_gpus = self.downlinks * self.group * (self.planes if self.unit_planes else 1)
        if pod_gpus % unit_gpus:
            raise SpecError(self.path + ".pod_gpus", "%d GPUs is not a whole number of scalable units of %d GPUs "
                            "(%s leaf downlinks): use a multiple of %d, e.g. %d" % (
                                pod_gpus, unit_gpus, self.downlinks, unit_gpus,
                                max(1, round(pod_gpus / unit_gpus)) * unit_gpus))
        return pod_gpus // unit_gpus * self.group

    def holds_with(self, spines):
        """Leaves per plane that ``spines`` spines (a divisor of the leaf uplinks) hold in two tiers."""
        return len(self.spine_down) // (self.uplinks // spines) // self.group * self.group

    def fewest_spines_for(self, leaves_per_plane):
        """The fewest spines per plane, dividing the leaf uplinks, that hold ``leaves_per_plane`` leaves."""
        for spines in range(1, self.uplinks + 1):
            if self.uplinks % spines == 0 and self.holds_with(spines) >= leaves_per_plane:
                return spines
        return self.uplinks

    def size_spines_to(self, leaves_per_plane):
        """size_for: cluster: as few spines as this cluster's leaves need (two tiers, no count set)."""
        if self.size_for != "cluster" or self.tiers != 2 or self.spines_chosen:
            return
        spines = self.spines_per_group = self.fewest_spines_for(leaves_per_plane)
        self.links_to_each_spine = self.uplinks // spines
        self.leaves_per_pod = self.max_leaves = self.holds_with(spines)

    def pods_for(self, leaves_per_plane):
        return ceil_div(leaves_per_plane, self.leaves_per_pod)

    def zones_for(self, leaves_per_plane):
        return ceil_div(self.pods_for(leaves_per_plane), self.pods_per_zone)

    def check_fits(self, leaves_per_plane, servers_needed, servers_max, gpus_per_server):
        if leaves_per_plane <= self.max_leaves:
            return
        what = "each plane" if self.planes > 1 else "the fabric"
        if self.tiers == 2:
            raise SpecError(self.path, "a two-tier %s needs %d leaves in %s, each with %d link(s) to every spine, "
                            "but a %s spine has %d downlink ports: a leaf cannot reach every spine; add %s.superspine "
                            "(three tiers) or a larger spine (this hardware holds at most %d servers, %d GPUs; "
                            "the spec asks for %d servers)" % (
                                self.label, leaves_per_plane, what, self.links_to_each_spine, self.spine_model.name,
                                len(self.spine_down), self.path, servers_max, servers_max * gpus_per_server,
                                servers_needed))
        # More superspines only help while each spine still sends several links to one superspine;
        # at one link each, the superspine's port count is the limit.
        if self.links_to_each_superspine > 1:
            advice = "raise %s.superspine.count up to %d (one link from each spine to each superspine) or use a " \
                     "larger superspine" % (self.path, len(self.spine_up))
        else:
            advice = "use a superspine with more ports (each spine already has one link to every superspine, so " \
                     "more superspines cannot add pods) or a larger spine"
        if self.tiers == 4:
            raise SpecError(self.path, "a four-tier %s needs %d zones of %d pods in %s but a %s core switch with %d "
                            "downlinks and %d link(s) to each superspine holds %d: use a core switch with more ports "
                            "or fewer core switches per plane (this hardware holds at most %d servers, %d GPUs; the "
                            "spec asks for %d servers)" % (
                                self.label, self.zones_for(leaves_per_plane), self.pods_per_zone, what,
                                self.core_model.name, len(self.core_down), self.links_to_each_core, self.max_zones,
                                servers_max, servers_max * gpus_per_server, servers_needed))
        raise SpecError(self.path, "a three-tier %s needs %d pods in %s but a %s superspine with %d downlinks and %d "
                        "link(s) to each spine holds %d: %s%s (this hardware holds at most %d servers, %d GPUs; the "
                        "spec asks for %d servers)" % (
                            self.label, self.pods_for(leaves_per_plane), what, self.super_model.name,
                            len(self.super_down), self.links_to_each_superspine, self.max_pods, advice,
                            ", or add backend.core (four tiers)" if self.network == "backend" else "",
                            servers_max, servers_max * gpus_per_server, servers_needed))

    def oversubscription(self):
        """Bandwidth down : bandwidth up, per tier that has uplinks."""
        out = {}
        if self.tiers >= 2:
            lp = self.leaf_model.ports
            out["leaf"] = ratio(sum(lp[p][1] for p in self.leaf_down), sum(lp[p][1] for p in self.leaf_up))
        if self.tiers >= 3:
            sp = self.spine_model.ports
            out["spine"] = ratio(sum(sp[p][1] for p in self.spine_down), sum(sp[p][1] for p in self.spine_up))
        if self.tiers == 4:
            xp = self.super_model.ports
            out["superspine"] = ratio(sum(xp[p][1] for p in self.super_down), sum(xp[p][1] for p in self.super_up))
        return out


def ratio(down, up):
    """Down:up as a reduced ratio, "3:1"; "-" when there is no uplink."""
    if not up:
        return "-"
    g = math.gcd(down, up)
    return "%d:%d" % (down // g, up // g)
