"""Addresses and ASNs of the plan, each kind in its own module:

- ``asns``: the private ASN range of each network and each switch's ASN
- ``loopbacks``: /32 (and /128) loopbacks of fabric switches
- ``links``: the /31 of every routed link, and each backend leaf's aligned block of server /31s
- ``frontend``: the subnet of each frontend leaf pair and its addresses
- ``management``: the flat OOB network (switches, BMCs, host ports, gateway)

Every pool a spec names is registered in ``Pools`` so overlapping pools are refused.
"""
from ...errors import SpecError
from ...ipam import Pool


class Pools:
    """The spec's address pools as the plan uses them, in order of use."""

    def __init__(self):
        self.used = []

    def take(self, path, cidr):
        pool = Pool(path, cidr)
        self.used.append(pool)
        return pool

    def check_overlap(self):
        pools = sorted(self.used, key=lambda p: (p.version, p.base))
        for lower, upper in zip(pools, pools[1:]):
            if lower.overlaps(upper):
                raise SpecError(upper.path, "%s overlaps %s (%s): address pools must not overlap" % (
                    upper.cidr, lower.path, lower.cidr))
