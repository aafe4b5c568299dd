"""What the plan says each device should show: cabled ports, BGP sessions, ECMP, addresses, QoS.

Everything here is derived from the plan and from each device's structured config (the contract of
structured/switch.py and structured/server.py, which every renderer reads too): a port's MTU and a device's
QoS are what its structured config declares, never worked out from the spec a second time; checks compare
collected state with it, never with a second hand-written expectation.
"""
from ..ipam import cidr
from ..plan.model import ROUTED_TIERS
from ..plan.planes import port_names
from ..roles import SERVER_LIKE_ROLES
from ..spec import port_mtu
from ..structured import structured_configs
from ..structured.server import server_configs
from ..structured.tenant_vrf import announces_host_routes
from ..tenant_assignment import attached
from ..tenants.reach import Reach, rail_nics


# Up to this many servers every pair of NICs is probed; above it a sample that covers every path.
REACH_ALL_PAIRS_UP_TO = 64


class Port:
    """One end of a planned cable, as its device sees it."""
    __slots__ = ("device", "name", "peer", "peer_port", "link", "mtu", "ipv4", "rail", "plane")

    def __init__(self, end, mtu, rail, plane=None):
        self.device = end.device.name
        self.name = end.port
        self.peer = end.peer.name
        self.peer_port = end.peer_port
        self.link = end.link
        self.mtu = mtu
        self.ipv4 = end.ipv4  # "a.b.c.d/31" or None
        self.rail = rail      # the rail of a server NIC, else None
        self.plane = plane    # multi-plane NICs: the 0-based plane of a server NIC port, else None

    def label(self):
        return "%s %s%s" % (self.device, self.name, " (%s)" % rail_text(self.rail, self.plane)
                            if self.rail is not None else "")


def rail_text(rail, plane):
    """"rail 3", or "rail 3 plane 2" for a port of a multi-plane NIC."""
    return "rail %d" % rail if plane is None else "rail %d plane %d" % (rail, plane + 1)


def declared_mtus(switch_cfgs, server_cfgs):
    """{device: {port: MTU}} as the structured configs declare them: a switch's ports, a server's rail NICs,
    its frontend bond's members and its management port."""
    out = {}
    for host, cfg in switch_cfgs.items():
        out[host] = {i["name"]: i["mtu"] for i in cfg["ethernet_interfaces"]}
    for host, cfg in server_cfgs.items():
        mtus = out.setdefault(host, {})
        mtus.update((nic["name"], nic["mtu"]) for nic in cfg["nics"])
        if cfg["frontend"]:
            mtus.update((member, cfg["frontend"]["mtu"]) for member in cfg["frontend"].get("members") or ())
            mtus.setdefault(cfg["frontend"]["name"], cfg["frontend"]["mtu"])
        if cfg["management"]:
            mtus[cfg["management"]["name"]] = cfg["management"]["mtu"]
    return out


def switch_qos(cfg):
    """The RoCE treatment a switch's structured config gives its QoS ports: {"trust", "pfc", "ecn", "dscp_to_tc"};
    None for a switch without QoS (frontend, OOB)."""
    qos = cfg.get("qos")
    if not qos:
        return None
    return {"trust": qos["trust"], "pfc": sorted(qos["pfc_priorities"]), "ecn": sorted(qos["ecn_queues"]),
            "dscp_to_tc": {int(k): int(v) for k, v in qos["dscp_to_traffic_class"].items()}}


def nic_qos(cfg):
    """The RoCE treatment a server's structured config gives its NICs: {"trust", "pfc", "ecn"}."""
    roce = cfg["roce"]
    return {"trust": roce["trust"], "pfc": sorted(roce["pfc_priorities"]), "ecn": sorted(roce["ecn_priorities"])}


def _nic_rails(dev, planes=1):
    """{port: (rail, plane)} of a server's backend NIC ports (plane None on a one-port NIC)."""
    nics = getattr(dev.model, "backend_nics", None) or []
    if planes == 1:
        return {nic["name"]: (i, None) for i, nic in enumerate(nics)}
    return {name: (i, p) for i, nic in enumerate(nics) for p, (name, _rdma) in enumerate(port_names(nic, i, planes))}


