# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: gpu_acceptance
short_description: Run an RDMA or NCCL acceptance test and judge its output against a floor
version_added: 0.3.0
description:
  - Runs I(command) (perftest C(ib_write_bw) as the client of one rail, or nccl-tests C(all_reduce_perf) under
    mpirun) and parses the tool's own result table.
  - C(ib_write_bw) passes when the average bandwidth of the largest size reaches I(min_fraction) of
    I(line_rate_gbps) over a RoCE (Ethernet) link; it must run with C(--report_gbits).
  - C(all_reduce_perf) passes when no value is wrong and the bus bandwidth of the largest size reaches I(min_busbw).
  - A miss fails with one line naming I(label) and the figures. Changes nothing on the host.
options:
  test:
    description: Which tool's output I(command) prints.
    type: str
    choices: [ib_write_bw, all_reduce_perf]
    required: true
  command:
    description: The command, as a list of arguments.
    type: list
    elements: str
    required: true
  label:
    description: What the result is about (C(rail 3 lab-gpu0001 -> lab-gpu0002)).
    type: str
    default: acceptance
  line_rate_gbps:
    description: Line rate of the NIC port, Gb/s (ib_write_bw).
    type: int
    default: 400
  min_fraction:
    description: Fraction of I(line_rate_gbps) that passes (ib_write_bw).
    type: float
    default: 0.9
  min_busbw:
    description: Bus bandwidth that passes, GB/s (all_reduce_perf).
    type: float
    default: 0
  timeout:
    description: Seconds before the command is stopped.
    type: int
    default: 600
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Rail 0 to the peer
  gpucluster.fabric.gpu_acceptance:
    test: ib_write_bw
    command: [ib_write_bw, -d, mlx5_0, -x, "3", -F, -D, "5", --report_gbits, 10.0.0.5]
    label: rail 0
"""

RETURN = r"""
result:
  description: The parsed result table.
  returned: success
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import acceptance


def main():
    module = AnsibleModule(argument_spec={
        "test": {"type": "str", "choices": ["ib_write_bw", "all_reduce_perf"], "required": True},
        "command": {"type": "list", "elements": "str", "required": True},
        "label": {"type": "str", "default": "acceptance"}, "line_rate_gbps": {"type": "int", "default": 400},
        "min_fraction": {"type": "float", "default": 0.9}, "min_busbw": {"type": "float", "default": 0},
        "timeout": {"type": "int", "default": 600}}, supports_check_mode=False)
    p = module.params
    exe = module.get_bin_path(p["command"][0], required=True)
    rc, out, err = module.run_command(["timeout", str(p["timeout"]), exe] + p["command"][1:])
    if rc != 0:
        module.fail_json(msg="%s: %s exited %d: %s" % (p["label"], p["command"][0], rc,
                                                       " ".join((err or out).split())[-200:]))
    try:
        if p["test"] == "ib_write_bw":
            parsed = acceptance.parse_ib_write_bw(out)
            problem = acceptance.ib_write_bw_problem(parsed, p["line_rate_gbps"], p["min_fraction"], p["label"])
        else:
            parsed = acceptance.parse_all_reduce_perf(out)
            problem = acceptance.all_reduce_problem(parsed, p["min_busbw"], p["label"])
    except ValueError as exc:
        module.fail_json(msg="%s: %s" % (p["label"], exc))
    if problem:
        module.fail_json(msg=problem, result=parsed)
    module.exit_json(changed=False, result=parsed)


if __name__ == "__main__":
    main()
