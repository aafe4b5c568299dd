"""Which NIC may reach which, read from the rendered isolation of the leaves, for checks.

An ICMP echo (or any RoCE exchange) needs both ways: the request enters the fabric at the sender's leaf
port, the reply at the receiver's. Each must be let in by the ACL bound to that port (ACL mode, and the
free pool's ports in VRF mode) and, for a port bound to a tenant VRF (VRF mode), that VRF must hold a
route to the destination: the destination's /31 is connected in the same VRF of the same leaf, or it
is in a VRF whose community this VRF imports (structured/tenant_vrf.py). A port left in the default
VRF is reached by no tenant VRF: none imports a route without a community.
"""
import ipaddress

from ..ipam import fmt
from .change import isolation_by_leaf


class Nic:
    __slots__ = ("server", "name", "rail", "address", "leaf", "port")

    def __init__(self, server, name, rail, address, leaf, port):
        self.server, self.name, self.rail, self.address, self.leaf, self.port = server, name, rail, address, leaf, port

    def label(self):
        return "%s %s (rail %s, %s %s)" % (self.server, self.name, self.rail, self.leaf, self.port)


def rail_nics(plan):
    """{server: [Nic]} of every server's backend NICs, in rail order."""
    out = {}
    # A NIC's rail is its position among the server's backend NICs (its leaf carries no rail with
    # top_of_rack, where one leaf takes every rail).
    rail_of = {nic["name"]: rail for rail, nic in enumerate(plan.sizing.server_model.backend_nics)}
    for link in plan.links:
        if link.network == "backend" and link.tier == "server" and link.b.role == "gpu_server":
            # a multi-plane NIC's plane port (backend.planes) is on its rail's leaf of its plane
            rail = rail_of[link.b_port] if link.b_port in rail_of else link.a.rail
            out.setdefault(link.b.name, []).append(Nic(link.b.name, link.b_port, rail,
                                                       fmt(link.ipv4 + 1), link.a.name, link.a_port))
    for nics in out.values():
        nics.sort(key=lambda n: n.rail)
    return out


class Reach:
    """The isolation of ``assignment`` (None: an open fabric) as a predicate on NIC pairs."""

    def __init__(self, plan, assignment):
        self.sections = isolation_by_leaf(plan, assignment) if assignment is not None else {}
        self.bound = {}
        self.vrf = {}      # (leaf, port) -> (VRF name, community it exports and imports)
        for leaf, section in self.sections.items():
            for acl in (section or {}).get("acls", ()):
                rules = [(r["action"], None if r["destination"] == "any" else ipaddress.ip_network(r["destination"]))
                         for r in acl["rules"]]
                for port in acl["ports"]:
                    self.bound[(leaf, port)] = (acl["name"], rules)
            for vrf in (section or {}).get("vrfs", ()):
                for port in vrf["ports"]:
                    self.vrf[(leaf, port)] = (vrf["name"], vrf["community"])

    def admits(self, leaf, port, address):
        """Whether the ACL on ``leaf`` ``port`` lets in a packet to ``address`` (first match; none bound: yes)."""
        acl = self.bound.get((leaf, port))
        if acl is None:
            return True
        ip = ipaddress.ip_address(address)
        for action, net in acl[1]:
            if net is None or ip in net:
                return action == "permit"
        return True

    def acl_on(self, leaf, port):
        acl = self.bound.get((leaf, port))
        return acl[0] if acl else None

    def decided_by(self, leaf, port):
        """What keeps the port's traffic in: "ACL <name>", "VRF <name>" or "ACL none" (an open port)."""
        if (leaf, port) in self.vrf:
            return "VRF %s" % self.vrf[(leaf, port)][0]
        return "ACL %s" % (self.acl_on(leaf, port) or "none")

    def routes(self, src, dst):
        """Whether the VRF of ``src``'s leaf port has a route to ``dst`` (ports in no VRF: the default
        table, with a route to every NIC the fabric carries)."""
        here = self.vrf.get((src.leaf, src.port))
        if here is None:
            return True
        there = self.vrf.get((dst.leaf, dst.port))
        if there is None:
            return False
        return (src.leaf == dst.leaf and here[0] == there[0]) or here[1] == there[1]

    def one_way(self, src, dst):
        return self.admits(src.leaf, src.port, dst.address) and self.routes(src, dst)

    def both_ways(self, src, dst):
        # The way back on purpose: the reply must be admitted too.
        return self.one_way(src, dst) and self.one_way(dst, src)  # pylint: disable=arguments-out-of-order
