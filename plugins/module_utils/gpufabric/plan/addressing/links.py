"""Routed link addresses: the /31 (/127) of each switch-to-switch link, and the backend server
links, blocked per leaf.

Fabric links: link k of lower device n (leaf below spine, spine below superspine) takes /31 number
n * uplinks + k, so it stays put when the cluster grows. Server links: each backend leaf owns an
aligned block of 2 x downlinks addresses (rounded up to a power of two) at its position, which it
advertises as one summary; the server at position p of the unit takes /31 number p of it.
"""
from ...ipam import block_size_for

# (link tier, pool key, the fewest tiers that have it)
_TIERS = (("leaf-spine", "leaf_spine", 2), ("spine-superspine", "spine_superspine", 3),
          ("superspine-core", "superspine_core", 4))


def fabric(pools, network, pool_cidrs, clos, tiers):
    below = {"leaf-spine": (tiers.leaves, clos.uplinks), "spine-superspine": (tiers.spines, len(clos.spine_up)),
             "superspine-core": (tiers.superspines, len(clos.super_up))}
    for tier, key, fewest in _TIERS:
        lower, per = below[tier]
        if not lower or clos.tiers < fewest:
            continue
        for suffix, attr in (("", "ipv4"), ("_ipv6", "ipv6")):
            if pool_cidrs.get(key + suffix) is None:
                continue
            pool = pools.take(network + ".pools." + key + suffix, pool_cidrs[key + suffix])
            pool.require(2 * per * (max(d.index for d in lower) + 1), "%d %s links" % (per * len(lower), tier))
            for dev in lower:
                nth = dev.index * per
                for link in dev.links:
                    if link.tier == tier and link.b is dev:
                        setattr(link, attr, pool.base + 2 * nth)
                        nth += 1


def backend_servers(plan, pools, pool_cidrs):
    sizing, leaves = plan.sizing, plan.backend.leaves
    per_unit, rails = sizing.servers_per_unit, sizing.rails
    # links per leaf: a rail leaf has one per server of its unit, a top-of-rack leaf every NIC of them
    top_of_rack = sizing.design == "top_of_rack"
    per_leaf = per_unit * rails if top_of_rack else per_unit
    block = block_size_for(2 * per_leaf)
    for key, attr in (("server_links", "ipv4"), ("server_links_ipv6", "ipv6")):
        if pool_cidrs[key] is None:
            continue
        pool = pools.take("backend.pools." + key, pool_cidrs[key])
        pool.require(block * len(leaves), "%d leaves x %d addresses (2 x %d downlinks, aligned)"
                     % (len(leaves), block, per_leaf))
        if attr == "ipv4":
            prefix = pool.prefix_for(block)
            for leaf in leaves:
                leaf.server_block = (pool.base + leaf.index * block, prefix)
        for dev in plan.servers + plan.hosts:
            unit, pos = divmod(dev.position, per_unit)
            for rail, link in enumerate(x for x in dev.links if x.network == "backend"):
                if top_of_rack:
                    setattr(link, attr, pool.base + unit * block + 2 * (pos * rails + rail))
                else:
                    # the leaf's own block (its index: unit * rails + rail, or with multi-plane NICs
                    # (unit * planes + plane) * rails + rail), the server's position in it
                    setattr(link, attr, pool.base + link.a.index * block + 2 * pos)
