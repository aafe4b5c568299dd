"""The flat management network: the first quarter of the pool holds switches (eight blocks, one
per switch role, each switch at its position), the rest servers (BMC, then host port); the last
usable address is the gateway."""
from ...errors import SpecError
from ...roles import SWITCH_ROLES


def assign(plan, pools):
    pool = pools.take("oob.pool", plan.spec["oob"]["pool"])
    if pool.size < 64:
        raise SpecError("oob.pool", "pool %s is too small: use a /26 or larger" % pool.cidr)
    quarter = pool.size // 4
    block = quarter // 8
    by_role = {}
    for dev in plan.devices:
        if dev.role != "gpu_server":
            by_role.setdefault(dev.role, []).append(dev)
    for i, role in enumerate(SWITCH_ROLES):
        devs = by_role.get(role)
        if not devs:
            continue
        need = max(d.index for d in devs) + 2
        if need > block:
            raise SpecError("oob.pool", "pool %s is too small: %s management addresses reach position %d but "
                            "each switch role has a block of %d (an eighth of the first quarter): use a /%d or "
                            "larger" % (pool.cidr, role, need - 1, block,
                                        pool.bits - ((need * 32 - 1).bit_length())))
        base = pool.base + i * block + 1
        for dev in devs:
            dev.mgmt = base + dev.index
    servers = plan.sizing.servers
    region = pool.base + quarter
    last = pool.base + pool.size - 3  # broadcast and gateway above it
    if region + 2 * servers > last:
        need = 2 * servers * 4 // 3 + 4
        raise SpecError("oob.pool", "pool %s is too small: %d servers need %d BMC and host addresses in the "
                        "last three quarters, which hold %d: use a /%d or larger" % (
                            pool.cidr, servers, 2 * servers, last - region + 1,
                            pool.bits - ((need - 1).bit_length())))
    for dev in plan.servers:
        dev.bmc = region + 1 + 2 * dev.index
        dev.mgmt = dev.bmc + 1
    plan.mgmt_gateway = pool.base + pool.size - 2
    plan.mgmt_prefix = pool.bits - (pool.size.bit_length() - 1)
