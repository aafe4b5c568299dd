"""What the twin is made of: a Twin of network namespaces, each with its interfaces, routes, rules, sysctls and FRR,
and the cables between them (twin/desired.py fills one from the plan and the rendered build)."""

IFNAMSIZ = 15                  # Linux interface names: at most 15 bytes
OOB_BRIDGE = "oob"
FRR_DAEMONS = ("zebra", "bgpd", "bfdd", "staticd")

SWITCH_SYSCTLS = {
    "net.ipv4.ip_forward": "1",
    # Fabric switches forward IPv6 too (docs/twin.md); zebra reads it into `show running-config` as the absence
    # of `no ipv6 forwarding`, which a rendered frr.conf relies on.
    "net.ipv6.conf.all.forwarding": "1",
    "net.ipv4.conf.all.rp_filter": "0",
    "net.ipv4.conf.default.rp_filter": "0",
    # Hash on the 5-tuple, as fabric switches do, so ECMP spreads flows between the same two hosts.
    "net.ipv4.fib_multipath_hash_policy": "1",
}


class TwinError(Exception):
    """The plan or the build cannot be represented as a twin; the message names the object."""


class Iface:
    __slots__ = ("name", "kind", "mtu", "addrs", "master", "up", "options", "mac")

    def __init__(self, name, kind, mtu=None, addrs=(), master=None, up=True, options=(), mac=None):
        if len(name.encode()) > IFNAMSIZ:
            raise TwinError("interface name %r is longer than Linux's %d characters" % (name, IFNAMSIZ))
        self.name = name
        self.kind = kind          # veth | bridge | loopback (lo, which carries a switch's Loopback0)
        self.mtu = mtu
        self.addrs = None if addrs is None else sorted(addrs)   # None: the switch's own configuration decides
        self.master = master
        self.up = up
        self.options = tuple(options)   # extra `ip link add ... type KIND` arguments
        self.mac = mac                  # a MAC address of its own (a bond's members share the bond's), else the kernel's
        # up None: the switch's own configuration decides (a NOS whose config applies itself, docs/twin.md)


class Namespace:
    __slots__ = ("name", "role", "ifaces", "routes", "rules", "sysctls", "frr_conf", "frr_file", "frr_daemons",
                 "lldp_ports", "acl_nft", "mgmt_plane", "nos_plane")

    def __init__(self, name, role):
        self.name = name
        self.role = role
        self.ifaces = {}
        self.routes = []        # (table, destination, gateway or None, device, source or None)
        self.rules = []         # (priority, source, table)
        self.sysctls = {}
        self.frr_conf = None
        # What the device's /etc/frr/frr.conf holds when FRR runs something else (frr_conf: a twin leaf's translation
        # of its tenant VRFs, twin/vrf.py); None: frr_conf itself.
        self.frr_file = None
        self.frr_daemons = ()
        self.lldp_ports = []
        self.acl_nft = None     # a switch's port ACLs as an nft script (twin/nftables.py)
        # (nos, model name, native config) of a switch whose NOS's twin plane runs a management plane beside the
        # namespace the twin builds from its layout (apply at ``up``, reload for one switch's part)
        self.mgmt_plane = None
        # (nos, release, rendered startup text) of a switch whose NOS applies its own configuration into the
        # namespace (its emulator's plane, twin/emulators/): the twin makes cables and starts FRR and lldpd, nothing more
        self.nos_plane = None

    def add(self, iface):
        if iface.name in self.ifaces:
            raise TwinError("%s: interface %s defined twice" % (self.name, iface.name))
        self.ifaces[iface.name] = iface
        return iface


class Twin:
    """The whole desired twin. ``veths`` are (ns_a, if_a, ns_b, if_b) cables; ``cables`` keep the
    plan's view (host, port, peer host, peer port) for LLDP checks."""

    def __init__(self, cluster):
        self.cluster = cluster
        self.oob_ns = cluster + "-oob"
        self.namespaces = {}
        self.veths = []
        # {device: (nos, model name, rendered config)} of devices with a management plane but no namespace of
        # their own (the OOB switches, which the twin stands in for with one bridge in oob_ns).
        self.device_planes = {}

    def ns(self, name, role):
        if name not in self.namespaces:
            self.namespaces[name] = Namespace(name, role)
        return self.namespaces[name]


def frr_daemons(conf):
    """The FRR daemons a rendered frr.conf needs: zebra always, the others when their section is used."""
    lines = [ln.strip() for ln in conf.splitlines()]
    wanted = {"zebra"}
    if any(ln.startswith("router bgp ") for ln in lines):
        wanted.add("bgpd")
    if any(ln == "bfd" or " bfd" in ln for ln in lines):
        wanted.add("bfdd")
    if any(ln.startswith("ip route ") for ln in lines):
        wanted.add("staticd")
    return tuple(d for d in FRR_DAEMONS if d in wanted)
