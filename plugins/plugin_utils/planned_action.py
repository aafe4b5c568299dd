# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every controller-side action of the collection shares: it plans the task's spec once, a spec
problem anywhere in it becomes the task's one-line failure (never a traceback), and long work shows its
phases in the play's output."""
from __future__ import annotations

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.progress import Progress
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.specfile import plan_for_task


class PlannedAction(ActionBase):
    """Subclasses implement ``planned(result, args, task_vars)`` and return the task's result."""

    TRANSFERS_FILES = False
    # The name of the progress lines ("plan: spec and plan 27 devices in 0.1 s"); None shows none.
    PROGRESS = None

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        self.progress = Progress(self.PROGRESS, Display().display) if self.PROGRESS else None
        try:
            return self.planned(result, self._task.args, task_vars or {})
        except SpecError as exc:
            return dict(result, failed=True, msg=str(exc), problems=str(exc).splitlines())

    def planned(self, result, args, task_vars):
        raise NotImplementedError

    def plan(self, args, task_vars):
        """(spec path, plan, build directory) of the task, the spec found as plan_for_task documents."""
        path, plan, build_dir = plan_for_task(args, task_vars)
        if self.progress:
            self.progress.phase("spec and plan", len(plan.devices), "devices", self.progress.elapsed())
        return path, plan, build_dir
