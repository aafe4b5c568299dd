"""Frontend server subnets: each leaf pair owns an aligned block holding the network address, the
gateway, leaf A, leaf B, its servers and the broadcast address, in that order."""
from ...ipam import block_size_for


def assign(plan, pools, pool_cidrs):
    sizing = plan.sizing
    per_pair, pairs = sizing.servers_per_pair, sizing.leaf_pairs
    block = block_size_for(per_pair + 5)
    pool = pools.take("frontend.pools.servers", pool_cidrs["servers"])
    pool.require(block * pairs, "%d leaf pairs x %d addresses (%d servers + network, gateway, 2 leaves, "
                 "broadcast)" % (pairs, block, per_pair))
    prefix = pool.prefix_for(block)
    for leaf in plan.frontend.leaves:
        pair, side = divmod(leaf.index, 2)
        base = pool.base + pair * block
        leaf.frontend_block = (base, prefix)
        leaf.frontend_ip = base + 2 + side
    for dev in plan.servers:
        pair, pos = divmod(dev.index, per_pair)
        base = pool.base + pair * block
        dev.frontend_block = (base, prefix)
        dev.frontend_ip = base + 4 + pos
