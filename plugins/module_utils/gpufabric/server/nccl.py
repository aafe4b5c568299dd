"""The NCCL / RDMA environment of a GPU server, from the plan: the rail HCAs, the RoCE traffic class, and
whether rings may cross rails.

NCCL pairs each GPU with the HCA nearest to it on the PCI tree (its topology detection), not by the order
of NCCL_IB_HCA: the list only says which HCAs NCCL may use. Preflight checks that each rail NIC sits on its
GPU's PCIe switch (server/topology.py), which is what makes that pairing land on the right rail.
"""
from ..errors import SpecError

# Designs with no path between rails: a ring or tree edge from rail i's NIC to rail j's NIC cannot be carried.
ISOLATED_RAIL_DESIGNS = ("rail_planes", "rail_only")


def environment(backend_nics, socket_ifname, traffic_class, design, gid_index=3, planes=1):
    """{NCCL_*: value}. ``backend_nics`` are the rail NICs, each with ``rdma`` (mlx5_N); ``planes``: the NIC
    ports a GPU has, one in each plane (backend.planes)."""
    missing = [n["name"] for n in backend_nics if not n.get("rdma")]
    if missing:
        raise SpecError("servers.model", "no RDMA device name for %s in the server model's backend_nics"
                        % ", ".join(missing))
    # A leading "=" makes NCCL match names exactly (mlx5_1 must not also pick mlx5_10).
    env = {"NCCL_IB_HCA": "=" + ",".join(n["rdma"] for n in backend_nics),
           "NCCL_IB_TC": str(traffic_class), "NCCL_IB_GID_INDEX": str(gid_index),
           "NCCL_SOCKET_IFNAME": socket_ifname}
    if planes > 1:
        # Multi-plane NICs: the P ports of one NIC (PCI functions of one card) merged into one virtual NCCL device
        # per GPU, NCCL's default (NCCL 2.23's environment-variable reference), stated so that a container or site
        # setting of 0 cannot split them. NCCL spreads a connection's queue pairs over the ports in port order on
        # both sides, and port i is plane i on every server (plan/planes.py): traffic stays inside its plane
        # (docs/topology.md, "Multi-plane fabrics", for the choice against one device a port).
        env["NCCL_IB_MERGE_NICS"] = "1"
    if design in ISOLATED_RAIL_DESIGNS:
        # NCCL's default lets a ring leave on one rail and arrive on another; here that packet has no route.
        env["NCCL_CROSS_NIC"] = "0"
    return env


def render(env):
    """KEY=VALUE lines: /etc/nccl.conf syntax, also usable as a systemd EnvironmentFile."""
    return "".join("%s=%s\n" % (k, v) for k, v in sorted(env.items()))
