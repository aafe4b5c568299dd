# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.growth: compare the current build with the one before it, write what to cable."""
from __future__ import annotations

import os

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.build_tree import PREVIOUS_SUFFIX
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric import growth
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.files import write_atomic
from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction

GROWTH_SUFFIX = ".growth.md"


class ActionModule(PlannedAction):
    _VALID_ARGS = frozenset(("spec", "build_dir", "previous"))

    def planned(self, result, args, task_vars):
        _path, plan, build_dir = self.plan(args, task_vars)
        root = os.path.join(build_dir, plan.summary["cluster"])
        previous = args.get("previous") or root + PREVIOUS_SUFFIX
        if not os.path.isdir(previous):
            return dict(result, failed=True, msg="previous: no build at %s: build the spec before the growth first "
                        "(playbooks/build.yml), then grow it" % previous)
        try:
            found = growth.compare_builds(growth.read_build(previous), growth.read_build(root), plan)
        except ValueError as exc:   # a previous build without a plan or cabling plan
            return dict(result, failed=True, msg="previous: %s: %s" % (previous, exc))
        document = root + GROWTH_SUFFIX
        written = False if self._task.check_mode else write_atomic(document, found["document"])
        delta = found["delta"]
        result.update(changed=written, document=document, previous=previous, new_cables=len(delta["new"]),
                      moved_cables=[new["cable_id"] for _old, new in delta["moved"]],
                      removed_cables=[r["cable_id"] for r in delta["removed"]],
                      changed_switches=found["changed"], new_switches=found["new_devices"],
                      must_change=found["must"], unexpected=found["unexpected"], missing=found["missing"])
        return result
