# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: bmc_firmware
short_description: Stage a server's firmware to a baseline through its iDRAC's Redfish API
version_added: 0.2.0
description:
  - Reads C(/redfish/v1/UpdateService/FirmwareInventory) (one entry per device; iDRAC's C(Installed-) and C(Current-)
    copies count once), compares every component with I(baseline) and starts one update per component below it
    (one package updates all eight NICs), then follows its job until it is staged (C(Scheduled), installed by the
    next host reboot) or done (iDRAC's own firmware).
  - An image given as a URI goes through C(UpdateService.SimpleUpdate) with C(TransferProtocol) and
    C(@Redfish.OperationApplyTime=OnReset) and without C(Targets), which iDRAC refuses; a local file (on the
    controller) is pushed to C(MultipartHttpPushUri).
  - A baseline key matches every inventory entry whose name starts with it (C(NVIDIA ConnectX-7) covers all eight
    NICs, named C(NVIDIA ConnectX-7 ... - MAC)) or whose Id equals it. A key that matches nothing fails naming it.
    NVIDIA's three-part versions (C(28.39.1002)) compare with iDRAC's four-part ones (C(28.39.10.02)).
  - A failed job fails the task with one line naming the component and the iDRAC's message.
  - In check mode nothing is started; C(changes) lists what would be updated.
  - C(dellemc.openmanage.idrac_firmware) needs a catalog share or an OpenManage repository; this module takes
    one image per component, which is how a baseline pinned in group vars is usually kept.
extends_documentation_fragment:
  - gpucluster.fabric.redfish
options:
  baseline:
    description: Component name (prefix) or inventory Id -> version string.
    type: dict
    required: true
  images:
    description: Component (same keys as I(baseline)) -> Dell Update Package, as a URI (C(https://), C(http://),
      C(nfs://), C(cifs://)) or a path on the controller.
    type: dict
    default: {}
  allow_downgrade:
    description: Also act on components newer than the baseline.
    type: bool
    default: false
  job_timeout:
    description: Seconds to follow each job before failing.
    type: int
    default: 1800
  poll_interval:
    description: Seconds between two looks at a job.
    type: int
    default: 5
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
      BIOS: 1.7.5
      NVIDIA ConnectX-7: 28.39.1002
    images:
      BIOS: https://repo.example.com/BIOS_XXXXX_WN64_1.7.5.EXE
      NVIDIA ConnectX-7: /srv/firmware/Network_Firmware_XXXXX_WN64_28.39.10.02.EXE
  register: fw
"""

RETURN = r"""
changes:
  description: Inventory entries below the baseline (component, id, name, current, wanted, action, reboot_required).
  returned: always
  type: list
  elements: dict
jobs:
  description: One iDRAC job per component started (component, id, state).
  returned: always
  type: list
  elements: dict
reboot_required:
  description: True when a staged update is installed only by a host reboot.
  returned: always
  type: bool
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import bmc_jobs, firmware
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish import RedfishError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish_args import BMC_ARGS, client


def start(bmc, image):
    if "://" in image:
        return bmc.simple_update(image)
    if not os.path.isfile(image):
        raise SpecError("images", "%s is neither a URI nor a file on the controller" % image)
    return bmc.multipart_push(image)


def main():
    spec = dict(BMC_ARGS, baseline={"type": "dict", "required": True}, images={"type": "dict", "default": {}},
                allow_downgrade={"type": "bool", "default": False}, job_timeout={"type": "int", "default": 1800},
                poll_interval={"type": "int", "default": 5})
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    bmc = client(p)
    jobs = []
    try:
        inventory = firmware.inventory_from_redfish(bmc.firmware_inventory())
        changes = firmware.compare(inventory, p["baseline"], "baseline", p["allow_downgrade"])
        unknown = sorted(set(p["images"]) - set(p["baseline"]))
        if unknown:
            raise SpecError("images.%s" % unknown[0], "no such component in baseline")
        components = firmware.by_component(changes)
        missing = [c for c in components if c["component"] not in p["images"]]
        if missing and not module.check_mode:
            c = missing[0]
            raise SpecError("images.%s" % c["component"], "%s is at %s, baseline %s, and no image is given for it"
                            % (c["names"][0], c["current"][0], c["wanted"]))
        for c in components if not module.check_mode else []:
            try:
                uri = bmc_jobs.job_uri(start(bmc, p["images"][c["component"]]) or "")
                job = bmc_jobs.follow(bmc, uri, bmc_jobs.STAGED + bmc_jobs.FINISHED, p["job_timeout"],
                                      p["poll_interval"])
            except RedfishError as exc:
                raise RedfishError("%s: %s" % (c["component"], exc))
            problem = bmc_jobs.failure(c["component"], job)
            if problem:
                module.fail_json(msg=problem, changes=changes, jobs=jobs)
            jobs.append({"component": c["component"], "id": job["Id"], "state": job["JobState"]})
    except (SpecError, RedfishError) as exc:
        module.fail_json(msg=str(exc), jobs=jobs)
    module.exit_json(changed=bool(changes), changes=changes, jobs=jobs,
                     reboot_required=any(c["reboot_required"] for c in changes))


if __name__ == "__main__":
    main()
