"""Structured config of a GPU server: rail NICs, policy routing, sysctls, frontend bond, management port,
RoCE settings of the NICs and the NCCL environment; plain data that render/linux_host*.py turns into files.

Routing comes from server/network.py (its one home), RoCE from the fabric's resolved QoS profile (the one the
switches use), NCCL from both. SCHEMA declares the layout; ``schema_errors`` checks a config against it.
"""
from ..export import hostvars
from ..server import nccl, network
from .context import FabricContext
from .server_roce import roce_settings

BOND_NAME = "bond0"
BOND_MODE = "802.3ad"
TABLE_BASE = 101           # rail NIC i routes through table 101 + i ...
RULE_PRIORITY_BASE = 1001  # ... selected by `ip rule` priority 1001 + i

NIC = {"name": str, "rail": int, "address": str, "prefix": int, "cidr": str, "network": str, "gateway": str,
       "table": int, "priority": int, "mtu": int, "peer": str, "peer_interface": str, "rdma": str}
ROUTE = {"destination": str, "gateway": (str, type(None)), "dev": str, "source": (str, type(None)), "scope": str}
SCHEMA = {
    "hostname": str, "role": str, "model": str, "rack": str, "design": str,
    "nics": [NIC],
    "frontend": (dict, type(None)),
    "management": (dict, type(None)),
    "routing": {"tables": [{"table": int, "routes": [ROUTE]}], "rules": [{"priority": int, "from": str, "table": int}]},
    "sysctls": dict,
    "roce": {"profile": str, "trust": str, "dscp": int, "lossless_priority": int, "pfc_priorities": [int],
             "ecn_priorities": [int], "cnp_dscp": int, "cnp_priority": int, "traffic_class": int, "roce_mode": str,
             "dscp_to_priority": dict, "mlxconfig": dict},
    "nccl": {"env": dict},
}


def schema_errors(value, schema=None, path="server"):
    """Every place where ``value`` departs from ``schema`` (SCHEMA by default), as "path: problem" lines."""
    schema = SCHEMA if schema is None else schema
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return ["%s: a mapping expected, got %r" % (path, value)]
        errors = ["%s: unknown key %r" % (path, k) for k in value if k not in schema]
        for key, sub in schema.items():
            if key not in value:
                errors.append("%s.%s: missing" % (path, key))
            else:
                errors += schema_errors(value[key], sub, "%s.%s" % (path, key))
        return errors
    if isinstance(schema, list):
        if not isinstance(value, list):
            return ["%s: a list expected, got %r" % (path, value)]
        return [e for i, item in enumerate(value) for e in schema_errors(item, schema[0], "%s[%d]" % (path, i))]
    types = schema if isinstance(schema, tuple) else (schema,)
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        return ["%s: %r is not %s" % (path, value, " or ".join(t.__name__ for t in types))]
    return []


def server_config(fabric, ctx, hostname, roce=None):
    """The structured config of one server from its plan data (``fabric``, export.hostvars)."""
    address, prefix = fabric["mgmt_ipv4"].split("/")
    net = network.config(fabric, address, prefix, fabric.get("mgmt_gateway"), TABLE_BASE, RULE_PRIORITY_BASE,
                         bond_name=BOND_NAME, bond_mode=BOND_MODE)
    roce = roce or nic_roce(ctx, fabric["model"])
    design = ctx.plan.spec["backend"]["design"]
    socket_ifname = (net["frontend"] or net["management"] or {"name": "lo"})["name"]
    return {"hostname": hostname, "role": fabric["role"], "model": fabric["model"], "rack": fabric["rack"],
            "design": design, "nics": net["backend"], "frontend": net["frontend"], "management": net["management"],
            "routing": net["routing"], "sysctls": net["sysctls"], "roce": roce,
            "nccl": {"env": nccl.environment(net["backend"], socket_ifname, roce["traffic_class"], design,
                                             planes=ctx.plan.sizing.nic_planes)}}


def server_configs(plan):
    """{hostname: structured config} of every GPU server, in plan order."""
    return {host: cfg for batch in server_config_batches(plan, None) for host, cfg in batch.items()}


def server_config_batches(plan, size, wanted=None):
    """{hostname: structured config} of the GPU servers (those in ``wanted``, a set, if given), in plan order,
    ``size`` servers at a time (all at once for None): the build renders and writes one batch before it
    makes the next."""
    ctx = FabricContext(plan)
    roce = {}  # one per server model: its NIC model adds its own firmware parameters
    batch = {}
    for host, hv in hostvars(plan, wanted).items():
        if hv["fabric"]["role"] != "gpu_server":
            continue
        model = hv["fabric"]["model"]
        if model not in roce:
            roce[model] = nic_roce(ctx, model)
        batch[host] = server_config(hv["fabric"], ctx, host, roce[model])
        if size and len(batch) >= size:
            yield batch
            batch = {}
    if batch:
        yield batch


def nic_roce(ctx, server_model):
    """The RoCE settings of the rail NICs of ``server_model``: the fabric's QoS profile (the switches' own)
    and the facts of the model's backend NIC (ConnectX-7, BlueField-3 SuperNIC)."""
    model = ctx.plan.catalog.server(server_model, "servers.model")
    return roce_settings(ctx.qos, model.backend_nic)
