"""ASNs (RFC 7938 layout): one for the top layer (superspines, or the core of four tiers), one per
spine group (pod x plane), with four tiers one per zone's superspines (after every spine group), one
per leaf unit (a backend leaf, a frontend pair). Groups are reserved up to the hardware's largest
cluster, so growth never renumbers a leaf. A zone's superspines need their own ASN: a route from one
zone crosses the core into another, whose superspines would refuse it as a loop if they shared one."""
from ...errors import SpecError

# The private 2-byte ASN range is shared by the two networks; each falls back to a 4-byte range of
# its own when the largest cluster its hardware allows would not fit in its half.
ASN_AUTO = {"backend": ((64512, 65023), (4200000000, 4200999999)),
            "frontend": ((65024, 65534), (4201000000, 4201999999))}
ASN_MAX = 4294967294


def asn_range(spec, network, clos, units_max, units_used):
    """(first ASN, offset of the first leaf unit) of ``network``."""
    groups_max = clos.planes * clos.max_pods + (clos.max_zones if clos.tiers == 4 else 0)
    need_max = 1 + groups_max + units_max
    raw = spec[network]["asn_pool"]
    path = network + ".asn_pool"
    if raw is None:
        (lo, hi), wide = ASN_AUTO[network]
        first, last = (lo, hi) if need_max <= hi - lo + 1 else wide
    else:
        first, last = (int(x) for x in raw.split("-"))
        if not 1 <= first <= last <= ASN_MAX:
            raise SpecError(path, "%r is not a range FIRST-LAST within 1-%d" % (raw, ASN_MAX))
    need = 1 + groups_max + units_used
    if need > last - first + 1:
        raise SpecError(path, "ASN range %d-%d is exhausted: the plan needs %d ASNs (1 top layer, %d spine and zone "
                        "groups reserved for growth, %d leaf units), the range holds %d: widen it, e.g. 4-byte "
                        "private ASNs %d-%d" % (first, last, need, groups_max, units_used, last - first + 1,
                                                ASN_AUTO[network][1][0], ASN_AUTO[network][1][1]))
    return first, 1 + groups_max


def backend(plan):
    clos, tiers = plan.sizing.backend, plan.backend
    first, leaf_offset = asn_range(plan.spec, "backend", clos, clos.planes * clos.max_leaves, len(tiers.leaves))
    for leaf in tiers.leaves:
        leaf.asn = first + leaf_offset + leaf.index
    for spine in tiers.spines:
        spine.asn = first + 1 + spine.pod * clos.planes + spine.plane
    zone_first = first + 1 + clos.planes * clos.max_pods
    for sup in tiers.superspines:
        sup.asn = first if sup.zone is None else zone_first + sup.zone
    for core in tiers.cores:
        core.asn = first


def frontend(plan):
    clos, tiers = plan.sizing.frontend, plan.frontend
    first, pair_offset = asn_range(plan.spec, "frontend", clos, clos.max_leaves // 2, plan.sizing.leaf_pairs)
    for leaf in tiers.leaves:
        leaf.asn = first + pair_offset + leaf.index // 2
    for spine in tiers.spines:
        spine.asn = first + 1 + spine.pod
    for sup in tiers.superspines:
        sup.asn = first
