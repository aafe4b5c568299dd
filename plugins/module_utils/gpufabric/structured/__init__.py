"""Structured config: plain, NOS-neutral data per switch, derived from the plan alone.

One dict per switch (see docs/switch-config.md for the model). Renderers for a NOS read only this,
never the plan, so a second NOS is a second renderer over the same data.
"""
from ..day2.drain import drain_config, drained_switches
from ..day2.spares import shut_failed_ports
from ..ipam import cidr, fmt
from .bgp import bgp_config
from .context import FabricContext
from .interfaces import breakouts, ethernet_interfaces
from .isolation import tenant_isolation
from .management import management_config, services_config
from .mclag import mclag_config
from .oob import mgmt_interface, oob_config
from .qos import qos_config
from .tenant_vrf import announces_host_routes

__all__ = ["BUILDERS", "FabricContext", "device_config", "structured_configs", "switch_configs"]


def _base(dev, ctx, network):
    out = {"hostname": dev.name, "role": dev.role, "network": network, "model": dev.model.name,
           "nos": dev.nos, "rack": dev.rack.name}
    for key in ("rail", "plane", "pod", "su", "side", "zone"):
        value = getattr(dev, key)
        if value is not None:
            out[key] = value
    out["ethernet_interfaces"] = ethernet_interfaces(dev, ctx.plan, network)
    modes = breakouts(dev)
    if modes:
        out["breakouts"] = modes
    return out


def _loopback(dev):
    lo = {"name": dev.model.platform["loopback"], "ipv4": cidr(dev.loopback, 32)}
    if dev.loopback6 is not None:
        lo["ipv6"] = "%s/128" % fmt(dev.loopback6, 6)
    return lo


def _routed(dev, ctx, network, **bgp):
    cfg = _base(dev, ctx, network)
    cfg["loopback"] = _loopback(dev)
    cfg["management"] = management_config(dev, ctx)
    cfg["services"] = services_config(dev, ctx)
    cfg["bgp"] = bgp_config(dev, **bgp)
    return cfg


def _backend(dev, ctx):
    summaries = [cidr(*dev.server_block)] if dev.server_block else []
    cfg = _routed(dev, ctx, "backend", summaries=summaries)
    cfg["qos"] = qos_config(ctx.qos, cfg["ethernet_interfaces"])
    isolation = tenant_isolation(dev, ctx.plan)
    if isolation:
        cfg["tenant_isolation"] = isolation
        if announces_host_routes(ctx.plan):
            # Each server /31 must travel with its tenant's community (structured/tenant_vrf.py), so the
            # aggregate no longer hides them; it stays, announced beside them, for the default VRF.
            cfg["bgp"]["summary_only"] = False
    return cfg


def _frontend(dev, ctx):
    return _routed(dev, ctx, "frontend")


def _frontend_leaf(dev, ctx):
    # Both leaves of a pair share one ASN, so each must accept routes carrying it (its partner's loopback,
    # needed for the MC-LAG keepalive) back from the spines.
    cfg = _routed(dev, ctx, "frontend", own_ipv4_networks=[cidr(*dev.frontend_block)], allowas_in=1)
    cfg["port_channels"], cfg["vlans"], cfg["mclag"] = mclag_config(dev, cfg["ethernet_interfaces"])
    return cfg


def _oob_switch(dev, ctx):
    cfg = _base(dev, ctx, "oob")
    cfg["vlans"] = oob_config(dev, cfg["ethernet_interfaces"], ctx, ctx.plan.spec["oob"]["provisioning_host"])
    # The OOB switch is the management network itself: it is managed in-band on that VLAN.
    cfg["management"] = management_config(dev, ctx, interface=mgmt_interface(dev), vrf="default")
    cfg["static_routes"] = [{"prefix": "0.0.0.0/0", "next_hop": ctx.mgmt_gateway}]
    cfg["services"] = services_config(dev, ctx)
    return cfg


BUILDERS = {
    "backend_leaf": _backend, "backend_spine": _backend, "backend_superspine": _backend,
    "frontend_leaf": _frontend_leaf, "frontend_spine": _frontend, "frontend_superspine": _frontend,
    "oob_switch": _oob_switch, "backend_core": _backend,
}


def device_config(dev, ctx):
    return BUILDERS[dev.role](dev, ctx)


def structured_configs(plan, names=None):
    """{hostname: structured config} for every switch (or the switches ``names`` lists), in plan order."""
    wanted = None if names is None else set(names)
    return switch_configs(FabricContext(plan), [dev for dev in plan.devices
                                                if dev.role in BUILDERS and (wanted is None or dev.name in wanted)])


def switch_configs(ctx, devs, drained=None):
    """{hostname: structured config} of the switches ``devs`` of ``ctx.plan``: any subset gives each switch the
    config the whole fabric's structured_configs gives it (the build renders the fabric in batches).
    ``drained``: the plan's drained_switches, when the caller has them already."""
    plan = ctx.plan
    out = {dev.name: device_config(dev, ctx) for dev in devs}
    for name in drained_switches(plan) if drained is None else drained:
        # Only a drained switch carries the key, so an undrained build is byte for byte what it was.
        if name in out:
            out[name]["bgp"]["drain"] = drain_config(out[name]["bgp"]["asn"])
    shut_failed_ports(plan, out)
    return out


def switches_of_swap(swapped, unswapped):
    """Sorted switches whose structured config differs between the plan with a swap and the plan without it
    (each with the running tenant assignment attached): the failed server's rail leaves, and with tenants the
    leaves whose tenant ACLs name the failed server's or the spare's addresses. A swap and its restore touch
    the same switches."""
    before, after = structured_configs(unswapped), structured_configs(swapped)
    return sorted(h for h in after if before.get(h) != after[h])
