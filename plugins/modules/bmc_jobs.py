# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: bmc_jobs
short_description: Reboot a server once for its staged iDRAC jobs and follow every job to its end
version_added: 0.3.0
description:
  - Looks at each job of I(jobs) (what C(bmc_bios) and C(bmc_firmware) return) in the iDRAC's Lifecycle Controller
    queue (C(/redfish/v1/Managers/iDRAC.Embedded.1/Jobs)). When any waits for a host reboot (C(Scheduled)) and
    I(reboot) is true, resets the system once (C(ComputerSystem.Reset), I(reset_type)), then follows every job until
    it is C(Completed) or C(Failed), riding out the iDRAC and the host restarting.
  - A failed job fails the task with one line naming its component, the job and the iDRAC's message.
  - Without I(reboot), reports C(reboot_required) and changes nothing. Check mode changes nothing.
extends_documentation_fragment:
  - gpucluster.fabric.redfish
options:
  jobs:
    description: Jobs to follow, each C({component, id}).
    type: list
    elements: dict
    required: true
  reboot:
    description: Reset the system when a job waits for a reboot.
    type: bool
    default: false
  reset_type:
    description: Redfish ResetType of the one reboot.
    type: str
    default: GracefulRestart
  job_timeout:
    description: Seconds to follow each job before failing.
    type: int
    default: 3600
  poll_interval:
    description: Seconds between two looks at a job.
    type: int
    default: 10
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Reboot once and wait for the BIOS and firmware jobs
  gpucluster.fabric.bmc_jobs:
    baseuri: "{{ fabric.bmc_ipv4 }}"
    username: "{{ bmc_username }}"
    password: "{{ bmc_password }}"
    jobs: "{{ firmware.jobs + bios.jobs }}"
    reboot: true
"""

RETURN = r"""
jobs:
  description: Every job with its final state (component, id, state, message).
  returned: always
  type: list
  elements: dict
rebooted:
  description: True when this run reset the system.
  returned: always
  type: bool
reboot_required:
  description: True when a job still waits for a reboot (I(reboot) false).
  returned: always
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import bmc_jobs
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish import RedfishError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server.redfish_args import BMC_ARGS, client


def main():
    spec = dict(BMC_ARGS, jobs={"type": "list", "elements": "dict", "required": True},
                reboot={"type": "bool", "default": False}, reset_type={"type": "str", "default": "GracefulRestart"},
                job_timeout={"type": "int", "default": 3600}, poll_interval={"type": "int", "default": 10})
    module = AnsibleModule(argument_spec=spec, supports_check_mode=True)
    p = module.params
    bmc = client(p)
    done, rebooted = [], False
    try:
        uris = [(j["component"], "%s/%s" % (bmc_jobs.JOBS, j["id"])) for j in p["jobs"]]
        states = [bmc.get(uri).get("JobState") for dummy, uri in uris]
        waiting = any(s in bmc_jobs.STAGED for s in states)
        if waiting and p["reboot"] and not module.check_mode:
            bmc.reset(bmc.system_path(p["system_id"]), p["reset_type"])
            rebooted = True
        if rebooted or not waiting:
            for component, uri in uris:
                job = bmc_jobs.follow(bmc, uri, bmc_jobs.FINISHED, p["job_timeout"], p["poll_interval"])
                problem = bmc_jobs.failure(component, job)
                if problem:
                    module.fail_json(msg=problem, jobs=done, rebooted=rebooted)
                done.append({"component": component, "id": job["Id"], "state": job["JobState"],
                             "message": job.get("Message", "")})
    except RedfishError as exc:
        module.fail_json(msg=str(exc), jobs=done, rebooted=rebooted)
    module.exit_json(changed=rebooted, rebooted=rebooted, jobs=done, reboot_required=waiting and not rebooted)


if __name__ == "__main__":
    main()
