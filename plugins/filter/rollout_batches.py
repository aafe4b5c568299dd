# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter gpucluster.fabric.rollout_batches (documented in rollout_batches.yml)."""
from __future__ import annotations

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.day2.rollout import pending_batches


def rollout_batches(waves, pending):
    return pending_batches(waves, pending or [])


class FilterModule:
    def filters(self):
        return {"rollout_batches": rollout_batches}
