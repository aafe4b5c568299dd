# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: gpu_preflight
short_description: Check a GPU server before RoCE is set up (OFED, RDMA devices, GPU-NIC PCIe affinity)
version_added: 0.3.0
description:
  - C(ofed_info -s) must name DOCA-OFED or MLNX_OFED at least I(min_ofed_version) (they bring C(mlnx_qos) and the
    ECN/CNP sysfs files the RoCE stage writes).
  - Each rail NIC of I(nics) must have its planned RDMA device (C(/sys/class/net/IF/device/infiniband/)).
  - With I(check_topology), C(nvidia-smi topo -m) must show rail i's NIC on the PCIe switch of GPU i (PIX or PXB);
    NCCL uses for each GPU its nearest HCA, so a NIC elsewhere sends that GPU's traffic out of another rail.
  - Fails with every problem found, on one line. Reads only; check mode runs the same reads.
options:
  nics:
    description: Rail NICs (C(nics) of the build's structured.yml), each with C(name), C(rail) and C(rdma).
    type: list
    elements: dict
    required: true
  min_ofed_version:
    description: Oldest acceptable OFED version (DOCA-OFED numbers its OFED part the same way, C(24.10)).
    type: str
    default: "23.10"
  check_topology:
    description: Also check GPU-NIC affinity with C(nvidia-smi topo -m).
    type: bool
    default: true
  ofed_info:
    description: ofed_info executable.
    type: str
    default: ofed_info
  nvidia_smi:
    description: nvidia-smi executable.
    type: str
    default: nvidia-smi
  sysfs_root:
    description: Root under which C(sys/class/net) is read (tests use a fake tree).
    type: path
    default: /
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Preflight
  gpucluster.fabric.gpu_preflight:
    nics: "{{ gpu_server_cfg.nics }}"
    min_ofed_version: "24.10"
"""

RETURN = r"""
ofed:
  description: The stack and version found (C(stack), C(version)), or null.
  returned: always
  type: dict
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import preflight


def rdma_devices(root, nics):
    found = {}
    for nic in nics:
        path = os.path.join(root, "sys/class/net", nic["name"])
        if os.path.isdir(path):
            ib = os.path.join(path, "device", "infiniband")
            found[nic["name"]] = sorted(os.listdir(ib)) if os.path.isdir(ib) else []
    return found


def main():
    module = AnsibleModule(argument_spec={
        "nics": {"type": "list", "elements": "dict", "required": True},
        "min_ofed_version": {"type": "str", "default": "23.10"}, "check_topology": {"type": "bool", "default": True},
        "ofed_info": {"type": "str", "default": "ofed_info"}, "nvidia_smi": {"type": "str", "default": "nvidia-smi"},
        "sysfs_root": {"type": "path", "default": "/"}}, supports_check_mode=True)
    p = module.params
    problems = []
    exe = module.get_bin_path(p["ofed_info"])
    out = module.run_command([exe, "-s"])[1] if exe else ""
    ofed = preflight.parse_ofed_info(out)
    problem = preflight.ofed_problem(out, p["min_ofed_version"])
    if problem:
        problems.append(problem)
    problems += preflight.rdma_problems(p["nics"], rdma_devices(p["sysfs_root"], p["nics"]))
    if p["check_topology"]:
        smi = module.get_bin_path(p["nvidia_smi"])
        rc, out, err = module.run_command([smi, "topo", "-m"]) if smi else (1, "", "no nvidia-smi")
        if rc != 0:
            problems.append("nvidia-smi topo -m failed: %s" % (err or out).strip().splitlines()[-1:])
        else:
            try:
                problems += preflight.affinity_problems(preflight.parse_topo(out), p["nics"])
            except ValueError as exc:
                problems.append(str(exc))
    if problems:
        module.fail_json(msg="; ".join(problems), ofed=ofed)
    module.exit_json(changed=False, ofed=ofed)


if __name__ == "__main__":
    main()
