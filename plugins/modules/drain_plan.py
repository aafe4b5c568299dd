# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: drain_plan
short_description: Decide whether a switch may be drained and give the commands that drain or undrain it
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin) and changes nothing.
  - For I(state=drained), refuses when the drain would leave two leaves of one plane without a path through
    switches not drained (the last path of their server pairs), and refuses a backend leaf, the only leaf of
    its servers' rail, unless I(confirm_leaf) is true.
  - For I(state=undrained), refuses a switch that the spec keeps drained (C(maintenance.drained)).
  - Returns the vtysh configuration commands that drain or undrain the running switch without a reload, the same
    lines C(frr.conf) holds for a drained switch (see docs/operations.md).
extends_documentation_fragment:
  - gpucluster.fabric.plan_source
options:
  switch:
    description: Hostname of the switch.
    type: str
    required: true
  state:
    description: Drained or undrained.
    type: str
    choices: [drained, undrained]
    default: drained
  confirm_leaf:
    description: Drain a backend leaf although its servers lose that rail while it is down.
    type: bool
    default: false
  native:
    description:
      - Also return the switch's own configuration files in each state (I(native_config), I(native_config_before)),
        for a deploy role whose NOS keeps its routing there (an NVUE startup.yaml, say).
      - Without it, a switch whose NOS has no frr.conf is refused (vtysh and a file cannot drain it); drain.yml asks for
        it on a NOS whose routing is in its own configuration (group variable C(fabric_routing_native)).
    type: bool
    default: false
  wave:
    description:
      - The switches drained at the same time as I(switch) (a wave of build/<cluster>/rollout.json, which deploy.yml
        follows). For I(state=drained) the last-path refusal judges the wave and I(switch) together, as one drain.
      - Names not routed switches of the cluster are refused; I(switch) itself may be listed or not.
    type: list
    elements: str
    default: []
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: May lab-spine01 be drained?
  gpucluster.fabric.drain_plan:
    switch: lab-spine01
  register: drain
"""

RETURN = r"""
commands:
  description: vtysh commands, in order, that drain (or undrain) the switch.
  returned: success
  type: list
  elements: str
neighbours:
  description: Switches with a routed cable to it.
  returned: success
  type: list
  elements: str
costs:
  description: What the drain costs (servers losing a rail or a frontend link).
  returned: always
  type: list
  elements: str
confirm_needed:
  description: True when draining the switch takes a rail from its servers (a backend leaf), so it needs I(confirm_leaf).
  returned: when the spec loads
  type: bool
sessions:
  description: Neighbour addresses of the switch's planned BGP sessions.
  returned: success
  type: list
  elements: str
frr_conf:
  description: The switch's frr.conf of the current build in the requested state.
  returned: success, for a NOS whose routing is in frr.conf
  type: str
native_config:
  description: With I(native), the switch's configuration files of the current build in the requested state, by file name.
  returned: success, with I(native)
  type: dict
native_config_before:
  description: The same in the other state.
  returned: success, with I(native)
  type: dict
frr_conf_before:
  description: The same in the other state; when the switch runs it, the role writes I(frr_conf) so a restart keeps the state.
  returned: success, for a NOS whose routing is in frr.conf
  type: str
marker:
  description: The line of FRR's running configuration present exactly while the switch is drained.
  returned: success
  type: str
network:
  description: backend or frontend.
  returned: success
  type: str
cluster:
  description: The cluster's name (build/<cluster>).
  returned: success
  type: str
kept_drained:
  description: Switches the spec keeps drained (maintenance.drained).
  returned: success
  type: list
  elements: str
"""
