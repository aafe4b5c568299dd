# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.ztp: the zero-touch provisioning tree of the cluster, on the controller."""
from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.specfile import plan_for_task
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.ztp.run import SETTING_KEYS, provision


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("spec", "build_dir", "yang_models", "kea_log") + SETTING_KEYS)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        try:
            path, plan, build_dir = plan_for_task(args, task_vars or {})
            result.update(provision(plan, build_dir, args, check=self._task.check_mode), spec=path,
                          cluster=plan.summary["cluster"])
        except SpecError as exc:
            return dict(result, failed=True, msg=str(exc))
        return result
