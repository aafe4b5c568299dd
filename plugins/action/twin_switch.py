# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.twin_switch: apply one twin switch's own part (its namespace, its tenant VRF
namespaces, FRR, port ACLs) from its rendered files, on the controller, as the switch's own task."""
from __future__ import annotations

import os

from ansible.plugins.action import ActionBase

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.specfile import plan_for_task

FILES = ("config_db.json", "frr.conf", "structured.yml")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("build_root", "spec", "timeout"))

    def run(self, tmp=None, task_vars=None):
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric import twin

        result = super().run(tmp, task_vars)
        args = self._task.args
        host = task_vars["inventory_hostname"]
        root = args.get("build_root")
        if not root:
            return dict(result, failed=True, msg="build_root: give the directory holding devices/%s/" % host)
        files = {}
        for name in FILES:
            path = os.path.join(root, "devices", host, name)
            try:
                with open(path, encoding="utf-8") as f:
                    files["devices/%s/%s" % (host, name)] = f.read()
            except OSError as exc:
                return dict(result, failed=True, msg="%s: %s" % (path, exc.strerror))
        try:
            _path, plan, _build_dir = plan_for_task(args, task_vars)
            part = twin.switch_part(plan, files, host)
            if self._task.check_mode:
                return dict(result, changed=twin.part_differs(part, host), namespaces=sorted(part.namespaces))
            report = twin.up_switch(part, host, timeout=float(args.get("timeout", 90)))
        except (SpecError, twin.TwinError, OSError) as exc:
            return dict(result, failed=True, msg=str(exc))
        result.update(report, namespaces=sorted(part.namespaces))
        return result
