# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: bmc_bios
short_description: Stage BIOS attributes through an iDRAC's Redfish API with the job that applies them at reboot
version_added: 0.2.0
description:
  - Compares I(attributes) with the BIOS's current attributes and with those already staged in its settings
    object (C(@Redfish.Settings)), and PATCHes only what still differs, with C(@Redfish.SettingsApplyTime=OnReset)
    so iDRAC schedules the BIOS configuration job that applies them at the next reboot (a PATCH without it only
    stages values, which no reboot applies).
  - iDRAC refuses new values while a BIOS job waits (C(Pending configuration values are already committed));
    then the waiting job is deleted and everything it carried is staged again with the new values, in one job.
  - Values staged without a job get one (C(POST .../Jobs) with C(TargetSettingsURI)).
  - Rebooting is not done here; C(bmc_jobs) reboots once for every staged job of the server and follows them.
  - An attribute the BIOS does not have fails with a message naming it and the nearest existing name; a value iDRAC
    refuses fails with iDRAC's message. Check mode and diff show the attributes that would change.
  - Plain Redfish rather than C(dellemc.openmanage.idrac_bios), which goes through iDRAC's OEM configuration
    service (server configuration profiles); the settings object with an apply time is the documented standard path.
extends_documentation_fragment:
  - gpucluster.fabric.redfish
options:
  attributes:
    description: BIOS attribute name -> wanted value (names and values of the BIOS attribute registry).
    type: dict
    required: true
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
  description: Wanted attributes already staged for the next boot, name -> {before, after}.
  returned: always
  type: dict
jobs:
  description: The BIOS configuration job that applies the values at the next reboot (component, id, state).
  returned: always
  type: list
  elements: dict
reboot_required:
  description: True while a wanted value is not yet active.
  returned: always
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import bios, bmc_jobs
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish import RedfishError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish_args import BMC_ARGS, client

ON_RESET = {"@Redfish.SettingsApplyTime": {"ApplyTime": "OnReset"}}


def stage(bmc, system, settings, pending, to_set):
    """Stage ``to_set`` with a job; returns the job. A waiting job is replaced by one carrying all the values."""
    waiting = bmc_jobs.scheduled_bios_job(bmc)
    values = {k: v["after"] for k, v in to_set.items()}
    if waiting:
        bmc.request("DELETE", waiting["@odata.id"])
        values = dict(pending, **values)
    location = bmc.request("PATCH", settings, dict(ON_RESET, Attributes=values))[1].get("Location")
    if not location:
        raise RedfishError("%s: iDRAC scheduled no job for the BIOS values (no Location)" % settings)
    return bmc.get(bmc_jobs.job_uri(location))


def main():
    module = AnsibleModule(argument_spec=dict(BMC_ARGS, attributes={"type": "dict", "required": True}),
                           supports_check_mode=True)
    p = module.params
    bmc = client(p)
    jobs = []
    try:
        system = bmc.system_path(p["system_id"])
        current, pending, settings = bmc.bios(system)
        to_set, pending_ok = bios.diff(current, pending, p["attributes"], "attributes")
        changed = bool(to_set)
        if not module.check_mode:
            job = None
            if to_set:
                job = stage(bmc, system, settings, pending, to_set)
            elif pending_ok:
                job = bmc_jobs.scheduled_bios_job(bmc)
                if job is None:
                    changed = True
                    location = bmc.request("POST", bmc_jobs.JOBS, {"TargetSettingsURI": settings})[1]["Location"]
                    job = bmc.get(bmc_jobs.job_uri(location))
            if job:
                jobs.append({"component": "BIOS", "id": job["Id"], "state": job["JobState"]})
    except (SpecError, RedfishError) as exc:
        module.fail_json(msg="BIOS: %s" % exc if isinstance(exc, RedfishError) else str(exc))
    diff = {"before": {k: v["before"] for k, v in to_set.items()}, "after": {k: v["after"] for k, v in to_set.items()}}
    module.exit_json(changed=changed, changes=to_set, pending=pending_ok, jobs=jobs,
                     reboot_required=bios.reboot_required(to_set, pending_ok), diff=diff)


if __name__ == "__main__":
    main()
