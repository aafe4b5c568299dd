# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.tenants: check a tenant assignment, plan the change from the running one,
record it once applied. Runs once, on the controller."""
from __future__ import annotations

import os

from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction

STATES = ("planned", "recorded")


class ActionModule(PlannedAction):
    _VALID_ARGS = frozenset(("assignment", "spec", "build_dir", "state", "running_from"))

    def planned(self, result, args, task_vars):
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.build import write_build
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.tenants import attach
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.tenants import change, live, phases, state

        mode = args.get("state", "planned")
        if mode not in STATES:
            return dict(result, failed=True, msg="state must be one of %s, not %r" % (", ".join(STATES), mode))
        if not args.get("assignment"):
            return dict(result, failed=True, msg="assignment: give the tenant assignment file (e.g. -e tenants=FILE)")
        _path, plan, build_dir = self.plan(args, task_vars)
        new = state.assignment_for(plan, build_dir, args["assignment"])
        drifted, notes = [], []
        if args.get("running_from"):
            # Stateless: what the rail leaves enforce now, read by the play (docs/tenancy.md).
            running, drifted, notes = live.running(
                plan, _readings(plan, task_vars.get("hostvars") or {}, args["running_from"]), new.ids)
        else:
            running = state.read_running(build_dir, plan)
        cluster = plan.summary["cluster"]
        if mode == "recorded":
            if running == new and not drifted:
                return dict(result, changed=False, running=state.running_path(build_dir, cluster))
            if not self._task.check_mode:
                attach(plan, new)
                write_build(plan, build_dir)
                state.write_running(build_dir, cluster, new)
            return dict(result, changed=True, running=state.running_path(build_dir, cluster))
        planned = change.plan_change(plan, running, new, drifted)
        roots = phases.write_phases(plan, build_dir, planned) if planned["phases"] else []
        result.update(
            changed=bool(planned["phases"]), cluster=cluster, moves=planned["moves"], lines=notes + planned["lines"],
            running=state.running_path(build_dir, cluster), state_dir=os.path.dirname(state.running_path(build_dir, cluster)),
            phases=[{"name": p["name"], "hosts": p["hosts"], "root": root, "leaves": p["leaves"]}
                    for p, root in zip(planned["phases"], roots)],
            tenants=dict(new.tenants), free=new.free, isolation=new.isolation)
        return result


def _readings(plan, hostvars, name):
    """{leaf: {"acl": {port: tenant}, "vrf": {port: tenant}}} from the running config each rail leaf registered
    as ``name`` (the play's read task), turned into tenants by the leaf's NOS home."""
    from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
    from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home

    out = {}
    for dev in plan.by_role("backend_leaf"):
        found = (hostvars.get(dev.name) or {}).get(name)
        if not isinstance(found, dict) or found.get("failed") or found.get("skipped") or "stdout" not in found:
            continue   # not read: live.running names it
        tenancy = getattr(home(dev.nos), "tenancy", None)
        if tenancy is None:
            raise SpecError("", "%s: reading tenant isolation from a nos: %s switch is not supported yet" % (dev.name, dev.nos))
        try:
            out[dev.name] = tenancy.bindings(found["stdout"])
        except ValueError as exc:
            raise SpecError("", "%s: its running config is not the JSON %s prints (%s)"
                            % (dev.name, tenancy.RUNNING_COMMAND, exc))
    return out
