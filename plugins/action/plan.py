# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.plan: plan the cluster once, on the controller, and write the plan."""
from __future__ import annotations

import os

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.export import write_plan
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.progress import Progress
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.specfile import plan_for_task
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.summary import render_text


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("spec", "build_dir", "drain", "undrain", "write"))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        args = self._task.args
        task_vars = task_vars or {}
        progress = Progress("plan", Display().display)
        try:
            path, plan, build_dir = plan_for_task(args, task_vars)
        except SpecError as exc:
            return dict(result, failed=True, msg=str(exc))
        progress.phase("spec and plan", len(plan.devices), "devices", progress.elapsed())
        written = []
        if args.get("write", True) and not self._task.check_mode:
            started = progress.elapsed()
            written = write_plan(plan, build_dir)
            progress.phase("write", len(written), "files changed", progress.elapsed() - started)
        result.update(changed=bool(written), written=written, spec=path, progress=progress.total(),
                      summary=plan.summary, summary_lines=render_text(plan.summary).splitlines(),
                      plan_dir=os.path.join(build_dir, plan.summary["cluster"]))
        return result
