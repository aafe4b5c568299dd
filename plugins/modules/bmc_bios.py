# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: bmc_bios
short_description: Set BIOS attributes through a BMC's Redfish API, and say when a reboot applies them
version_added: 0.2.0
description:
  - Compares I(attributes) with the BIOS's current attributes and with those already queued in its settings
    object (C(@Redfish.Settings)), PATCHes only what still differs, and reports C(reboot_required) while any
    wanted value waits for the next boot.
  - An attribute the BIOS does not have fails with a message naming it and the nearest existing name.
  - With I(reboot=true), a system that needs a reboot gets C(ComputerSystem.Reset) (I(reset_type)).
  - Check mode and diff show the attributes that would change.
  - Plain Redfish rather than C(dellemc.openmanage.idrac_bios), whose apply path goes through iDRAC's OEM job
    service; the standard settings object works on any Redfish BMC and is what the tests' emulator implements.
extends_documentation_fragment:
  - gpucluster.fabric.redfish
options:
  attributes:
    description: BIOS attribute name -> wanted value (names and values of the BIOS attribute registry).
    type: dict
    required: true
  reboot:
    description: Reset the system when a wanted value waits for a reboot.
    type: bool
    default: false
  reset_type:
    description: Redfish ResetType used when I(reboot=true).
    type: str
    default: GracefulRestart
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: XE9680 BIOS for GPU training
  gpucluster.fabric.bmc_bios:
    baseuri: "{{ fabric.bmc_ipv4 }}"
    username: "{{ bmc_username }}"
    password: "{{ bmc_password }}"
    attributes:
      SysProfile: PerfOptimized
      SriovGlobalEnable: Enabled
"""

RETURN = r"""
changes:
  description: Attributes PATCHed (or that would be), name -> {before, after}.
  returned: always
  type: dict
pending:
  description: Wanted attributes already queued for the next boot, name -> {before, after}.
  returned: always
  type: dict
reboot_required:
  description: True while a wanted value is not yet active.
  returned: always
  type: bool
rebooted:
  description: True when this run reset the system.
  returned: always
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import bios
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish import RedfishError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish_args import BMC_ARGS, client


def main():
    spec = dict(BMC_ARGS, attributes={"type": "dict", "required": True}, reboot={"type": "bool", "default": False},
                reset_type={"type": "str", "default": "GracefulRestart"})
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    bmc = client(p)
    rebooted = False
    try:
        system = bmc.system_path(p["system_id"])
        current, pending, settings = bmc.bios(system)
        to_set, pending_ok = bios.diff(current, pending, p["attributes"], "attributes")
        need_reboot = bios.reboot_required(to_set, pending_ok)
        if to_set and not module.check_mode:
            bmc.request("PATCH", settings, {"Attributes": {k: v["after"] for k, v in to_set.items()}})
        if need_reboot and p["reboot"] and not module.check_mode:
            bmc.reset(system, p["reset_type"])
            rebooted = True
    except (SpecError, RedfishError) as exc:
        module.fail_json(msg=str(exc))
    diff = {"before": {k: v["before"] for k, v in to_set.items()}, "after": {k: v["after"] for k, v in to_set.items()}}
    module.exit_json(changed=bool(to_set) or rebooted, changes=to_set, pending=pending_ok,
                     reboot_required=need_reboot and not rebooted, rebooted=rebooted, diff=diff)


if __name__ == "__main__":
    main()
