"""The devices of the plan in position order: servers, then each network's leaves, spines and
superspines. A device's ``index`` is its position within its role; addresses and ASNs derive from it."""
from typing import List, NamedTuple

from ..day2.spares import spare_threshold
from .port_split import ceil_div
from .model import Device


class Tiers(NamedTuple):
    leaves: List[Device]
    spines: List[Device]
    superspines: List[Device]
    cores: List[Device]


def servers(plan, placement, namer):
    sizing, per_rack = plan.sizing, plan.spec["servers"]["per_rack"]
    model = sizing.server_model
    first_spare = spare_threshold(plan.spec, sizing.servers_per_unit)
    for i in range(sizing.servers):
        unit, pos = divmod(i, sizing.servers_per_unit)
        rack = placement.rack(unit, pos // per_rack)
        dev = Device(namer.name("server", n=i + 1, index=i, su=unit + 1, rack=rack.name), "gpu_server",
                     model, i, rack, pos % per_rack, su=unit)
        dev.spare = pos >= first_spare
        dev.position = i
        plan.servers.append(plan.add(dev))
    return plan.servers


def hosts(plan, placement, namer):
    """Backend hosts at the server positions after the last GPU server, group after group."""
    sizing, per_rack = plan.sizing, plan.spec["servers"]["per_rack"]
    position = sizing.servers
    for group in sizing.hosts:
        for n in range(group.count):
            unit, pos = divmod(position, sizing.servers_per_unit)
            rack = placement.rack(unit, pos // per_rack)
            index = len(plan.hosts)
            dev = Device(namer.name("backend_host", host=group.name, n=n + 1, index=index, su=unit + 1,
                                    rack=rack.name), "backend_host", group.model, index, rack, pos % per_rack, su=unit)
            dev.position, dev.kind = position, group.kind
            plan.hosts.append(plan.add(dev))
            position += 1
    return plan.hosts


def _clos(plan, namer, clos, network, leaf_place, leaf_fields, n_leaves, pods, spine_place, core_slot,
          super_place=None):
    """Leaves (placed and named by the callers), spines per pod and plane, superspines per zone and plane,
    core switches per core plane."""
    leaves = []
    for idx in range(n_leaves):
        fields, plane, pos = leaf_fields(idx)
        rack, slot = leaf_place(idx)
        pod = pos // clos.leaves_per_pod if clos.tiers >= 3 else 0
        fields.update(index=idx, rack=rack.name, pod=pod + 1)
        dev = Device(namer.name(network + "_leaf", **fields), network + "_leaf", clos.leaf_model, idx,
                     rack, slot, rail=fields.get("rail"), su=fields.get("su", 0) - 1 if "su" in fields else None,
                     pod=pod, plane=plane, side=fields.get("side"))
        leaves.append(plan.add(dev))
    spines, supers = [], []
    # With rail planes, each backend plane is one rail's own fabric; its switches carry that rail.
    rails = plan.sizing.design == "rail_planes" and network == "backend"
    # Multi-plane NICs: every backend switch carries its plane (field {fplane} of its name).
    multi = network == "backend" and plan.sizing.nic_planes > 1
    for dev in leaves if multi else ():
        dev.fabric_plane = dev.plane
    per_group = clos.spines_per_group
    for pod in range(pods if clos.tiers else 0):
        for plane in range(clos.planes):
            for j in range(per_group):
                idx = (pod * clos.planes + plane) * per_group + j
                rack, slot = spine_place(pod, plane, j)
                fields = dict(n=j + 1, index=idx, pod=pod + 1, plane=plane + 1, rack=rack.name,
                              rail=plane if rails else "")
                if multi:
                    fields["fplane"] = plane + 1
                dev = Device(namer.name(network + "_spine", **fields), network + "_spine", clos.spine_model, idx,
                             rack, slot, rail=plane if rails else None, pod=pod, plane=plane)
                dev.fabric_plane = plane if multi else None
                spines.append(plan.add(dev))
    per_plane = clos.superspines_per_plane
    four = clos.tiers == 4
    # Three tiers: one zone, every superspine in the core row. Four: each zone's own superspines.
    for zone in range(ceil_div(pods, clos.pods_per_zone) if clos.tiers >= 3 else 0):
        for plane in range(clos.planes):
            for j in range(per_group):
                for k in range(per_plane):
                    idx = ((zone * clos.planes + plane) * per_group + j) * per_plane + k
                    rack, slot = super_place(zone, plane, j, k) if four else core_slot()
                    fields = dict(n=k + 1, index=idx, plane=j + 1, zone=zone + 1, rack=rack.name,
                                  rail=plane if rails else "")
                    if multi:
                        fields["fplane"] = plane + 1
                    dev = Device(namer.name(network + "_superspine", **fields), network + "_superspine",
                                 clos.super_model, idx, rack, slot, rail=plane if rails else None, plane=j,
                                 zone=zone if four else None)
                    dev.fabric_plane = plane if multi else None
                    supers.append(plan.add(dev))
    cores = _cores(plan, namer, clos, network, core_slot, rails, multi) if four else []
    return Tiers(leaves, spines, supers, cores)


def _cores(plan, namer, clos, network, core_slot, rails, multi):
    """A four-tier fabric's core switches, per core plane (with rail planes or multi-plane NICs, per plane too)."""
    cores = []
    per_group, per_plane = clos.spines_per_group, clos.superspines_per_plane
    for plane in range(clos.planes):
        for j in range(per_group):
            for k in range(per_plane):
                core_plane = j * per_plane + k     # superspine k of plane j (every zone) meets this one
                for c in range(clos.cores_per_plane):
                    idx = (plane * per_group * per_plane + core_plane) * clos.cores_per_plane + c
                    rack, slot = core_slot()
                    fields = dict(n=c + 1, index=idx, plane=core_plane + 1, rack=rack.name, rail=plane if rails else "")
                    if multi:
                        fields["fplane"] = plane + 1
                    dev = Device(namer.name(network + "_core", **fields), network + "_core", clos.core_model, idx,
                                 rack, slot, rail=plane if rails else None, plane=core_plane)
                    dev.fabric_plane = plane if multi else None
                    cores.append(plan.add(dev))
    return cores


def backend(plan, placement, namer):
    sizing = plan.sizing
    clos, rails, planes = sizing.backend, sizing.rails, sizing.design == "rail_planes"
    top_of_rack = sizing.design == "top_of_rack"

    nic_planes = sizing.nic_planes

    def leaf_fields(idx):
        if top_of_rack:
            return dict(rail=None, su=idx + 1, n=idx + 1), 0, idx
        if nic_planes > 1:
            # leaf (unit, plane, rail): growth appends units; its position within its plane is unit * rails + rail
            unit, rest = divmod(idx, rails * nic_planes)
            plane, rail = divmod(rest, rails)
            return dict(rail=rail, su=unit + 1, n=unit + 1, fplane=plane + 1), plane, unit * rails + rail
        unit, rail = divmod(idx, rails)
        return dict(rail=rail, su=unit + 1, n=unit + 1), (rail if planes else 0), (unit if planes else idx)

    def spine_place(pod, plane, j):
        if clos.tiers == 2:
            return placement.core_slot()
        return placement.network_slot(pod * sizing.units_per_pod,
                                      placement.first_backend_spine_slot + plane * clos.spines_per_group + j)

    def super_place(zone, plane, j, k):
        # in the network racks of the zone's first scalable unit, like a pod's spines
        return placement.network_slot(zone * clos.pods_per_zone * sizing.units_per_pod,
                                      placement.first_backend_super_slot
                                      + (plane * clos.spines_per_group + j) * clos.superspines_per_plane + k)

    per_unit = 1 if top_of_rack else rails * nic_planes
    plan.backend = _clos(plan, namer, clos, "backend", lambda idx: placement.leaf_slot(idx, per_unit), leaf_fields,
                         sizing.scalable_units * per_unit, sizing.backend_pods, spine_place, placement.core_slot,
                         super_place)
    return plan.backend


def frontend(plan, placement, namer):
    sizing = plan.sizing
    clos, per_pair, per_unit = sizing.frontend, sizing.servers_per_pair, sizing.servers_per_unit
    per_pod = sizing.servers_per_frontend_pod

    def pair_unit(pair):
        return pair * per_pair // per_unit

    def leaf_place(idx):
        pair, side = divmod(idx, 2)
        unit = pair_unit(pair)
        in_unit = pair - ceil_div(unit * per_unit, per_pair)
        return placement.network_slot(unit, placement.first_frontend_leaf_slot + 2 * in_unit + side)

    def leaf_fields(idx):
        pair, side = divmod(idx, 2)
        return dict(n=pair + 1, side="ab"[side], su=pair_unit(pair) + 1), 0, idx

    def spine_place(pod, plane, j):
        if clos.tiers == 2:
            return placement.core_slot()
        unit = pod * per_pod // per_unit
        in_unit = pod - ceil_div(unit * per_unit, per_pod)
        return placement.network_slot(unit, placement.first_frontend_spine_slot + in_unit * clos.spines_per_group + j)

    plan.frontend = _clos(plan, namer, clos, "frontend", leaf_place, leaf_fields, 2 * sizing.leaf_pairs,
                          sizing.frontend_pods, spine_place, placement.core_slot)
    for leaf in plan.frontend.leaves:
        leaf.side = "ab"[leaf.index % 2]
    return plan.frontend
