# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.spare_plan: check a hot-spare swap on the controller and say which switches it changes."""
from __future__ import annotations

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.structured import switches_of_swap
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.tenants.state import assignment_for
from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction


class ActionModule(PlannedAction):
    _VALID_ARGS = frozenset(("spec", "build_dir", "tenants", "failed", "spare"))

    def planned(self, result, args, task_vars):
        failed, spare = args.get("failed"), args.get("spare")
        if not failed or not spare:
            return dict(result, failed=True, msg="spare_plan needs failed and spare (hostnames), got %r and %r"
                        % (failed, spare))
        common = {"spec": args.get("spec"), "build_dir": args.get("build_dir")}
        _path, swapped, build_dir = self.plan(dict(common, replace={failed: spare}), task_vars)
        unswapped = self.plan(dict(common, restore=[failed]), task_vars)[1]
        for plan in (swapped, unswapped):
            assignment_for(plan, build_dir, args.get("tenants"))   # the spare takes the failed server's tenant in the running assignment
        result.update(changed=False, switches=switches_of_swap(swapped, unswapped))
        return result
