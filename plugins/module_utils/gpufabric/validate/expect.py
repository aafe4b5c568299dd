"""What the plan says each device should show: cabled ports, BGP sessions, ECMP, addresses, QoS.

Everything here is derived from the plan (and the QoS profile the build renders from); checks compare
collected state with it, never with a second hand-written expectation.
"""
from ..export import _mtus
from ..ipam import cidr, fmt

ROUTED_TIERS = ("leaf-spine", "spine-superspine")
SWITCH_ROLES = ("backend_leaf", "backend_spine", "backend_superspine", "frontend_leaf", "frontend_spine",
                "frontend_superspine", "oob_switch")


class Port:
    """One end of a planned cable, as its device sees it."""
    __slots__ = ("device", "name", "peer", "peer_port", "link", "mtu", "ipv4", "rail")

    def __init__(self, device, name, peer, peer_port, link, mtu, ipv4, rail):
        self.device = device
        self.name = name
        self.peer = peer
        self.peer_port = peer_port
        self.link = link
        self.mtu = mtu
        self.ipv4 = ipv4     # "a.b.c.d/31" or None
        self.rail = rail     # the rail of a server NIC, else None

    def label(self):
        return "%s %s%s" % (self.device, self.name, " (rail %d)" % self.rail if self.rail is not None else "")


def _nic_rails(dev):
    return {nic["name"]: i for i, nic in enumerate(getattr(dev.model, "backend_nics", None) or [])}


class Expectation:
    """The plan, indexed for the checks. ``networks`` limits what is validated (backend by default)."""

    def __init__(self, plan, networks=("backend",), devices=None):
        self.plan = plan
        self.networks = tuple(networks)
        self.design = plan.spec["backend"]["design"]
        mtus = _mtus(plan.spec)
        self.links = [link for link in plan.links if link.network in self.networks]
        wanted = set(devices) if devices else None
        names = {d.name for link in self.links for d in (link.a, link.b)}
        self.devices = [d for d in plan.devices if d.name in names and (wanted is None or d.name in wanted)]
        self.by_name = {d.name: d for d in self.devices}
        self.ports = {d.name: {} for d in self.devices}   # device -> port -> Port
        self.all_ports = set()                              # (device, port) planned in any network
        for link in plan.links:
            self.all_ports.add((link.a.name, link.a_port))
            self.all_ports.add((link.b.name, link.b_port))
        for link in self.links:
            for dev, port, peer, peer_port, offset in ((link.a, link.a_port, link.b, link.b_port, 0),
                                                       (link.b, link.b_port, link.a, link.a_port, 1)):
                if dev.name not in self.ports:
                    continue
                kind = "gpu_server" if dev.role == "gpu_server" else "switch"
                ipv4 = cidr(link.ipv4 + offset, 31) if link.ipv4 is not None else None
                self.ports[dev.name][port] = Port(dev.name, port, peer.name, peer_port, link,
                                                  mtus.get((kind, link.network)) or 1500, ipv4,
                                                  _nic_rails(dev).get(port))

    def port(self, device, name):
        return self.ports.get(device, {}).get(name)

    def bgp_neighbors(self, device):
        """{peer ip: {"peer", "peer_port", "port", "remote_as", "local_ip"}} of the routed links of ``device``."""
        dev = self.by_name[device]
        out = {}
        for link in dev.links:
            if link.tier not in ROUTED_TIERS or link.ipv4 is None or link.network not in self.networks:
                continue
            mine = link.a is dev
            peer = link.b if mine else link.a
            out[fmt(link.ipv4 + (1 if mine else 0))] = {
                "peer": peer.name, "peer_port": link.b_port if mine else link.a_port,
                "port": link.a_port if mine else link.b_port, "remote_as": peer.asn,
                "local_ip": fmt(link.ipv4 + (0 if mine else 1))}
        return out

    def uplinks(self, device):
        """[Port] of ``device`` towards the tier above (where it is end ``b`` of a routed link)."""
        dev = self.by_name[device]
        return [self.ports[device][link.b_port] for link in dev.links
                if link.tier in ROUTED_TIERS and link.b is dev and link.b_port in self.ports[device]]

    def leaf_summaries(self):
        """{leaf name: summary prefix} of every backend leaf with a server block."""
        return {d.name: cidr(*d.server_block) for d in self.plan.devices
                if d.role == "backend_leaf" and d.server_block}

    def reachable(self, leaf, other):
        """Whether the plan gives ``leaf`` a path to ``other``: in rail planes only within the rail."""
        if self.design != "rail_planes":
            return True
        return self.plan.device(leaf).rail == self.plan.device(other).rail

    def qos(self):
        """The planned RoCE treatment of every backend port: {"trust", "pfc", "ecn", "dscp_to_tc"}."""
        from ..structured.context import FabricContext
        profile = FabricContext(self.plan).qos
        return {"trust": profile["trust"], "pfc": sorted(profile["pfc_priorities"]),
                "ecn": sorted(profile["ecn_queues"]),
                "dscp_to_tc": {int(k): int(v) for k, v in profile["dscp_to_traffic_class"].items()}}

    def server_nics(self, device):
        """[Port] of a server's backend NICs in rail order."""
        return sorted((p for p in self.ports.get(device, {}).values() if p.rail is not None), key=lambda p: p.rail)
