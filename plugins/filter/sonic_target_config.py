# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter gpucluster.fabric.sonic_target_config (documented in sonic_target_config.yml)."""
from __future__ import annotations

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home


def sonic_target_config(running, rendered):
    return home("sonic").target_config(running, rendered)


class FilterModule:
    def filters(self):
        return {"sonic_target_config": sonic_target_config}
