"""How many of everything: the numbers of each tier, decided once from the spec and the hardware.

``Sizing`` is a value: computed by ``size`` before any device exists and never changed after, so
every later step (placement, naming, cabling, addressing) reads the same numbers.
"""
from typing import NamedTuple, Optional

from ..errors import SpecError
from .clos import Clos
from .port_split import ceil_div
from .planes import layout as plane_layout
from .racks import check_server_rack


class HostGroup(NamedTuple):
    """Hosts of one kind from backend.hosts: they take the server positions after the GPU servers."""
    name: str
    kind: str
    model: object
    count: int
    nics: int


class Sizing(NamedTuple):
    design: str
    server_model: object
    rails: int                       # GPUs per server: one backend NIC, one rail each
    servers: int
    hosts: tuple                     # HostGroup per backend.hosts entry, in spec order
    positions: int                   # server positions cabled to the backend: GPU servers, then hosts
    backend: Clos
    servers_per_unit: int            # a scalable unit: the servers one rail leaf serves
    scalable_units: int
    max_servers: int                 # the largest cluster this backend hardware holds
    backend_pods: int
    backend_zones: int               # four tiers: groups of pods under one superspine layer (else 1)
    units_per_pod: int
    frontend: Optional[Clos]
    servers_per_pair: int            # servers under one frontend leaf pair
    leaf_pairs: int
    frontend_pods: int
    servers_per_frontend_pod: int
    oob_model: object
    oob_access_ports: tuple          # port indices of the OOB switch model that face devices
    oob_switches_per_rack: int
    switches_per_rack: int
    nic_planes: int = 1              # backend.planes: independent fabrics, one NIC port each (plan/planes.py)
    plane_layout: object = None      # planes.PlaneLayout: NIC port mode and port speed


def _backend(spec, catalog, server_model):
    be = spec["backend"]
    design = be["design"]
    rails = server_model.gpus
    if design == "rail_only":
        for key, what in (("spine", "spines"), ("superspine", "superspines"), ("core", "core switches"),
                          ("pod_gpus", "pods")):
            if be[key] is not None:
                raise SpecError("backend." + key, "rail_only has no %s: remove backend.%s or choose "
                                "rail_optimized or rail_planes" % (what, key))
    elif be["spine"] is None:
        raise SpecError("backend.spine", "missing: %s needs spines (or choose design rail_only)" % design)
    # Leaves that must share a pod: a scalable unit's rails, except with rail planes (one per plane)
    # and top-of-rack (one leaf carries every rail of its servers).
    group = 1 if design in ("rail_planes", "top_of_rack") else rails
    planes = rails if design == "rail_planes" else 1
    nic_speeds = [n["speed"] for n in server_model.backend_nics]
    lay = plane_layout(spec, server_model)
    if lay.count > 1:
        # Each plane is a copy of the spine layers above its own leaves, and its NIC ports run at the mode's speed.
        planes, nic_speeds = lay.count, [lay.speed]
    return Clos("backend", "backend", catalog, be["leaf"], be["spine"], be["superspine"], group, planes,
                nic_speeds, label=design, pod_gpus=be["pod_gpus"], core_tier=be["core"], unit_planes=lay.count == 1), lay


def _frontend(spec, catalog, server_model):
    fe = spec["frontend"]
    ports = server_model.frontend_ports
    if len(ports) < 2:
        raise SpecError("servers.model", "%s has %d frontend port(s); a dual-homed frontend needs 2 "
                        "(add frontend_ports to the model or remove the frontend section)" % (
                            server_model.name, len(ports)))
    peer = fe["peer_links"] if fe["peer_links"] is not None else (2 if fe["dual_homing"] == "mclag" else 0)
    if fe["dual_homing"] == "evpn_mh" and peer:
        raise SpecError("frontend.peer_links", "EVPN multihoming has no peer link: set it to 0 or use mclag")
    return Clos("frontend", "frontend", catalog, fe["leaf"], fe["spine"], fe["superspine"], 2, 1,
                [p["speed"] for p in ports[:2]], reserve_up=peer, label="frontend")


def _hosts(spec, catalog, server_model):
    out = []
    speed = server_model.backend_nics[0]["speed"]
    for i, raw in enumerate(spec["backend"]["hosts"]):
        path = "backend.hosts[%d]" % i
        model = catalog.server(raw["model"] or server_model.name, path + ".model")
        nics = raw["nics"] or len(model.backend_nics)
        most = min(len(model.backend_nics), server_model.gpus)
        if nics > most:
            raise SpecError(path + ".nics", "%d NICs, but %s has %d backend NICs and there are %d rails (NIC i goes "
                            "to rail i): use at most %d" % (
                                nics, model.name, len(model.backend_nics), server_model.gpus, most))
        if {n["speed"] for n in model.backend_nics[:nics]} != {speed}:
            raise SpecError(path + ".model", "%s's backend NICs are not %d Gb/s like the GPU servers' leaf ports: "
                            "choose a model whose NICs match" % (model.name, speed))
        if any(h.name == raw["name"] for h in out):
            raise SpecError(path + ".name", "%r names two host groups: give each its own name" % raw["name"])
        out.append(HostGroup(raw["name"], raw["kind"], model, raw["count"], nics))
    return tuple(out)