class Expectation:
    """The plan, indexed for the checks. ``networks`` limits what is validated (backend by default)."""

    def __init__(self, plan, networks=("backend",), devices=None):
        self.plan = plan
        self.networks = tuple(networks)
        self.design = plan.spec["backend"]["design"]
        self.planes = plan.sizing.nic_planes
        # A failed server (maintenance.replaced) is out of service: its leaf ports are shut, nothing is expected of it.
        failed = set(plan.replaced)
        self.links = [link for link in plan.links if link.network in self.networks
                      and link.a.name not in failed and link.b.name not in failed]
        wanted = set(devices) if devices else None
        names = {d.name for link in self.links for d in (link.a, link.b)}
        self.devices = [d for d in plan.devices if d.name in names and (wanted is None or d.name in wanted)]
        self.by_name = {d.name: d for d in self.devices}
        self.ports = {d.name: {} for d in self.devices}   # device -> port -> Port
        self.all_ports = set()                              # (device, port) planned in any network
        for link in plan.links:
            self.all_ports.add((link.a.name, link.a_port))
            self.all_ports.add((link.b.name, link.b_port))
        selected = [d.name for d in self.devices]
        self.switch_cfgs = structured_configs(plan, selected)
        self.server_cfgs = {}
        if any(d.role == "gpu_server" for d in self.devices):
            self.server_cfgs = {host: cfg for host, cfg in server_configs(plan).items() if host in self.by_name}
        mtus = declared_mtus(self.switch_cfgs, self.server_cfgs)
        nic_rails = {}

        def rails(dev):   # one map per server model, not per port
            key = dev.model.name if dev.role in SERVER_LIKE_ROLES else None
            if key not in nic_rails:
                nic_rails[key] = _nic_rails(dev, self.planes) if key else {}
            return nic_rails[key]

        for link in self.links:
            for end in (link.end(link.a), link.end(link.b)):
                dev = end.device
                if dev.name in self.ports:
                    mtu = mtus.get(dev.name, {}).get(end.port)
                    if mtu is None:
                        # A port no structured config declares (a switch's management port, a non-GPU host):
                        # its MTU is the spec's for that network, which the NOS or host default must match.
                        mtu = port_mtu(plan.spec, link.network, dev.role in SERVER_LIKE_ROLES)
                    rail, plane = rails(dev).get(end.port, (None, None))
                    self.ports[dev.name][end.port] = Port(end, mtu, rail, plane)

    def port(self, device, name):
        return self.ports.get(device, {}).get(name)

    def bgp_neighbors(self, device):
        """{peer ip: {"peer", "peer_port", "port", "remote_as", "local_ip"}} of the routed links of ``device``."""
        return {end.peer_ipv4: {"peer": end.peer.name, "peer_port": end.peer_port, "port": end.port,
                                "remote_as": end.peer.asn, "local_ip": end.ipv4.split("/")[0]}
                for end in self.by_name[device].bgp_ends() if end.link.network in self.networks}

    def uplinks(self, device):
        """[Port] of ``device`` towards the tier above (where it is end ``b`` of a routed link)."""
        dev = self.by_name[device]
        return [self.ports[device][link.b_port] for link in dev.links
                if link.tier in ROUTED_TIERS and link.b is dev and link.b_port in self.ports[device]]

    def leaf_summaries(self):
        """{leaf name: summary prefix} of every backend leaf with a server block."""
        return {d.name: cidr(*d.server_block) for d in self.plan.devices
                if d.role == "backend_leaf" and d.server_block}

    def host_routes_announced(self):
        """Whether leaves announce their server /31s beside the summary (tenant VRF mode)."""
        return announces_host_routes(self.plan)

    def reachable(self, leaf, other):
        """Whether the plan gives ``leaf`` a path to ``other``: in rail planes only within the rail, with
        multi-plane NICs only within the plane."""
        if self.planes > 1:
            return self.plan.device(leaf).fabric_plane == self.plan.device(other).fabric_plane
        if self.design != "rail_planes":
            return True
        return self.plan.device(leaf).rail == self.plan.device(other).rail

    def qos(self, device):
        """The RoCE treatment ``device``'s structured config declares: a switch's QoS ports {"trust", "pfc",
        "ecn", "dscp_to_tc"}, a GPU server's NICs {"trust", "pfc", "ecn"}; None when it declares none."""
        if device in self.switch_cfgs:
            return switch_qos(self.switch_cfgs[device])
        if device in self.server_cfgs:
            return nic_qos(self.server_cfgs[device])
        return None

    def _tenant_reach(self):
        """(Reach, {(server, address): Nic}) of the running tenant assignment, or None without one."""
        if not hasattr(self, "_reach"):
            assignment = attached(self.plan)
            self._reach = None if assignment is None else (Reach(self.plan, assignment), {
                (n.server, n.address): n for nics in rail_nics(self.plan).values() for n in nics})
        return self._reach

    def reach_probes(self, device):
        """[(source address, destination address, should reach, label)] from a server's rail NICs: the
        same rail of every other server (unless the tenant isolation keeps them apart); with rail planes
        every other rail too, which must not answer. Above REACH_ALL_PAIRS_UP_TO servers the pairs are
        sampled so that every path the plan has is still probed (see _sampled_peers)."""
        isolated = self.design == "rail_planes"
        tenants = self._tenant_reach()
        out = []
        for nic in self.server_nics(device):
            src = nic.ipv4.split("/")[0]
            for other, far in self._peers(device, nic, isolated):
                dst = far.ipv4.split("/")[0]
                wanted = far.rail == nic.rail and far.plane == nic.plane and (tenants is None or tenants[0].both_ways(
                    tenants[1][(device, src)], tenants[1][(other, dst)]))
                out.append((src, dst, wanted, "%s %s -> %s %s" % (device, rail_text(nic.rail, nic.plane), other,
                                                                  rail_text(far.rail, far.plane))))
        return out

    def mtu_probes(self, device):
        """[(source address, destination address, packet size, label)]: from each rail NIC of a server, one
        echo of the NIC's planned MTU with Don't Fragment set, to a NIC its reach probes expect to answer, under
        another leaf when there is one (so it crosses the leaf's uplinks and a spine), else under the same leaf."""
        tenants = self._tenant_reach()
        out = []
        for nic in self.server_nics(device):
            src = nic.ipv4.split("/")[0]
            peers = [(other, far) for other, far in self._peers(device, nic, False)
                     if far.rail == nic.rail and far.plane == nic.plane and (
                tenants is None or tenants[0].both_ways(tenants[1][(device, src)],
                                                        tenants[1][(other, far.ipv4.split("/")[0])]))]
            if not peers or not nic.mtu:
                continue
            other, far = next(((o, f) for o, f in peers if f.peer != nic.peer), peers[0])
            out.append((src, far.ipv4.split("/")[0], nic.mtu, "%s %s -> %s %s, %d bytes, DF" % (
                device, rail_text(nic.rail, nic.plane), other, rail_text(far.rail, far.plane), nic.mtu)))
        return out

    def _peers(self, device, nic, isolated):
        """[(server, Port)] that ``nic`` probes: every other server's NIC on its rail (every rail with rail
        planes), or a sample of them on a large fabric."""
        by_leaf = self._nics_by_rail_and_leaf()
        if self._servers > REACH_ALL_PAIRS_UP_TO:
            return self._sampled_peers(device, nic, isolated, by_leaf)
        return [(other.name, far) for other in self.devices if other.role == "gpu_server" and other.name != device
                for far in self.server_nics(other.name) if far.rail == nic.rail or isolated]

    @staticmethod
    def _sampled_peers(device, nic, isolated, by_leaf):
        """The sample of a large fabric, linear in its size instead of quadratic: every other NIC under
        the same leaf (tenants sharing a leaf are all checked), and under each other leaf of the rail the
        NIC at this NIC's own position (modulo that leaf's count), so every leaf pair and every
        destination port is probed; with rail planes one NIC of each other rail, which must not answer."""
        mine = by_leaf[nic.rail][nic.peer]
        index = next(i for i, p in enumerate(mine) if p.device == device)
        out = [(far.device, far) for far in mine if far.device != device]
        for leaf in sorted(by_leaf[nic.rail]):
            if leaf != nic.peer:
                nics = by_leaf[nic.rail][leaf]
                out.append((nics[index % len(nics)].device, nics[index % len(nics)]))
        if isolated:
            for rail in sorted(by_leaf):
                if rail != nic.rail:
                    leaves = sorted(by_leaf[rail])
                    nics = by_leaf[rail][leaves[index % len(leaves)]]
                    out.append((nics[index % len(nics)].device, nics[index % len(nics)]))
        return out

    def _nics_by_rail_and_leaf(self):
        """{rail: {leaf: [Port of server NICs under it, in server order]}}, computed once."""
        if not hasattr(self, "_by_rail_leaf"):
            by_leaf = {}
            servers = [d.name for d in self.devices if d.role == "gpu_server"]
            for server in servers:
                for port in self.server_nics(server):
                    by_leaf.setdefault(port.rail, {}).setdefault(port.peer, []).append(port)
            self._by_rail_leaf, self._servers = by_leaf, len(servers)
        return self._by_rail_leaf

    def server_nics(self, device):
        """[Port] of a server's backend NICs in rail order."""
        return sorted((p for p in self.ports.get(device, {}).values() if p.rail is not None),
                      key=lambda p: (p.rail, p.plane or 0))
