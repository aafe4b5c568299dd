# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.build: render every device's configuration in one process, on the controller."""
from __future__ import annotations

import os
import shutil
import tempfile

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric import build, build_tree
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.day2.rollout import plan_waves
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.progress import selected_stages
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.tenants.state import assignment_for
from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction

# Enough to see what a change touched without flooding the output of a fabric-wide change.
SHOWN_PATHS = 50


class ActionModule(PlannedAction):
    PROGRESS = "build"
    _VALID_ARGS = frozenset(("spec", "build_dir", "devices", "tenants", "yang_models", "check_stage", "drain",
                             "undrain", "replace", "restore", "rollout"))

    def planned(self, result, args, task_vars):
        progress = self.progress
        path, plan, build_dir = self.plan(args, task_vars)
        assignment_for(plan, build_dir, args.get("tenants"))
        devices = args.get("devices")
        if devices is not None:
            known = {dev.name for dev in plan.devices}
            unknown = sorted(set(devices) - known)
            if unknown:
                return dict(result, failed=True, msg="devices: %s not in the plan of %s" % (", ".join(unknown[:5]), path))
        if args.get("yang_models"):
            try:
                problems = build.check_switch_configs(plan, args["yang_models"], devices)
            except ValueError as exc:  # a models directory that is missing or not the NOS's
                return dict(result, failed=True, msg=str(exc))
            progress.phase("YANG validation", len(problems), "problems", progress.elapsed())
            if problems:
                # Nothing is written: a build directory holds only configs a switch would accept.
                return dict(result, failed=True, problems=problems[:SHOWN_PATHS],
                            msg="%d switch config(s) fail their NOS's models (yang_models); first: %s" % (len(problems), problems[0]))
        stages = selected_stages(list(build.STAGES), task_vars.get("ansible_run_tags"), task_vars.get("ansible_skip_tags"))
        texts = {}
        changed = build.write_build(plan, build_dir, check=self._task.check_mode, devices=devices, stages=stages,
                                    result=texts, progress=lambda stage, count, s: progress.phase(stage, count, "files", s))
        if self._task.diff and changed:
            # In check mode against the current build; after a build against the one it replaced.
            shown = build_tree.diff_order(changed)
            old = texts["old"] if self._task.check_mode else build_tree.previous_files(
                plan, build_dir, shown[:build_tree.DIFF_FILES])
            result["diff"] = [{"prepared": text} for text in build_tree.unified_diffs(old, texts["new"], shown)]
        build_root = os.path.join(build_dir, plan.summary["cluster"])
        if self._task.check_mode and args.get("check_stage"):
            # What deploy --check compares devices with: the build as it would be now, never build/ itself.
            # One directory per cluster, replaced by each check run: a run that stops early leaves at most this.
            stage_dir = os.path.join(tempfile.gettempdir(), "gpufabric-check-" + plan.summary["cluster"])
            shutil.rmtree(stage_dir, ignore_errors=True)
            build.write_build(plan, stage_dir, devices=devices, stages=stages)
            build_root = os.path.join(stage_dir, plan.summary["cluster"])
            result["check_stage_dir"] = stage_dir
        selected = devices if devices is not None else [d.name for d in plan.devices if d.role != "gpu_server"]
        result.update(changed=bool(changed), spec=path, cluster=plan.summary["cluster"], stages=stages,
                      yang_validated=bool(args.get("yang_models")),
                      build_root=build_root, devices=len(selected),
                      switches=sum(1 for d in plan.devices if d.role != "gpu_server"),
                      changed_count=len(changed), changed_paths=changed[:SHOWN_PATHS], progress=progress.total())
        if args.get("rollout"):
            # The waves of rollout.json, from the plan in hand: under --limit the build writes no rollout.json.
            result["rollout"] = [{"role": w["role"], "members": w["members"]} for w in plan_waves(plan)]
        return result
