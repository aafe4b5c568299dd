"""The NCCL / RDMA environment of a GPU server, from the plan: HCAs in rail order, RoCE v2 traffic class."""
from ..errors import SpecError


def environment(backend_nics, socket_ifname, traffic_class=106, gid_index=3, extra=None):
    """{NCCL_*: value}. ``backend_nics`` in rail order, each with ``rdma`` (mlx5_N); NCCL walks NCCL_IB_HCA in
    order, so rail i's GPU uses rail i's HCA only if the list keeps rail order."""
    missing = [n["name"] for n in backend_nics if not n.get("rdma")]
    if missing:
        raise SpecError("gpu_server_rdma_devices", "no RDMA device name for %s: list one per rail NIC in rail order"
                        % ", ".join(missing))
    # A leading "=" makes NCCL match names exactly (mlx5_1 must not also pick mlx5_10).
    env = {"NCCL_IB_HCA": "=" + ",".join(n["rdma"] for n in backend_nics),
           "NCCL_IB_TC": str(traffic_class), "NCCL_IB_GID_INDEX": str(gid_index),
           "NCCL_SOCKET_IFNAME": socket_ifname}
    for key, value in (extra or {}).items():
        env[key] = str(value)
    return env


def render(env):
    """KEY=VALUE lines: /etc/nccl.conf syntax, also usable as a systemd EnvironmentFile."""
    return "".join("%s=%s\n" % (k, v) for k, v in env.items())
