"""Ports to links: which port of which device each cable joins.

A server's position in its scalable unit (or leaf pair) is its leaf port; leaf uplink k goes to
spine k // links_to_each_spine of its pod; spine uplink k to superspine k // links_to_each_superspine
of its plane (in its zone, with four tiers); superspine uplink k to core switch k // links_to_each_core
of its core plane; every device's management ports land on the OOB switch of its own rack.
"""
from ..roles import SERVER_LIKE_ROLES
from .model import Device, Link
from .planes import port_names


def _port_names(model, indices):
    return [model.ports[i][0] for i in indices]


def backend_nics(plan):
    """(device, [NIC names, rail order]) of every GPU server, then every backend host: the NICs cabled
    to the leaves (a host's first ``nics``)."""
    nics = [n["name"] for n in plan.sizing.server_model.backend_nics]
    for dev in plan.servers:
        yield dev, nics
    groups = [group for group in plan.sizing.hosts for _n in range(group.count)]
    for dev, group in zip(plan.hosts, groups):
        yield dev, [n["name"] for n in group.model.backend_nics[:group.nics]]


def backend(plan):
    sizing = plan.sizing
    clos, rails, leaves = sizing.backend, sizing.rails, plan.backend.leaves
    down = _port_names(clos.leaf_model, clos.leaf_down)
    speed = sizing.server_model.backend_nics[0]["speed"]
    connect = plan.connect
    top_of_rack = sizing.design == "top_of_rack"
    if sizing.nic_planes > 1:
        _plane_servers(plan, leaves, down)
        return _fabric(plan, "backend", clos, plan.backend,
                       lambda leaf: (leaf.plane, leaf.index // (rails * clos.planes) * rails + leaf.index % rails))
    for dev, nics in backend_nics(plan):
        unit, pos = divmod(dev.position, sizing.servers_per_unit)
        for rail, nic in enumerate(nics):
            if top_of_rack:
                # every NIC of the server on its unit's one leaf, the server's ports side by side
                connect(Link("backend", "server", leaves[unit], down[pos * rails + rail], dev, nic, speed))
            else:
                connect(Link("backend", "server", leaves[unit * rails + rail], down[pos], dev, nic, speed))
    if clos.tiers < 2:
        return
    planes = sizing.design == "rail_planes"
    _fabric(plan, "backend", clos, plan.backend,
            lambda leaf: (leaf.plane, leaf.index // rails if planes else leaf.index))


def _plane_servers(plan, leaves, down):
    """Multi-plane NICs: port p of GPU i's NIC to plane p's rail-i leaf of the server's unit, at the server's
    position (so every plane's leaves take the unit's servers in the same order)."""
    sizing = plan.sizing
    rails, planes, speed = sizing.rails, sizing.nic_planes, sizing.plane_layout.speed
    ports = [port_names(nic, i, planes) for i, nic in enumerate(sizing.server_model.backend_nics)]
    plan.plane_rdma = {name: rdma for nic in ports for name, rdma in nic if rdma}
    for dev in plan.servers:
        unit, pos = divmod(dev.position, sizing.servers_per_unit)
        for rail, nic in enumerate(ports):
            for plane, (name, _rdma) in enumerate(nic):
                plan.connect(Link("backend", "server", leaves[(unit * planes + plane) * rails + rail], down[pos], dev,
                                  name, speed))


def _fabric(plan, network, clos, tiers, plane_and_position):
    connect = plan.connect
    leaf_up = _port_names(clos.leaf_model, clos.leaf_up)
    spine_down = _port_names(clos.spine_model, clos.spine_down)
    speed = clos.leaf_model.ports[clos.leaf_up[0]][1]
    per_group, per_spine = clos.spines_per_group, clos.links_to_each_spine
    spines = tiers.spines
    for leaf in tiers.leaves:
        plane, pos = plane_and_position(leaf)
        pod, in_pod = divmod(pos, clos.leaves_per_pod)
        first = (pod * clos.planes + plane) * per_group
        for k, port in enumerate(leaf_up):
            j, nth = divmod(k, per_spine)
            connect(Link(network, "leaf-spine", spines[first + j], spine_down[in_pod * per_spine + nth], leaf,
                         port, speed))
    if clos.tiers < 3:
        return
    spine_up = _port_names(clos.spine_model, clos.spine_up)
    super_down = _port_names(clos.super_model, clos.super_down)
    speed = clos.spine_model.ports[clos.spine_up[0]][1]
    per_plane, per_super = clos.superspines_per_plane, clos.links_to_each_superspine
    supers = tiers.superspines
    for spine in spines:
        zone, pod_in_zone = divmod(spine.pod, clos.pods_per_zone)
        first = ((zone * clos.planes + spine.plane) * per_group + spine.index % per_group) * per_plane
        for k, port in enumerate(spine_up):
            s, nth = divmod(k, per_super)
            connect(Link(network, "spine-superspine", supers[first + s],
                         super_down[pod_in_zone * per_super + nth], spine, port, speed))
    if clos.tiers == 4:
        _core(plan, network, clos, tiers)


def _core(plan, network, clos, tiers):
    """Superspine k of plane j in every zone to the core switches of core plane (j, k)."""
    super_up = _port_names(clos.super_model, clos.super_up)
    core_down = _port_names(clos.core_model, clos.core_down)
    speed = clos.super_model.ports[clos.super_up[0]][1]
    per_zone = clos.planes * clos.spines_per_group * clos.superspines_per_plane
    per_core, cores = clos.links_to_each_core, clos.cores_per_plane
    for sup in tiers.superspines:
        in_zone = sup.index % per_zone      # (rail plane, spine plane, k): the core plane it meets
        for k, port in enumerate(super_up):
            c, nth = divmod(k, per_core)
            plan.connect(Link(network, "superspine-core", tiers.cores[in_zone * cores + c],
                              core_down[sup.zone * per_core + nth], sup, port, speed))


def frontend(plan):
    sizing = plan.sizing
    clos, leaves = sizing.frontend, plan.frontend.leaves
    ports = clos.leaf_model.ports
    down = _port_names(clos.leaf_model, clos.leaf_down)
    server_ports = sizing.server_model.frontend_ports
    connect = plan.connect
    for dev in plan.servers:
        pair, pos = divmod(dev.index, sizing.servers_per_pair)
        for side in (0, 1):
            connect(Link("frontend", "server", leaves[2 * pair + side], down[pos], dev, server_ports[side]["name"],
                         server_ports[side]["speed"]))
    for pair in range(sizing.leaf_pairs):
        for port in clos.leaf_reserved:
            connect(Link("frontend", "peer", leaves[2 * pair], ports[port][0], leaves[2 * pair + 1],
                         ports[port][0], ports[port][1]))
    if clos.tiers >= 2:
        _fabric(plan, "frontend", clos, plan.frontend, lambda leaf: (0, leaf.index))


def oob(plan, namer):
    """One or more management switches per rack (created here, as their number follows the ends);
    each BMC, host management port and switch management port takes the port its slot gives."""
    sizing = plan.sizing
    model, per_rack = sizing.oob_model, sizing.oob_switches_per_rack
    access = _port_names(model, sizing.oob_access_ports)
    speed = model.ports[sizing.oob_access_ports[0]][1]
    by_rack = {}
    for dev in plan.devices:
        by_rack.setdefault(dev.rack.ordinal, []).append(dev)
    for ordinal in sorted(by_rack):
        devs = by_rack[ordinal]
        rack = devs[0].rack
        ends = []
        for dev in devs:
            if dev.role in SERVER_LIKE_ROLES:
                ends.append((2 * dev.slot, dev, dev.model.bmc_port["name"]))
                ends.append((2 * dev.slot + 1, dev, dev.model.mgmt_port["name"]))
            elif rack.kind == "server":
                # a top-of-rack leaf: the position after its rack's servers' ends
                ends.append((2 * dev.slot, dev, dev.model.mgmt_port))
            else:
                ends.append((dev.slot, dev, dev.model.mgmt_port))
        switches = {}
        for position, dev, port in sorted(ends, key=lambda end: end[0]):
            k, port_index = divmod(position, len(access))
            switch = switches.get(k)
            if switch is None:
                idx = rack.ordinal * per_rack + k
                switch = switches[k] = plan.add(Device(namer.name("oob_switch", n=k + 1, index=idx, rack=rack.name),
                                                       "oob_switch", model, idx, rack, None))
            plan.connect(Link("oob", "oob", switch, access[port_index], dev, port, speed))
