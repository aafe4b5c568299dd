# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: mlxconfig
short_description: Query and set ConnectX firmware parameters with mlxconfig, and report a pending reset
version_added: 0.2.0
description:
  - Runs C(mlxconfig -d DEVICE -e q) and compares I(parameters) with the C(Next Boot) column, so a value set
    but not yet active is not set again. Sets what differs in one C(mlxconfig -y set) call.
  - Firmware parameters take effect after C(mlxfwreset) or a reboot; C(reset_required) is true while any
    queried parameter's C(Next Boot) differs from C(Current).
  - A parameter the device does not have fails with a message naming it.
  - Works with C(mstconfig) (mstflint) too through I(executable).
options:
  device:
    description: The device, C(mlx5_0), a PCI address or C(/dev/mst/...).
    type: str
    required: true
  parameters:
    description: Parameter name -> wanted value, by name (C(ETH), C(True)) or number (C(2), C(1)). Empty only queries.
    type: dict
    default: {}
  executable:
    description: mlxconfig or mstconfig, by name on PATH or full path.
    type: str
    default: mlxconfig
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: ConnectX-7 for RoCE with GPUDirect
  gpucluster.fabric.mlxconfig:
    device: mlx5_0
    parameters:
      LINK_TYPE_P1: ETH
      ADVANCED_PCI_SETTINGS: true
      ATS_ENABLED: true
  register: nic
"""

RETURN = r"""
changes:
  description: Parameters set (or that would be), name -> {before, after} (C(Next Boot) values).
  returned: always
  type: dict
reset_required:
  description: A firmware reset or reboot is needed for wanted values to take effect.
  returned: always
  type: bool
pending:
  description: Queried parameters whose Next Boot value differs from the Current one.
  returned: always
  type: list
  elements: str
params:
  description: The queried parameters, name -> {Default, Current, Next Boot}.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import mellanox


def query(module, exe, device, names):
    rc, out, err = module.run_command([exe, "-d", device, "-e", "q"] + names)
    if rc != 0:
        module.fail_json(msg="%s -d %s q failed: %s" % (exe, device, (err or out).strip().splitlines()[-1:]))
    return mellanox.parse_mlxconfig_query(out)


def main():
    module = AnsibleModule(argument_spec={"device": {"type": "str", "required": True},
                                          "parameters": {"type": "dict", "default": {}},
                                          "executable": {"type": "str", "default": "mlxconfig"}},
                           supports_check_mode=True)
    p = module.params
    exe = module.get_bin_path(p["executable"], required=True)
    parsed = query(module, exe, p["device"], [])
    try:
        to_set, pending = mellanox.mlxconfig_changes(parsed, p["parameters"], p["device"])
    except SpecError as exc:
        module.fail_json(msg=str(exc))
    if to_set and not module.check_mode:
        assignments = ["%s=%s" % (k, mellanox.format_set_value(p["parameters"][k])) for k in to_set]
        rc, out, err = module.run_command([exe, "-d", p["device"], "-y", "set"] + assignments)
        if rc != 0:
            module.fail_json(msg="%s set %s failed: %s" % (exe, " ".join(assignments), (err or out).strip()))
        parsed = query(module, exe, p["device"], [])
        pending = mellanox.mlxconfig_changes(parsed, p["parameters"], p["device"])[1]
    elif to_set:
        pending = sorted(set(pending) | set(to_set))
    params = {k: v for k, v in parsed["params"].items() if k in p["parameters"]} if p["parameters"] else parsed["params"]
    module.exit_json(changed=bool(to_set), changes=to_set, pending=pending, reset_required=bool(pending),
                     params=params, diff={"before": {k: v["before"] for k, v in to_set.items()},
                                          "after": {k: v["after"] for k, v in to_set.items()}})


if __name__ == "__main__":
    main()
