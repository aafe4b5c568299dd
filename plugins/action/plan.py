# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.plan: plan the cluster once, on the controller, and write the plan."""
from __future__ import annotations

import os

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.export import write_plan
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.summary import render_text
from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction


class ActionModule(PlannedAction):
    PROGRESS = "plan"
    _VALID_ARGS = frozenset(("spec", "build_dir", "drain", "undrain", "write"))

    def planned(self, result, args, task_vars):
        progress = self.progress
        path, plan, build_dir = self.plan(args, task_vars)
        written = []
        if args.get("write", True) and not self._task.check_mode:
            started = progress.elapsed()
            written = write_plan(plan, build_dir)
            progress.phase("write", len(written), "files changed", progress.elapsed() - started)
        result.update(changed=bool(written), written=written, spec=path, progress=progress.total(),
                      summary=plan.summary, summary_lines=render_text(plan.summary).splitlines(),
                      plan_dir=os.path.join(build_dir, plan.summary["cluster"]))
        return result
