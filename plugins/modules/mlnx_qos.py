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
  dscp_to_priority:
    description:
      - DSCP -> priority entries the port must hold (C(--dscp2prio set,DSCP,PRIO)); others are left alone.
      - The NIC's default map is priority = DSCP / 8, right for DSCP 26 but not, for example, for DSCP 24 on priority 4.
    type: dict
    default: {}
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
    dscp_to_priority: {26: 3, 48: 6}
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
                                          "dscp_to_priority": {"type": "dict", "default": {}},
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
    try:
        wanted_map = dict((int(d), int(prio)) for d, prio in p["dscp_to_priority"].items())
    except ValueError:
        module.fail_json(msg="dscp_to_priority: DSCP and priority must be numbers, got %r" % p["dscp_to_priority"])
    have_map = dict((d, prio) for prio, dscps in now["dscp2prio"].items() for d in dscps)
    before = {"trust": now["trust"], "pfc": now["pfc"],
              "dscp_to_priority": dict((d, have_map.get(d)) for d in sorted(wanted_map))}
    after = {"trust": p["trust"], "pfc": pfc, "dscp_to_priority": dict(sorted(wanted_map.items()))}
    commands = []
    if (before["trust"], before["pfc"]) != (after["trust"], after["pfc"]):
        commands.append(["--trust", p["trust"], "--pfc", ",".join(str(v) for v in pfc)])
    commands += [["--dscp2prio", "set,%d,%d" % (d, prio)] for d, prio in sorted(wanted_map.items())
                 if have_map.get(d) != prio]
    changed = bool(commands)
    for args in commands if not module.check_mode else []:
        rc, out, err = module.run_command([exe, "-i", p["interface"]] + args)
        if rc != 0:
            module.fail_json(msg="mlnx_qos %s on %s failed: %s" % (" ".join(args), p["interface"], (err or out).strip()))
    module.exit_json(changed=changed, before=before, after=after, diff={"before": before, "after": after})


if __name__ == "__main__":
    main()
