"""The plan's data: racks, devices, links and link ends. Addresses are integers (see ipam.py).

A link end is the one place that says, for one device on one cable, its port, the peer, the
peer's port and both addresses; configs, docs, inventory and validation all read it.
"""
from ..ipam import cidr, fmt

# Switch-to-switch tiers, each link a routed /31 with a BGP session (server links are routed too, but
# servers run no BGP).
ROUTED_TIERS = ("leaf-spine", "spine-superspine", "superspine-core")


class Rack:
    __slots__ = ("name", "row", "column", "kind", "ordinal")

    def __init__(self, name, row, column, kind, ordinal):
        self.name = name        # su01-r03, core-r01
        self.row = row          # row of the hall (a rail SU's index), or -1 for the core row
        self.column = column
        self.kind = kind        # server | network | core
        self.ordinal = ordinal  # position among all racks, growth-safe (used for OOB addressing)


class Device:
    __slots__ = ("name", "role", "model", "index", "rail", "su", "pod", "plane", "side", "rack", "slot",
                 "asn", "loopback", "loopback6", "mgmt", "bmc", "server_block", "frontend_ip", "frontend_block",
                 "links", "spare", "zone", "position", "kind", "fabric_plane")

    def __init__(self, name, role, model, index, rack, slot, rail=None, su=None, pod=None, plane=None, side=None,
                 zone=None):
        self.name = name
        self.role = role        # gpu_server, backend_leaf, ... (the inventory group)
        self.model = model      # catalog model object
        self.index = index      # position within its role; every address and ASN derives from it
        self.rail = rail
        self.su = su
        self.pod = pod
        self.plane = plane
        self.side = side
        self.zone = zone        # four tiers: the group of pods under one superspine layer
        self.position = None    # GPU servers and backend hosts: the server position their leaf ports follow
        self.kind = None        # backend hosts: storage | management
        self.fabric_plane = None  # multi-plane backends (backend.planes): the 0-based plane of a backend switch
        self.rack = rack
        self.slot = slot        # position in the rack
        self.asn = None
        self.loopback = None
        self.loopback6 = None
        self.mgmt = None
        self.bmc = None
        self.server_block = None   # leaf: (base, prefix) of its server-link block, advertised as one summary
        self.frontend_ip = None    # server: frontend bond address; leaf: its SVI address
        self.frontend_block = None  # (base, prefix) of the pair's server subnet
        self.links = []
        self.spare = False         # server: a hot-spare position (servers.spares_per_unit)

    @property
    def nos(self):
        """The network OS a switch runs (its role's `nos:`), None for servers and hosts."""
        return getattr(self.model, "nos", None)

    def ends(self):
        """This device's end of each of its links, in cabling order."""
        return [link.end(self) for link in self.links]

    def bgp_ends(self):
        """Its ends of routed switch-to-switch links: one eBGP session each (RFC 7938)."""
        return [link.end(self) for link in self.links if link.tier in ROUTED_TIERS and link.ipv4 is not None]


class Link:
    """A cable. End ``a`` is the upper tier (leaf above server, spine above leaf) and takes the lower
    address of the /31; end ``b`` takes the upper one."""

    __slots__ = ("network", "tier", "a", "a_port", "b", "b_port", "ipv4", "ipv6", "speed")

    def __init__(self, network, tier, a, a_port, b, b_port, speed, ipv4=None, ipv6=None):
        self.network = network  # backend | frontend | oob
        self.tier = tier        # server | leaf-spine | spine-superspine | superspine-core | peer | oob
        self.a = a
        self.a_port = a_port
        self.b = b
        self.b_port = b_port
        self.speed = speed
        self.ipv4 = ipv4        # base of the /31 (int) on routed links
        self.ipv6 = ipv6        # base of the /127

    def end(self, dev):
        return LinkEnd(self, dev)


class LinkEnd:
    """``device``'s side of ``link``: own port, peer, peer port; own and peer addresses."""

    __slots__ = ("link", "device", "port", "peer", "peer_port", "offset")

    def __init__(self, link, dev):
        self.link = link
        self.device = dev
        if link.a is dev:
            self.port, self.peer, self.peer_port, self.offset = link.a_port, link.b, link.b_port, 0
        else:
            self.port, self.peer, self.peer_port, self.offset = link.b_port, link.a, link.a_port, 1

    @property
    def is_upper(self):
        """True on the upper-tier end (the leaf of a server link, the spine of a leaf link)."""
        return self.offset == 0

    @property
    def ipv4(self):
        """Own address with its /31, or None on unrouted links."""
        base = self.link.ipv4
        return None if base is None else cidr(base + self.offset, 31)

    @property
    def ipv6(self):
        base = self.link.ipv6
        return None if base is None else cidr(base + self.offset, 127, 6)

    @property
    def peer_ipv4(self):
        """The peer's address, without prefix (a BGP neighbour, a next hop)."""
        base = self.link.ipv4
        return None if base is None else fmt(base + 1 - self.offset)

    @property
    def peer_ipv6(self):
        base = self.link.ipv6
        return None if base is None else fmt(base + 1 - self.offset, 6)


class Plan:
    """The planned cluster. ``sizing`` holds the tier numbers; ``servers``, ``backend`` and
    ``frontend`` (Tiers, or None) the devices of each network in position order."""

    def __init__(self, spec, catalog, sizing):
        self.spec = spec
        self.catalog = catalog
        self.sizing = sizing
        self.cable_lengths = None   # CableLengths: every link's length, for the cabling plan and the switches
        self.servers = []
        self.hosts = []           # backend hosts (storage, management), after the servers' positions
        self.backend = None
        self.frontend = None
        self.devices = []
        self.links = []
        self.racks = []
        self.summary = {}
        self.mgmt_prefix = None   # the flat management network: prefix length and gateway (int)
        self.mgmt_gateway = None
        self.replaced = {}        # {failed server: the spare standing in for it} (day2/spares.py)
        self.plane_rdma = None    # multi-plane: {NIC plane port: RDMA device} of the GPU servers (plan/planes.py)
        self._by_name = None

    def add(self, device):
        self.devices.append(device)
        return device

    def connect(self, link):
        self.links.append(link)
        link.a.links.append(link)
        link.b.links.append(link)
        return link

    def device(self, name):
        if self._by_name is None:
            self._by_name = {d.name: d for d in self.devices}
        return self._by_name[name]

    def by_role(self, role):
        return [d for d in self.devices if d.role == role]