def size(spec, catalog):
    server_model = catalog.server(spec["servers"]["model"], "servers.model")
    rails, servers = server_model.gpus, spec["servers"]["count"]
    design = spec["backend"]["design"]
    oob_model = catalog.switch(spec["oob"]["switch"]["model"], "oob.switch.model", spec["oob"]["switch"]["nos"])
    access = tuple(oob_model.usable("down") + oob_model.usable("any"))
    if not access:
        raise SpecError("oob.switch.model", "%s has no access ports (groups with use down or any)" % oob_model.name)
    per_rack = spec["layout"]["switches_per_rack"]
    # A server rack holds two OOB ends per server (BMC, host port); a network rack one per switch.
    # (top_of_rack: the leaf in a server rack takes the position after its servers').
    ends = 2 * spec["servers"]["per_rack"] + (2 if design == "top_of_rack" else 0)
    oob_per_rack = ceil_div(max(ends, per_rack), len(access))
    # Rack physics first: a rack nobody can build is refused before any port is counted.
    be_leaf = spec["backend"]["leaf"]
    tor_leaf = catalog.switch(be_leaf["model"], "backend.leaf.model", be_leaf["nos"]) if design == "top_of_rack" else None
    others = [(oob_model, oob_per_rack)] + ([(tor_leaf, 1)] if tor_leaf else [])
    check_server_rack(spec, server_model, others)
    backend, lay = _backend(spec, catalog, server_model)
    per_unit = backend.downlinks
    if design == "top_of_rack":
        per_unit = _top_of_rack_unit(spec, backend, server_model, rails)
    hosts = _hosts(spec, catalog, server_model)
    positions = servers + sum(h.count for h in hosts)
    units = ceil_div(positions, per_unit)
    group = 1 if design in ("rail_planes", "top_of_rack") else rails
    leaves_per_plane = units * group
    if design == "rail_only":
        max_servers = per_unit
        if units > 1:
            # Count the ports that can face GPUs, not every port of the model (a Z9332F-ON has 32
            # x 400G plus two 10G ports that carry no GPU).
            raise SpecError("servers.count", "rail_only with %d-port switches holds at most %d GPUs; the spec asks "
                            "for %d: use rail_optimized or a larger switch" % (
                                backend.downlinks, per_unit * rails, servers * rails))
    else:
        backend.size_spines_to(leaves_per_plane)
        max_servers = backend.max_leaves // group * per_unit
        backend.check_fits(leaves_per_plane, servers, max_servers, rails)

    frontend = _frontend(spec, catalog, server_model) if spec["frontend"] is not None else None
    per_pair, pairs, fe_pods, per_fe_pod = _frontend_pairs(frontend, servers, rails)

    return Sizing(
        design=design, server_model=server_model, rails=rails, servers=servers, hosts=hosts, positions=positions,
        backend=backend, servers_per_unit=per_unit,
        scalable_units=units, max_servers=max_servers,
        backend_pods=1 if backend.tiers < 3 else backend.pods_for(leaves_per_plane),
        backend_zones=backend.zones_for(leaves_per_plane) if backend.tiers == 4 else 1,
        units_per_pod=backend.leaves_per_pod // group, frontend=frontend, servers_per_pair=per_pair,
        leaf_pairs=pairs, frontend_pods=fe_pods, servers_per_frontend_pod=per_fe_pod, oob_model=oob_model,
        oob_access_ports=access, oob_switches_per_rack=oob_per_rack, switches_per_rack=per_rack,
        nic_planes=lay.count, plane_layout=lay)


def _top_of_rack_unit(spec, backend, server_model, rails):
    """The servers of one top-of-rack leaf (a scalable unit), or the error naming the key that keeps a leaf from
    taking whole servers, one rail a port."""
    parents = getattr(backend.leaf_model, "parent", None)
    broken = [parents[p] for p in backend.leaf_down if parents and parents[p]] if parents else []
    if broken:
        # Consecutive leaf ports take a server's NICs in rail order: the halves of one cage would carry
        # two rails (one failed optic, two rails of a server down).
        raise SpecError("backend.leaf.downlink_breakout", "%s on a top_of_rack leaf puts rails 0 and 1 of a "
                        "server on the %d sub-ports of one physical port %s (a port carries one rail): choose "
                        "a leaf whose ports run at the NICs' %dG, or a rail design" % (
                            broken[0][4], broken[0][3], broken[0][1], server_model.backend_nics[0]["speed"]))
    # A scalable unit is the servers of one leaf: all their GPUs on it.
    per_unit = backend.downlinks // rails
    if per_unit < 1:
        raise SpecError("backend.leaf.downlinks", "top_of_rack puts all %d GPUs of a server on one leaf, but the "
                        "leaf has %d downlinks: use at least %d" % (rails, backend.downlinks, rails))
    if per_unit % spec["servers"]["per_rack"]:
        raise SpecError("servers.per_rack", "%d servers per rack do not fill the racks of a top-of-rack leaf "
                        "that takes %d servers: use a divisor of %d" % (
                            spec["servers"]["per_rack"], per_unit, per_unit))
    return per_unit


def _frontend_pairs(frontend, servers, rails):
    """(servers a leaf pair, leaf pairs, pods, servers a pod) of the frontend, zeros without one."""
    if not frontend:
        return 0, 0, 0, 0
    per_pair = frontend.downlinks
    pairs = ceil_div(servers, per_pair)
    frontend.size_spines_to(2 * pairs)
    frontend.check_fits(2 * pairs, servers, frontend.max_leaves // 2 * per_pair, rails)
    fe_pods = 1 if frontend.tiers < 3 else frontend.pods_for(2 * pairs)
    return per_pair, pairs, fe_pods, frontend.leaves_per_pod // 2 * per_pair
