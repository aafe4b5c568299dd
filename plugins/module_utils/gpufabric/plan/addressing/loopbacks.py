"""Loopbacks: a network's loopback pool splits in four equal blocks (leaves, spines, superspines,
core switches of four tiers); each switch takes the address at its position in its block."""


def _place(devices, block, attr):
    if not devices:
        return
    block.require(max(d.index for d in devices) + 2, "%d %s loopbacks" % (len(devices), devices[0].role))
    for dev in devices:
        setattr(dev, attr, block.base + 1 + dev.index)


def assign(pools, network, pool_cidrs, tiers):
    for key, attr in (("loopbacks", "loopback"), ("loopbacks_ipv6", "loopback6")):
        if pool_cidrs[key] is None:
            continue
        blocks = pools.take(network + ".pools." + key, pool_cidrs[key]).split(4)
        for devices, block in zip(tiers, blocks):
            _place(devices, block, attr)
