# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: roce_ecn
short_description: ECN (DCQCN) per priority, CNP DSCP, RoCE ToS and RoCE mode of a ConnectX port through sysfs
version_added: 0.2.0
description:
  - Writes, when they differ, C(/sys/class/net/IF/ecn/roce_np/enable/P) and C(roce_rp/enable/P) (1 for each
    priority in I(ecn_priorities)), C(roce_np/cnp_dscp), C(/sys/class/infiniband/DEV/tc/1/traffic_class) and the
    rdma_cm configfs entries C(default_roce_tos) and C(default_roce_mode) that C(cma_roce_tos) and
    C(cma_roce_mode) write (the rdma_cm directory of the device is created when missing, as those tools do).
  - Values are not persistent across reboots; the role runs this at every stand-up.
  - I(sysfs_root) (or the C(GPUFABRIC_SYSFS_ROOT) environment variable) moves every path under another root, for tests.
options:
  interface:
    description: Network interface of the port.
    type: str
    required: true
  rdma_device:
    description: RDMA device of the same port (C(mlx5_0)).
    type: str
    required: true
  ecn_priorities:
    description: Priorities with ECN on, both as notification point (np) and reaction point (rp).
    type: list
    elements: int
    default: [3]
  cnp_dscp:
    description: DSCP of the congestion notification packets this port sends.
    type: int
    default: 48
  cnp_priority:
    description: 802.1p priority of the CNPs this port sends (C(roce_np/cnp_802p_prio)); left alone when not given.
    type: int
  roce_tos:
    description: ToS byte of RoCE traffic (106 = DSCP 26 with ECT(0)).
    type: int
    default: 106
  roce_mode:
    description: Default RoCE mode of rdma_cm connections.
    type: str
    default: RoCE v2
  sysfs_root:
    description: Root under which C(sys/...) is found. Default C(/), or C(GPUFABRIC_SYSFS_ROOT) when set.
    type: path
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: DCQCN on priority 3, CNP DSCP 48, RoCE v2 with ToS 106
  gpucluster.fabric.roce_ecn:
    interface: ens1np0
    rdma_device: mlx5_0
"""

RETURN = r"""
changes:
  description: Files written (or that would be), path -> {before, after}.
  returned: always
  type: dict
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import roce


def read(path):
    try:
        with open(path) as f:
            return roce.normalise(f.read())
    except FileNotFoundError:
        return None


def main():
    module = AnsibleModule(argument_spec={"interface": {"type": "str", "required": True},
                                          "rdma_device": {"type": "str", "required": True},
                                          "ecn_priorities": {"type": "list", "elements": "int", "default": [3]},
                                          "cnp_dscp": {"type": "int", "default": 48},
                                          "cnp_priority": {"type": "int"},
                                          "roce_tos": {"type": "int", "default": 106},
                                          "roce_mode": {"type": "str", "default": "RoCE v2"},
                                          "sysfs_root": {"type": "path"}},
                           supports_check_mode=True)
    p = module.params
    root = p["sysfs_root"] or os.environ.get("GPUFABRIC_SYSFS_ROOT") or "/"
    wanted = roce.settings(root, p["interface"], p["rdma_device"], p["ecn_priorities"], p["cnp_dscp"],
                           p["roce_tos"], p["roce_mode"], p["cnp_priority"])
    net = os.path.join(root, "sys/class/net", p["interface"])
    if not os.path.isdir(net):
        module.fail_json(msg="interface %s: no %s" % (p["interface"], net))
    changes = {}
    for path, value in wanted.items():
        before = read(path)
        if before == value:
            continue
        changes[path] = {"before": before, "after": value}
        if module.check_mode:
            continue
        if "/kernel/config/rdma_cm/" in path:
            device_dir = path.split("/ports/")[0]
            if not os.path.isdir(device_dir):
                os.mkdir(device_dir)
        try:
            with open(path, "w") as f:
                f.write(value + "\n")
        except OSError as exc:
            module.fail_json(msg="cannot write %s to %s: %s" % (value, path, exc.strerror), changes=changes)
    module.exit_json(changed=bool(changes), changes=changes,
                     diff={"before": "".join("%s: %s\n" % (k, v["before"]) for k, v in changes.items()),
                           "after": "".join("%s: %s\n" % (k, v["after"]) for k, v in changes.items())})


if __name__ == "__main__":
    main()
