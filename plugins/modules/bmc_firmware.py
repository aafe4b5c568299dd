# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: bmc_firmware
short_description: Bring a server's firmware to a baseline through its BMC's Redfish API
version_added: 0.2.0
description:
  - Reads C(/redfish/v1/UpdateService/FirmwareInventory), compares every installed component with I(baseline)
    and, for each one below it, starts C(UpdateService.SimpleUpdate) with the component's image from I(images).
  - A baseline key matches every inventory entry whose name starts with it (so C(Mellanox ConnectX-7) covers
    all eight NICs) or whose Id equals it. A key that matches nothing fails with a message naming it.
  - The update target is the entry's C(RelatedItem) when the BMC lists one, else the entry itself.
  - Components other than the BMC itself are installed at the next host reboot; C(reboot_required) says so.
  - In check mode nothing is started; C(changes) lists what would be updated.
  - C(dellemc.openmanage.idrac_firmware) needs a catalog share or an OpenManage repository; this module takes
    one image per component, which is how a baseline pinned in group vars is usually kept.
extends_documentation_fragment:
  - gpucluster.fabric.redfish
options:
  baseline:
    description: Component name (prefix) or inventory Id -> version string as the BMC reports it.
    type: dict
    required: true
  images:
    description: Component (same keys as I(baseline)) -> image URI for SimpleUpdate (C(http://), C(https://), C(nfs://)).
    type: dict
    default: {}
  allow_downgrade:
    description: Also act on components newer than the baseline.
    type: bool
    default: false
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Firmware to the XE9680 baseline
  gpucluster.fabric.bmc_firmware:
    baseuri: "{{ fabric.bmc_ipv4 }}"
    username: "{{ bmc_username }}"
    password: "{{ bmc_password }}"
    baseline:
      BIOS: 1.6.4
      Mellanox ConnectX-7: 28.39.1002
    images:
      BIOS: http://repo.example.com/BIOS_XE9680_1.6.4.EXE
  register: fw
"""

RETURN = r"""
changes:
  description: Components below the baseline (component, id, name, current, wanted, action, reboot_required).
  returned: always
  type: list
  elements: dict
reboot_required:
  description: True when an update started (or that would start) is installed only by a host reboot.
  returned: always
  type: bool
tasks:
  description: Task monitor URIs the BMC returned for the updates it started.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import firmware
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish import RedfishError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish_args import BMC_ARGS, client


def main():
    spec = dict(BMC_ARGS, baseline={"type": "dict", "required": True}, images={"type": "dict", "default": {}},
                allow_downgrade={"type": "bool", "default": False})
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    bmc = client(p)
    try:
        members = bmc.firmware_inventory()
        inventory = firmware.inventory_from_redfish(members)
        changes = firmware.compare(inventory, p["baseline"], "baseline", p["allow_downgrade"])
        unknown = sorted(set(p["images"]) - set(p["baseline"]))
        if unknown:
            raise SpecError("images.%s" % unknown[0], "no such component in baseline")
        missing = sorted({c["component"] for c in changes if c["component"] not in p["images"]})
        if missing and not module.check_mode:
            c = [x for x in changes if x["component"] == missing[0]][0]
            raise SpecError("images.%s" % missing[0], "%s is at %s, baseline %s, and no image is given for it"
                            % (c["name"], c["current"], c["wanted"]))
        tasks = []
        if changes and not module.check_mode:
            by_id = {m.get("Id"): m for m in members}
            for c in changes:
                m = by_id[c["id"]]
                target = (m.get("RelatedItem") or [{"@odata.id": m["@odata.id"]}])[0]["@odata.id"]
                location = bmc.simple_update(p["images"][c["component"]], [target])
                if location:
                    tasks.append(location)
    except (SpecError, RedfishError) as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(changed=bool(changes), changes=changes, tasks=tasks,
                     reboot_required=any(c["reboot_required"] for c in changes))


if __name__ == "__main__":
    main()
