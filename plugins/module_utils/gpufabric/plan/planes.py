"""Multi-plane fabrics: one NIC, several independent fabrics.

With ``backend.planes: P`` each GPU's NIC runs in a port mode of P ports (ConnectX-8 as 2 x 400G or 4 x 200G)
and port p of every NIC goes to plane p. A plane is a whole rail-optimized fabric (two, three or four tiers)
with its own leaves, spines, ASNs and addresses; no switch, cable or route is shared between planes, so a
plane that fails takes 1/P of every GPU's bandwidth and nothing else (NVIDIA's DGX B300 on Spectrum-4:
"the application can continue to operate on 1/2 of the original bandwidth").

This module answers: is the plane layout buildable (`layout`), what the plane ports of a NIC are called
(`port_names`), and how a plan of P planes counts per plane (`plane_summary`, `cages`). Positions stay
growth-safe: leaf ``index`` = (unit * P + plane) * rails + rail, so a larger cluster appends units.
"""
from typing import NamedTuple, Optional

from ..catalog import parse_mode
from ..errors import SpecError


class PlaneLayout(NamedTuple):
    count: int              # planes: 1 is the classic fabric (one port a NIC)
    mode: Optional[str]     # the NIC's port mode (2x400G), None with one plane
    speed: int              # Gb/s of one NIC port, what a leaf port must run at
    nic_model: str


def layout(spec, server_model):
    """The plane layout of the spec's backend, refusing in one line what cannot be built."""
    be = spec["backend"]
    speed = server_model.backend_nics[0]["speed"]
    name = server_model.backend_nic_model
    planes, wanted = be.get("planes") or 1, be.get("nic_mode")
    if planes == 1 and not wanted:
        return PlaneLayout(1, None, speed, name)
    if be["design"] != "rail_optimized":
        raise SpecError("backend.planes", "%d planes make each NIC port its own rail-optimized fabric, but the design "
                        "is %s: use design rail_optimized (rail_planes groups rails, not NIC ports) or remove "
                        "backend.planes" % (planes, be["design"]))
    if be["hosts"]:
        raise SpecError("backend.hosts", "hosts on a multi-plane backend are not planned yet (a host's NIC would need "
                        "a port in every plane): remove backend.hosts or backend.planes")
    nic = server_model.backend_nic
    modes = list(nic.get("modes") or ["1x%dG" % speed])
    lanes = nic.get("lanes")
    if lanes and lanes % planes:
        good = [str(n) for n in range(2, lanes + 1) if lanes % n == 0 and _mode_with(modes, n)]
        raise SpecError("backend.planes", "%d planes do not divide the %d lanes of %s's port (one port a plane): use "
                        "%s" % (planes, lanes, name, " or ".join(good) or "1 (this NIC has one port mode)"))
    if wanted:
        parsed = parse_mode(wanted)
        if wanted not in modes:
            raise SpecError("backend.nic_mode", "no port mode of %s gives %s (its modes: %s): use %s" % (
                name, wanted, ", ".join(modes), _mode_with(modes, parsed[0]) or ", ".join(modes)))
        if parsed[0] != planes:
            other = _mode_with(modes, planes) or "another mode"
            raise SpecError("backend.nic_mode", "%s gives %d port(s) but backend.planes is %d (one port a plane): use "
                            "%s or set backend.planes to %d" % (wanted, parsed[0], planes, other, parsed[0]))
        mode = wanted
    else:
        mode = _mode_with(modes, planes)
        if mode is None:
            raise SpecError("backend.planes", "%s has no port mode of %d ports (its modes: %s), so no port speed "
                            "gives %d planes: use planes %s" % (
                                name, planes, ", ".join(modes), planes,
                                " or ".join(str(parse_mode(m)[0]) for m in modes)))
    count, port_speed = parse_mode(mode)
    if count * port_speed > speed:
        raise SpecError("backend.nic_mode", "%s is %d Gb/s, more than the %d Gb/s of %s's NICs: use a mode within it"
                        % (mode, count * port_speed, speed, server_model.name))
    return PlaneLayout(count, mode if count > 1 else None, port_speed, name)


def _mode_with(modes, ports):
    for mode in modes:
        if parse_mode(mode)[0] == ports:
            return mode
    return None


