"""Integer IP arithmetic for allocation at scale.

The plan handles hundreds of thousands of links; the ``ipaddress`` objects are too slow to
create per link, so addresses are kept as integers and formatted only when written out.
"""
import ipaddress

from .errors import SpecError


class Pool:
    """A CIDR pool carved by position: block ``i`` of size ``2**k`` starts at ``base + i * 2**k``."""

    # scale: how many times larger the spec's pool is than this one (a block of a split pool), so a
    # "use a /N" hint names the spec's pool, not the block.
    __slots__ = ("path", "cidr", "version", "base", "size", "bits", "scale")

    def __init__(self, path, cidr):
        try:
            net = ipaddress.ip_network(cidr, strict=True)
        except ValueError as exc:
            raise SpecError(path, "%r is not a network in CIDR form (%s), e.g. 10.0.0.0/16" % (cidr, exc))
        self.path = path
        self.cidr = str(net)
        self.version = net.version
        self.base = int(net.network_address)
        self.size = net.num_addresses
        self.bits = net.max_prefixlen
        self.scale = 1

    def overlaps(self, other):
        return self.version == other.version and self.base < other.base + other.size and other.base < self.base + self.size

    def prefix_for(self, block_size):
        return self.bits - (block_size.bit_length() - 1)

    def require(self, needed, what):
        """Fail unless ``needed`` addresses fit; say how much is needed and what prefix would hold it."""
        if needed > self.size:
            prefix = self.bits - max(0, (needed * self.scale - 1).bit_length())
            raise SpecError(self.path, "pool %s is too small: %s need %d addresses, it has %d: use a /%d or larger"
                            % (self.cidr, what, needed, self.size, prefix))

    def split(self, parts):
        """Equal sub-pools (``parts`` a power of two), for per-role blocks that grow independently."""
        sub = self.size // parts
        out = []
        for i in range(parts):
            p = Pool.__new__(Pool)
            p.path, p.version, p.bits = self.path, self.version, self.bits
            p.base, p.size, p.scale = self.base + i * sub, sub, self.scale * parts
            p.cidr = "%s/%d" % (fmt(p.base, p.version), p.bits - (sub.bit_length() - 1))
            out.append(p)
        return out


def block_size_for(count):
    """Smallest power of two holding ``count`` addresses."""
    return 1 << max(0, (count - 1).bit_length())


def fmt(value, version=4):
    if version == 4:
        return "%d.%d.%d.%d" % (value >> 24, (value >> 16) & 255, (value >> 8) & 255, value & 255)
    return str(ipaddress.IPv6Address(value))


def cidr(value, prefix, version=4):
    return "%s/%d" % (fmt(value, version), prefix)
