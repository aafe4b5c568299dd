"""Clos shape: how the ports of each tier split, how many switches a tier needs, how large the
cluster can grow on the chosen hardware, and the error that says so when it cannot.

Every number here comes from the spec's hardware choices, never from `servers.count` alone, so the
positions derived from them (ports, addresses, ASNs) stay put when the cluster grows.
"""
import math

from ..errors import SpecError
from .port_split import ceil_div, check_speed, fan_out, split_broken_out


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
        self._spines(catalog, spine_tier, path, group, pod_gpus)
        if self.tiers == 2:
            self.max_pods = 1
        else:
            self._upper_tiers(catalog, super_tier, core_tier)
        self.max_leaves = self.max_pods * self.leaves_per_pod

    def _spines(self, catalog, spine_tier, path, group, pod_gpus):
        """The spine tier: how many a plane of pods has, how their ports split, and how many leaves a pod holds."""
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

    def _upper_tiers(self, catalog, super_tier, core_tier):
        """The superspine tier (and the core above it in four tiers): how many pods a zone, and zones a fabric,
        hold."""
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

    def _upper_tier(self, catalog, tier, key, what, lower_model, lower_up, has_up):
        """(model, down ports, up ports, switches per plane, links from each lower switch to each) of the
        superspine or core tier above ``lower_model``'s uplinks ``lower_up``."""
        path = "%s.%s" % (self.path, key)
        lower = "spine" if key == "superspine" else "superspine"
        model, down, up, _reserved = split_broken_out(
            catalog.switch(tier["model"], path + ".model", tier["nos"]), tier, path, has_up,
            down_peer=lower_model.ports[lower_up[0]][1], down_what="the %s uplinks" % lower)
        count, each = fan_out(path + ".count", what + " per plane", lower, tier, lower_up)
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
