# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter gpucluster.fabric.sonic_gcu_plan (documented in sonic_gcu_plan.yml)."""
from __future__ import annotations

import json

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos.sonic.twin import gcu


def sonic_gcu_plan(running, target, sonic_version, load_tables=None):
    try:
        # Plain JSON data, not Ansible's lazy containers (slow to walk, and config_db is JSON anyway).
        running, target = json.loads(json.dumps(running)), json.loads(json.dumps(target))
        return gcu.load_plan(running, target, sonic_version, list(load_tables or []))
    except gcu.GcuError as e:
        raise AnsibleFilterError(str(e)) from e


class FilterModule:
    def filters(self):
        return {"sonic_gcu_plan": sonic_gcu_plan}
