# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: mlnx_qos
short_description: Set a ConnectX port's QoS trust mode and PFC priorities with mlnx_qos
version_added: 0.2.0
description:
  - Reads C(mlnx_qos -i INTERFACE) and, when the trust state or the PFC priorities differ, runs
    C(mlnx_qos -i INTERFACE --trust TRUST --pfc v0,...,v7).
  - The RoCE plan is trust C(dscp) and PFC on priority 3 only; the switch port must agree (see docs/gpu-server.md).
options:
  interface:
    description: Network interface of the port.
    type: str
    required: true
  trust:
    description: Classification by DSCP or by VLAN PCP.
    type: str
    choices: [dscp, pcp]
    default: dscp
  pfc_priorities:
    description: Priorities (0-7) with PFC on; all others off.
    type: list
    elements: int
    default: [3]
  executable:
    description: mlnx_qos by name on PATH or full path.
    type: str
    default: mlnx_qos
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Lossless priority 3, DSCP trust
  gpucluster.fabric.mlnx_qos:
    interface: ens1np0
    trust: dscp
    pfc_priorities: [3]
"""

RETURN = r"""
before:
  description: Trust state and PFC vector read before any change.
  returned: always
  type: dict
after:
  description: Trust state and PFC vector wanted.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import mellanox


def main():
    module = AnsibleModule(argument_spec={"interface": {"type": "str", "required": True},
                                          "trust": {"type": "str", "choices": ["dscp", "pcp"], "default": "dscp"},
                                          "pfc_priorities": {"type": "list", "elements": "int", "default": [3]},
                                          "executable": {"type": "str", "default": "mlnx_qos"}},
                           supports_check_mode=True)
    p = module.params
    exe = module.get_bin_path(p["executable"], required=True)
    try:
        pfc = mellanox.pfc_vector(p["pfc_priorities"])
    except SpecError as exc:
        module.fail_json(msg=str(exc))
    rc, out, err = module.run_command([exe, "-i", p["interface"]])
    if rc != 0:
        module.fail_json(msg="mlnx_qos -i %s failed: %s" % (p["interface"], (err or out).strip()))
    try:
        now = mellanox.parse_mlnx_qos(out)
    except ValueError as exc:
        module.fail_json(msg="mlnx_qos -i %s: %s" % (p["interface"], exc))
    before = {"trust": now["trust"], "pfc": now["pfc"]}
    after = {"trust": p["trust"], "pfc": pfc}
    changed = before != after
    if changed and not module.check_mode:
        rc, out, err = module.run_command([exe, "-i", p["interface"], "--trust", p["trust"],
                                           "--pfc", ",".join(str(v) for v in pfc)])
        if rc != 0:
            module.fail_json(msg="mlnx_qos set on %s failed: %s" % (p["interface"], (err or out).strip()))
    module.exit_json(changed=changed, before=before, after=after, diff={"before": before, "after": after})


if __name__ == "__main__":
    main()
