# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the gpu_server role: the plan's host data (``fabric``) to structured server config."""
from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import nccl, network


def _rdma_from_catalog(model):
    from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.catalog import Catalog
    try:
        return [n["rdma"] for n in Catalog().server(model, "fabric.model").backend_nics]
    except SpecError:
        return []


def gpu_server_network(fabric, mgmt_address=None, mgmt_prefix=None, mgmt_gateway=None, table_base=101,
                       rule_priority_base=1001, backend_mtu=None, bond_name="bond0", bond_mode="802.3ad",
                       rdma_devices=None):
    """Structured network config (backend NICs with table/rule, frontend bond, management, sysctls)."""
    try:
        cfg = network.config(fabric, mgmt_address, mgmt_prefix, mgmt_gateway, table_base, rule_priority_base,
                             backend_mtu, bond_name, bond_mode)
    except SpecError as exc:
        raise AnsibleFilterError(str(exc))
    rdma = list(rdma_devices or []) or _rdma_from_catalog(fabric.get("model"))
    for nic in cfg["backend"]:
        if not nic.get("rdma") and nic["rail"] < len(rdma):
            nic["rdma"] = rdma[nic["rail"]]
    return cfg


def gpu_server_nccl_env(backend_nics, socket_ifname, traffic_class=106, gid_index=3, extra=None):
    """{NCCL_*: value} from the rail NICs (in rail order) and the frontend interface."""
    try:
        return nccl.environment(backend_nics, socket_ifname, traffic_class, gid_index, extra)
    except SpecError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule:
    def filters(self):
        return {"gpu_server_network": gpu_server_network, "gpu_server_nccl_env": gpu_server_nccl_env}