def port_names(nic, index, planes):
    """[(interface name, RDMA device)] of NIC ``index``'s plane ports. A ConnectX port mode of P ports shows P
    PCI functions: ``ens1np0`` becomes ``ens1f0np0``, ``ens1f1np1`` (the kernel's slot naming, function f,
    physical port n), each its own RDMA device, numbered NIC by NIC (mlx5_0, mlx5_1 for NIC 0 of 2 planes)."""
    if planes == 1:
        return [(nic["name"], nic.get("rdma"))]
    stem = nic["name"].split("np")[0]
    rdma = nic.get("rdma") or ""
    prefix = rdma.rstrip("0123456789")
    return [("%sf%dnp%d" % (stem, p, p), "%s%d" % (prefix, index * planes + p) if prefix else None)
            for p in range(planes)]


def plane_ports(server_model, planes):
    """{port name: RDMA device} of every plane port of ``server_model``."""
    out = {}
    for i, nic in enumerate(server_model.backend_nics):
        for name, rdma in port_names(nic, i, planes):
            if rdma:
                out[name] = rdma
    return out


def cages(plan, devices, tier):
    """Cables as a cage-level count: the distinct (device, cage) pairs of ``devices`` on ``tier``'s links. A
    twin-port optic in one cage carries two plane ports (or two broken-out links) and is one cable at that end,
    the way NVIDIA's reference-architecture tables count node-leaf and leaf-spine cables."""
    seen = set()
    for dev in devices:
        model = dev.model
        cage_of = getattr(model, "cage_of", None)
        for link in dev.links:
            if link.tier != tier:
                continue
            port = link.a_port if link.a is dev else link.b_port
            if cage_of is not None:
                port = cage_of(port)[0]
            elif dev.role == "gpu_server":
                port = nic_cage(port)
            seen.add((dev.name, port))
    return len(seen)


def nic_cage(port):
    """The NIC cage of a plane port (ens1f1np1 -> ens1): every port of one NIC leaves through its one cage."""
    stem, sep, _rest = port.partition("np")
    return stem.rsplit("f", 1)[0] if sep and "f" in stem else port


def plane_summary(plan):
    """Per plane: its switches by role, its links by tier, and its first-failure figure inputs; None with one
    plane (the summary of a classic fabric is unchanged)."""
    count = plan.sizing.nic_planes
    if count == 1:
        return None
    per = [{"leaves": 0, "spines": 0, "superspines": 0, "core": 0, "server_links": 0, "fabric_links": 0}
           for _p in range(count)]
    keys = {"backend_leaf": "leaves", "backend_spine": "spines", "backend_superspine": "superspines",
            "backend_core": "core"}
    for tiers in (plan.backend.leaves, plan.backend.spines, plan.backend.superspines, plan.backend.cores):
        for dev in tiers:
            per[dev.fabric_plane][keys[dev.role]] += 1
    for link in plan.links:
        if link.network != "backend":
            continue
        upper = link.a
        if link.tier == "server":
            per[upper.fabric_plane]["server_links"] += 1
        else:
            per[upper.fabric_plane]["fabric_links"] += 1
    lay = plan.sizing.plane_layout
    out = {"count": count, "nic_mode": lay.mode, "port_speed": lay.speed, "nic_model": lay.nic_model,
           "each_plane_tiers": plan.sizing.backend.tiers, "max_gpus_per_plane": plan.sizing.max_servers * plan.sizing.rails,
           "planes": {}}
    for p, numbers in enumerate(per):
        numbers["switches"] = numbers["leaves"] + numbers["spines"] + numbers["superspines"] + numbers["core"]
        numbers["links"] = numbers["server_links"] + numbers["fabric_links"]
        out["planes"]["plane_%d" % (p + 1)] = numbers
    out["total"] = {key: sum(n[key] for n in per) for key in per[0]}
    out["cables"] = {"node_leaf": cages(plan, plan.servers, "server"),
                     "node_leaf_fibres": out["total"]["server_links"],
                     "leaf_spine": cages(plan, plan.backend.leaves, "leaf-spine")}
    return out


def check_isolated(plan):
    """Every backend link joins two devices of one plane (a server link: its leaf's plane matches the NIC port's
    plane). Returns a list of problems (an empty list: planes do not touch)."""
    problems = []
    if plan.sizing.nic_planes == 1:
        return problems
    ports = {}
    for i, nic in enumerate(plan.sizing.server_model.backend_nics):
        for p, (name, _rdma) in enumerate(port_names(nic, i, plan.sizing.nic_planes)):
            ports[name] = p
    for link in plan.links:
        if link.network != "backend":
            continue
        a = link.a.fabric_plane
        b = ports.get(link.b_port) if link.tier == "server" else link.b.fabric_plane
        if a != b:
            problems.append("%s %s (plane %s) - %s %s (plane %s)" % (
                link.a.name, link.a_port, _n(a), link.b.name, link.b_port, _n(b)))
    return problems


def _n(plane):
    return "?" if plane is None else plane + 1
