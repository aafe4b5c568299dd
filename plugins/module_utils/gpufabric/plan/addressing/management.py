"""The flat management network: the first quarter of the pool holds switches (eight blocks, one
per switch role, each switch at its position), the rest servers (BMC, then host port); the last
usable address is the gateway."""
from ...errors import SpecError
from ...roles import SERVER_LIKE_ROLES, SWITCH_ROLES


def _size_needed(by_role, servers):
    """The smallest pool (a power of two) whose role blocks and server region hold every address."""
    size = 64
    for devs in by_role.values():
        # a role block is 1/32 of the pool and holds positions 1 .. max index + 1
        size = max(size, 32 * (max(d.index for d in devs) + 2))
    # servers: 2 addresses each in the last three quarters, below the gateway and the broadcast address
    size = max(size, -(-4 * (2 * servers + 3) // 3))
    return 1 << (size - 1).bit_length()


def assign(plan, pools):
    pool = pools.take("oob.pool", plan.spec["oob"]["pool"])
    by_role = {}
    for dev in plan.devices:
        if dev.role not in SERVER_LIKE_ROLES:
            by_role.setdefault(dev.role, []).append(dev)
    servers = plan.sizing.positions     # GPU servers, then backend hosts
    needed = _size_needed(by_role, servers)
    if pool.size < needed:
        # One prefix for every constraint at once, so the hint is never refused for another reason.
        raise SpecError("oob.pool", "pool %s is too small: %d servers (BMC and host port each) and %d switches, "
                        "each switch role in an eighth of the first quarter, need %d addresses: use a /%d or larger"
                        % (pool.cidr, servers, sum(len(d) for d in by_role.values()), needed,
                           pool.bits - (needed.bit_length() - 1)))
    quarter = pool.size // 4
    block = quarter // 8
    for i, role in enumerate(SWITCH_ROLES):
        devs = by_role.get(role)
        if not devs:
            continue
        base = pool.base + i * block + 1
        for dev in devs:
            dev.mgmt = base + dev.index
    region = pool.base + quarter
    for dev in plan.servers + plan.hosts:
        dev.bmc = region + 1 + 2 * dev.position
        dev.mgmt = dev.bmc + 1
    plan.mgmt_gateway = pool.base + pool.size - 2
    plan.mgmt_prefix = pool.bits - (pool.size.bit_length() - 1)
