# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter gpucluster.fabric.sonic_yang_problems (documented in sonic_yang_problems.yml)."""
from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home


def sonic_yang_problems(config, models_dir, device="config_db"):
    try:
        return home("sonic").yang_problems(config, models_dir, device)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule:
    def filters(self):
        return {"sonic_yang_problems": sonic_yang_problems}
