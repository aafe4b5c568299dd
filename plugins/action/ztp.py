# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.ztp: the zero-touch provisioning tree of the cluster, on the controller."""
from __future__ import annotations

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.ztp.run import SETTING_KEYS, provision
from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction


class ActionModule(PlannedAction):
    _VALID_ARGS = frozenset(("spec", "build_dir", "yang_models", "kea_log") + SETTING_KEYS)

    def planned(self, result, args, task_vars):
        path, plan, build_dir = self.plan(args, task_vars)
        result.update(provision(plan, build_dir, args, check=self._task.check_mode), spec=path,
                      cluster=plan.summary["cluster"])
        return result
