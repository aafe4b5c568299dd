# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.build: render every device's configuration in one process, on the controller."""
from __future__ import annotations

import os

from ansible.plugins.action import ActionBase

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.build import write_build
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.specfile import plan_for_task

# Enough to see what a change touched without flooding the output of a fabric-wide change.
SHOWN_PATHS = 50


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("spec", "build_dir"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        task_vars = task_vars or {}
        try:
            path, plan, build_dir = plan_for_task(args, task_vars)
        except SpecError as exc:
            return dict(result, failed=True, msg=str(exc))
        changed = write_build(plan, build_dir, check=self._task.check_mode)
        switches = sum(1 for dev in plan.devices if dev.role != "gpu_server")
        result.update(changed=bool(changed), spec=path, cluster=plan.summary["cluster"],
                      build_root=os.path.join(build_dir, plan.summary["cluster"]), switches=switches,
                      changed_count=len(changed), changed_paths=changed[:SHOWN_PATHS])
        return result
