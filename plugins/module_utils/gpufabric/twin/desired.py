"""What the twin should be: namespaces, links, addresses and daemons, from the plan and the rendered build.

Each switch's NOS is stood in for by its home's twin plane (``nos.home(nos).twin_plane()``, docs/twin.md, "NOS
stand-ins"). A plane that applies its own configuration (``SELF_APPLYING``) gets cables, FRR and lldpd and does the
rest itself; for any other, the twin builds the namespace from the plane's ``layout`` of the switch's rendered
configuration (ports with their MTU, addresses and admin state, LAGs, bridges, loopback, management port, port ACLs,
tenant VRFs), so the twin runs what we render, not a second reading of the plan, and the plane's management plane
runs beside it. Servers take their NICs, routing and sysctls from the rendered servers/<host>/structured.yml, the
same data the gpu_server role installs.
"""
import ipaddress

from ..ipam import fmt
from ..nos import home
from . import nftables, vrf

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
        # namespace (its home's twin_plane()): the twin makes cables and starts FRR and lldpd, nothing more
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


def _master(port, members, masters):
    """The bridge a switch port joins. This kernel has no bonding driver, so a LAG is its first
    member port: that one joins the LAG's VLAN, the others stay up, unbridged (a LAG with one
    active member, and no L2 loop over a two-member MC-LAG peer link)."""
    for lag, ports in members.items():
        if port in ports:
            return masters.get(lag) if port == ports[0] else None
    return masters.get(port)


def _rendered(files, host, plane):
    """The text of the switch's rendered configuration file its NOS's twin plane reads."""
    path = "devices/%s/%s" % (host, plane.CONFIG_FILE)
    if path not in files:
        raise TwinError("%s: no rendered %s in the build (run playbooks/build.yml first)" % (host, path))
    return files[path]


def layout_of(dev, files):
    """(the twin plane of the switch's NOS, its layout of the switch's rendered configuration)."""
    plane = home(dev.nos).twin_plane()
    try:
        return plane, plane.layout(_rendered(files, dev.name, plane))
    except ValueError as exc:
        raise TwinError("%s: %s" % (dev.name, exc))


def _switch(twin, dev, files, cabled):
    plane, lay = layout_of(dev, files)
    ns = twin.ns(dev.name, dev.role)
    ns.sysctls = dict(SWITCH_SYSCTLS)
    ports = lay["ports"]
    for name in cabled:
        port = ports.get(name)
        if port is None:
            raise TwinError("%s: port %s is cabled in the plan but missing from its rendered %s"
                            % (dev.name, name, plane.CONFIG_FILE))
        ns.add(Iface(name, "veth", port["mtu"], port["addrs"], _master(name, lay["lags"], lay["bridge_of"]),
                     port["up"]))
    if cabled:
        # Every front-panel port, planned or not, as on a switch: a cable the plan does not have (across
        # rail planes, into a free port) shows in LLDP and so in the cabling check.
        ns.lldp_ports.append(plane.PORT_PATTERN)
    for name in sorted(lay["bridges"]):
        ns.add(Iface(name, "bridge", None, lay["bridges"][name], None, True, ("stp_state", "0")))
    ns.add(Iface("lo", "loopback", None, list(lay["loopback"]) + ["127.0.0.1/8"]))
    ns.acl_nft = nftables.ruleset(lay["acl"])
    ns.mgmt_plane = (dev.nos, dev.model.name, lay["native"])
    return ns, lay


def _self_applying(twin, dev, files, cabled):
    """A switch whose NOS applies its configuration into the namespace itself (its home's twin plane, e.g. a
    stand-in of the NOS's configuration API): the twin makes the cabled ports (down, no address: the NOS decides), starts FRR with
    no routing configuration and lldpd; the management address is the rendered one, as DHCP/ZTP hands it."""
    plane = home(dev.nos).twin_plane()
    path = "devices/%s/%s" % (dev.name, plane.CONFIG_FILE)
    if path not in files:
        raise TwinError("%s: no rendered %s in the build (run playbooks/build.yml first)" % (dev.name, path))
    ns = twin.ns(dev.name, dev.role)
    ns.sysctls = dict(SWITCH_SYSCTLS)
    for name in cabled:
        ns.add(Iface(name, "veth", None, None, None, False))
    if cabled:
        ns.lldp_ports.append(plane.PORT_PATTERN)
    ns.add(Iface("lo", "loopback", None, None))
    ns.frr_daemons = FRR_DAEMONS
    ns.frr_conf = plane.empty_frr_conf(dev.name)
    release, mgmt = plane.boot_facts(files[path])
    ns.nos_plane = (dev.nos, release, files[path])
    return ns, mgmt


def switch_namespaces(twin, dev, files, cabled):
    """A switch's namespace, with its FRR, and the namespaces of its tenant VRFs (twin/vrf.py);
    returns (the switch's namespace, its rendered management addresses)."""
    if dev.nos and getattr(home(dev.nos).twin_plane(), "SELF_APPLYING", False):
        return _self_applying(twin, dev, files, cabled)
    ns, lay = _switch(twin, dev, files, cabled)
    conf = files.get("devices/%s/frr.conf" % dev.name)
    if conf is None:
        raise TwinError("%s: no rendered devices/%s/frr.conf in the build" % (dev.name, dev.name))
    # What the switch's /etc/frr/frr.conf holds; FRR runs it, or its translation when the switch has tenant VRFs.
    ns.frr_file = ns.frr_conf = conf
    try:
        vrfs = vrf.add_vrfs(twin, ns, lay["vrfs"], Iface)
    except ValueError as exc:
        raise TwinError(str(exc))
    for each in [ns] + vrfs:
        each.frr_daemons = frr_daemons(each.frr_conf) if each.frr_conf else ()
    return ns, lay["mgmt"]


