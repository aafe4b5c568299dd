# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations


class ModuleDocFragment:
    # The BGP gate of a deploy from the controller (plugins/plugin_utils/switch_action.py, BGP_GATE_ARGS).
    DOCUMENTATION = r"""
options:
  device:
    description: The switch's structured config (its build's C(structured.yml)); its BGP neighbours turn the gate on.
    type: dict
  peers:
    description: The structured configs of its BGP neighbours that are in the build (what each must send).
    type: list
    elements: dict
    default: []
  bgp_gate:
    description:
      - Which planned sessions must be Established after the change; C(all), C(established_before), or C(auto)
        (every planned session the switch had before, on a running fabric; those that were up on a first bring-up).
    type: str
    default: auto
    choices: [auto, all, established_before]
  bgp_timeout:
    description: Seconds the BGP gate may take to pass before the change is rolled back.
    type: float
    default: 180
  bgp_poll:
    description: Seconds between two reads of the switch's BGP state.
    type: float
    default: 10
"""
