"""spec -> plan: every device, rack and cable of the cluster, with its addresses and ASNs.

Everything is allocated from positions (scalable unit, rail, pod, port), never from a running
counter, so growing `servers.count` adds devices and cables at the end and changes nothing that is
already allocated. The steps, each in its own module:

    sizing     how many of everything (a value, computed once)
    placement  racks and slots
    cables     the length of every cable (ordered and configured)
    naming     hostnames
    devices    servers, leaves, spines, superspines in position order
    cabling    ports to links
    addressing /31s and server blocks, loopbacks, frontend subnets, management, ASNs
    model      Plan, Device, Link, LinkEnd, Rack: what every later stage reads
"""
from ..catalog import Catalog
from ..errors import SpecError
from ..spec import validate
from ..summary import summarize
from . import cabling, devices
from .addressing import Pools, asns, frontend as frontend_addresses, links, loopbacks, management
from .cables import CableLengths
from .model import Device, Link, LinkEnd, Plan, Rack  # noqa: F401  (the plan's types, for readers)
from .naming import Namer
from .placement import Placement
from .sizing import size

# Pools the frontend does not use (it plans no IPv6).
_FRONTEND_UNUSED = ("loopbacks_ipv6", "leaf_spine_ipv6", "spine_superspine_ipv6")
_BACKEND_IPV6 = ("loopbacks_ipv6", "leaf_spine_ipv6", "spine_superspine_ipv6")


def build_plan(raw_spec):
    """Validate a spec (a dict as read from YAML) and return its Plan."""
    spec = validate(raw_spec)
    catalog = Catalog(spec["models"])
    sizing = size(spec, catalog)
    plan = Plan(spec, catalog, sizing)
    placement, namer = Placement(spec, sizing), Namer(spec, sizing)

    devices.servers(plan, placement, namer)
    devices.backend(plan, placement, namer)
    cabling.backend(plan)
    if sizing.frontend:
        devices.frontend(plan, placement, namer)
        cabling.frontend(plan)
    cabling.oob(plan, namer)

    pools = Pools()
    _address_backend(plan, pools)
    if sizing.frontend:
        _address_frontend(plan, pools)
    management.assign(plan, pools)
    pools.check_overlap()
    plan.racks = placement.racks()
    plan.cable_lengths = CableLengths.for_spec(spec)
    plan.summary = summarize(plan)
    return plan


def _address_backend(plan, pools):
    be = plan.spec["backend"]
    cidrs = dict(be["pools"])
    if be["ipv6"]:
        if not (cidrs["loopbacks_ipv6"] and cidrs["server_links_ipv6"]):
            missing = "loopbacks_ipv6" if not cidrs["loopbacks_ipv6"] else "server_links_ipv6"
            raise SpecError("backend.pools." + missing, "backend.ipv6 is true but this pool is not set: give an "
                            "IPv6 CIDR such as fd00:%s::/48" % ("1" if missing.startswith("loop") else "2"))
    else:
        cidrs["server_links_ipv6"] = None
    asns.backend(plan)
    links.backend_servers(plan, pools, cidrs)
    if not be["ipv6"]:
        cidrs.update(dict.fromkeys(_BACKEND_IPV6))
    loopbacks.assign(pools, "backend", cidrs, plan.backend)
    links.fabric(pools, "backend", cidrs, plan.sizing.backend, plan.backend)


def _address_frontend(plan, pools):
    cidrs = dict(plan.spec["frontend"]["pools"], **dict.fromkeys(_FRONTEND_UNUSED))
    asns.frontend(plan)
    frontend_addresses.assign(plan, pools, cidrs)
    loopbacks.assign(pools, "frontend", cidrs, plan.frontend)
    links.fabric(pools, "frontend", cidrs, plan.sizing.frontend, plan.frontend)
