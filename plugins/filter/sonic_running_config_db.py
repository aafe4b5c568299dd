# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter gpucluster.fabric.sonic_running_config_db (documented in sonic_running_config_db.yml)."""
from __future__ import annotations

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home


def sonic_running_config_db(running):
    return home("sonic").running_config_db(running)


class FilterModule:
    def filters(self):
        return {"sonic_running_config_db": sonic_running_config_db}
