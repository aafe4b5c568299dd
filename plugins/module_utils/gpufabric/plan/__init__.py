"""spec -> plan: every device, rack and cable of the cluster, with its addresses and ASNs.

Everything is allocated from positions (scalable unit, rail, pod, port), never from a running
counter, so growing `servers.count` adds devices and cables at the end and changes nothing that is
already allocated. The steps, each in its own module:

    sizing     how many of everything (a value, computed once)
    placement  racks and slots
    cables     the length of every cable (ordered and configured)
    naming     hostnames
    devices    servers, backend hosts, leaves, spines, superspines, core switches in position order
    cabling    ports to links
    addressing /31s and server blocks, loopbacks, frontend subnets, management, ASNs
    model      Plan, Device, Link, LinkEnd, Rack: what every later stage reads
"""
from ..catalog import Catalog
from ..day2.spares import check_replaced
from ..gc_pause import allocation_heavy
from ..spec import validate
from ..summary import summarize
from . import cabling, devices, planes, racks
from .addressing import Pools, asns, frontend as frontend_addresses, links, loopbacks, management
from .cables import CableLengths
from .model import Device, Link, LinkEnd, Plan, Rack  # noqa: F401  (the plan's types, for readers)
from .naming import Namer
from .placement import Placement
from .sizing import size


@allocation_heavy
def build_plan(raw_spec):
    """Validate a spec (a dict as read from YAML) and return its Plan."""
    spec = validate(raw_spec)
    catalog = Catalog(spec["models"])
    sizing = size(spec, catalog)
    plan = Plan(spec, catalog, sizing)
    placement, namer = Placement(spec, sizing), Namer(spec, sizing)

    devices.servers(plan, placement, namer)
    devices.hosts(plan, placement, namer)
    plan.replaced = check_replaced(plan)
    devices.backend(plan, placement, namer)
    cabling.backend(plan)
    if sizing.frontend:
        devices.frontend(plan, placement, namer)
        cabling.frontend(plan)
    cabling.oob(plan, namer)

    pools = Pools()
    _address(plan, pools)
    management.assign(plan, pools)
    pools.check_overlap()
    plan.racks = placement.racks()
    plan.cable_lengths = CableLengths.for_spec(spec)
    plan.summary = summarize(plan, racks.rack_power(plan) if plan.spec.get("racks") else None)
    per_plane = planes.plane_summary(plan)
    if per_plane:   # only with backend.planes, so a classic fabric summarizes as before
        plan.summary["multi_plane"] = per_plane
    return plan


def _address(plan, pools):
    """Each network in turn: ASNs, its server-facing addresses, loopbacks, fabric /31s."""
    networks = (("backend", plan.backend, plan.sizing.backend, asns.backend, links.backend_servers),
                ("frontend", plan.frontend, plan.sizing.frontend, asns.frontend, frontend_addresses.assign))
    for network, tiers, clos, assign_asns, assign_server_side in networks:
        if tiers is None:
            continue
        cidrs = plan.spec[network]["pools"]
        assign_asns(plan)
        assign_server_side(plan, pools, cidrs)
        loopbacks.assign(pools, network, cidrs, tiers)
        links.fabric(pools, network, cidrs, clos, tiers)