def cabled_ports(plan, host):
    """The backend and frontend ports of ``host`` that the plan cables."""
    return [link.a_port if link.a.name == host else link.b_port for link in plan.device(host).links
            if link.network in ("backend", "frontend")]


def _server_structured(files, host):
    import yaml  # here, not at the top: Ansible's import sanity test loads module_utils without PyYAML

    path = "servers/%s/structured.yml" % host
    if path not in files:
        raise TwinError("%s: no rendered %s in the build (run playbooks/build.yml first)" % (host, path))
    return yaml.safe_load(files[path])


def _server(twin, dev, files):
    """A server as its rendered structured.yml says: rail NICs with their /31s, tables, rules and sysctls."""
    cfg = _server_structured(files, dev.name)
    ns = twin.ns(dev.name, dev.role)
    ns.sysctls = {key: str(value) for key, value in cfg["sysctls"].items()}
    for nic in cfg["nics"]:
        ns.add(Iface(nic["name"], "veth", nic["mtu"], [nic["cidr"]]))
        ns.lldp_ports.append(nic["name"])
    for table in cfg["routing"]["tables"]:
        for route in table["routes"]:
            ns.routes.append((table["table"], route["destination"], route["gateway"], route["dev"], route["source"]))
    for rule in cfg["routing"]["rules"]:
        ns.rules.append((rule["priority"], rule["from"].split("/")[0], rule["table"]))
    bond = cfg["frontend"]
    for port in bond["members"] if bond else ():
        # This kernel has no bonding driver: the bond is active-backup done by the kernel's routing. Every member holds
        # the bond's address and its MAC (as a bond's members send with the bond's MAC), each gets a connected route,
        # and a member without carrier has its routes ignored (ignore_routes_with_linkdown), so traffic leaves through
        # the first member whose link is up, and a leaf going down moves it to the other one, with the neighbour
        # entries elsewhere still right (docs/twin.md).
        ns.add(Iface(port, "veth", bond["mtu"], [bond["address"]], mac=bond_mac(dev.name)))
        ns.lldp_ports.append(port)
        ns.sysctls["net.ipv4.conf.%s.ignore_routes_with_linkdown" % port] = "1"
    if bond:
        ns.sysctls["net.ipv4.conf.all.ignore_routes_with_linkdown"] = "1"
    ns.add(Iface("lo", "loopback", None, ["127.0.0.1/8"]))
    return ns


def bond_mac(host):
    """The MAC of a server's frontend bond on the twin: locally administered, from the server's name."""
    import hashlib

    digest = hashlib.sha256(host.encode()).digest()
    return "02:" + ":".join("%02x" % b for b in digest[:5])


def build_twin(plan, files):
    """The desired Twin of ``plan``, whose switches run the rendered ``files`` ({relative path: text},
    as gpufabric.build.render_all returns or as read back from build/<cluster>/)."""
    twin = Twin(plan.summary["cluster"])
    cabled = {}
    for link in plan.links:
        if link.network in ("backend", "frontend"):
            cabled.setdefault(link.a.name, []).append(link.a_port)
            cabled.setdefault(link.b.name, []).append(link.b_port)
            twin.veths.append((link.a.name, link.a_port, link.b.name, link.b_port))
    oob = twin.ns(twin.oob_ns, "oob")
    oob_addrs = []
    prefix = str(plan.spec["oob"]["pool"]).split("/")[1]
    pool_base = int(ipaddress.ip_network(plan.spec["oob"]["pool"]).network_address)
    for dev in plan.devices:
        if dev.role == "oob_switch":
            # The OOB switch is the bridge every management port joins, with the switch's own VLAN addresses.
            plane = home(dev.nos).twin_plane()
            if getattr(plane, "SELF_APPLYING", False):
                raise TwinError("%s: the twin stands in for the OOB switch with a bridge built from its rendered "
                                "configuration, which nos: %s does not give it (docs/twin.md)" % (dev.name, dev.nos))
            lay = layout_of(dev, files)[1]
            for found in lay["bridges"].values():
                oob_addrs.extend(found)
            # Its management plane runs beside the bridge, outside any namespace (no dataplane of its own).
            twin.device_planes[dev.name] = (dev.nos, dev.model.name, lay["native"])
            continue
        if dev.role == "gpu_server":
            ns = _server(twin, dev, files)
            mgmt = {}
        else:
            ns, mgmt = switch_namespaces(twin, dev, files, cabled.get(dev.name, ()))
        port, addr = _mgmt_port(dev, mgmt, prefix)
        if port:
            # Named by the device's management address, a position: growth adds bridge ports and renames none.
            bridge_side = "m%d" % (dev.mgmt - pool_base)
            ns.add(Iface(port, "veth", 1500, [addr] if addr else ()))
            oob.add(Iface(bridge_side, "veth", 1500, (), OOB_BRIDGE))
            twin.veths.append((dev.name, port, oob.name, bridge_side))
    oob.add(Iface(OOB_BRIDGE, "bridge", 1500, oob_addrs, None, True, ("stp_state", "0")))
    return twin


def _mgmt_port(dev, rendered, prefix):
    """The device's management port and address: the rendered one (the layout's ``mgmt``) for switches, the host
    management NIC (not the BMC, which is another computer) with the plan's address for servers."""
    if rendered:
        name = sorted(rendered)[0]
        return name, rendered[name][0]
    if dev.mgmt is None:
        return None, None
    for link in dev.links:
        if link.network == "oob":
            port = link.b_port if link.b is dev else link.a_port
            if port != "idrac":
                return port, "%s/%s" % (fmt(dev.mgmt), prefix)
    return None, None
