# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.tenants: check a tenant assignment, plan the change from the running one,
record it once applied. Runs once, on the controller."""
from __future__ import annotations

from ansible.plugins.action import ActionBase

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.specfile import plan_for_task

STATES = ("planned", "recorded")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("assignment", "spec", "build_dir", "state"))

    def run(self, tmp=None, task_vars=None):
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.build import write_build
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.tenants import attach
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.tenants import change, phases, state

        result = super().run(tmp, task_vars)
        args = self._task.args
        mode = args.get("state", "planned")
        if mode not in STATES:
            return dict(result, failed=True, msg="state must be one of %s, not %r" % (", ".join(STATES), mode))
        if not args.get("assignment"):
            return dict(result, failed=True, msg="assignment: give the tenant assignment file (e.g. -e tenants=FILE)")
        try:
            _path, plan, build_dir = plan_for_task(args, task_vars)
            running = state.read_running(build_dir, plan)
            new = state.assignment_for(plan, build_dir, args["assignment"])
        except SpecError as exc:
            return dict(result, failed=True, msg=str(exc), problems=str(exc).splitlines())
        cluster = plan.summary["cluster"]
        if mode == "recorded":
            if running == new:
                return dict(result, changed=False, running=state.running_path(build_dir, cluster))
            if not self._task.check_mode:
                attach(plan, new)
                write_build(plan, build_dir)
                state.write_running(build_dir, cluster, new)
            return dict(result, changed=True, running=state.running_path(build_dir, cluster))
        planned = change.plan_change(plan, running, new)
        roots = phases.write_phases(plan, build_dir, planned) if planned["phases"] else []
        result.update(
            changed=bool(planned["phases"]), cluster=cluster, moves=planned["moves"], lines=planned["lines"],
            running=state.running_path(build_dir, cluster),
            phases=[{"name": p["name"], "hosts": p["hosts"], "root": root, "leaves": p["leaves"]}
                    for p, root in zip(planned["phases"], roots)],
            tenants=dict(new.tenants), free=new.free)
        return result
