# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.twin: build, check or remove the virtual twin, once, on the controller."""
from __future__ import annotations

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.tenants.state import assignment_for
from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction

STATES = ("present", "absent", "verified")


class ActionModule(PlannedAction):
    PROGRESS = "twin"
    _VALID_ARGS = frozenset(("state", "spec", "build_dir", "tenants", "timeout", "frr_config"))

    def planned(self, result, args, task_vars):
        # Imported here: the twin needs the switch rendering, which pulls in Jinja2 only when used.
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric import build, twin

        state = args.get("state", "present")
        if state not in STATES:
            return dict(result, failed=True, msg="state must be one of %s, got %r" % (", ".join(STATES), state))
        progress = self.progress
        _path, plan, build_dir = self.plan(args, task_vars)
        assignment_for(plan, build_dir, args.get("tenants"))   # the twin's leaves enforce the running tenant assignment
        cluster = plan.summary["cluster"]
        problem = twin.preflight()
        if problem:
            return dict(result, failed=True, msg=problem)
        try:
            started = progress.elapsed()
            wanted = twin.build_twin(plan, build.render_all(plan),
                                     boot="factory" if args.get("frr_config") == "factory" else "build")
            progress.phase("render", len(wanted.namespaces), "namespaces", progress.elapsed() - started)
            started = progress.elapsed()
            if state == "absent":
                before = twin.read_state(cluster) or {}
                names = set(before.get("namespaces", ())) | set(before.get("devices", ())) | set(wanted.namespaces)
                report = twin.down(cluster, wanted.namespaces)
                progress.phase("down", len(report["changes"]), "changes", progress.elapsed() - started)
                # What teardown left of this cluster's twin (namespaces, processes, FRR and state directories, the
                # planes' own files) fails the task, naming it.
                left = twin.leftovers(cluster, sorted(names))
                result.update(changed=report["changed"], changes=report["changes"], seconds=report["seconds"],
                              leftovers=left, progress=progress.total())
                if left:
                    result.update(failed=True, msg="the twin of %s left %d things behind: %s"
                                  % (cluster, len(left), ", ".join(left[:10])))
                return result
            if state == "present":
                if self._task.check_mode:
                    return dict(result, changed=True, msg="check mode: the twin is not inspected nor changed")
                report = twin.up(wanted, timeout=float(args.get("timeout", 90)),
                                 frr_config=args.get("frr_config", "rendered"))
                progress.phase("up and converged", len(report.get("changes", ())), "changes", progress.elapsed() - started)
                result.update(report, cluster=cluster, progress=progress.total())
                return result
            report = twin.verify(plan)
            progress.phase("checks", len(report["results"]), "results", progress.elapsed() - started)
            result["progress"] = progress.total()
        except (twin.TwinError, OSError) as exc:
            return dict(result, failed=True, msg=str(exc))
        failed = [r._asdict() for r in report["results"] if r.status in ("FAIL", "ERROR")]
        total = len(report["results"])
        result.update(changed=False, counts=report["counts"], failures=failed[:50], failed=bool(failed),
                      msg="%d of %d check results failed" % (len(failed), total) if failed
                      else "checks passed: %d results, none failed" % total)
        return result
