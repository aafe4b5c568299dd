# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter gpucluster.fabric.sonic_bgp_gate (documented in sonic_bgp_gate.yml)."""
from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.bgp_gate import deploy_gate


def sonic_bgp_gate(state, device, summary_before, gate="auto", peers=None):
    try:
        return deploy_gate(state, device, summary_before, gate, peers or [])
    except ValueError as exc:
        raise AnsibleFilterError(str(exc))


class FilterModule:
    def filters(self):
        return {"sonic_bgp_gate": sonic_bgp_gate}
