# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: spare_plan
short_description: Check a hot-spare swap and name the switches it changes
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin) and changes nothing.
  - Plans the spec with I(failed) replaced by I(spare) and without that swap (the spec's own
    C(maintenance.replaced) otherwise), each with the running tenant assignment, and returns the switches whose
    structured config differs between the two. A swap and its restore change the same switches.
  - A swap the spec cannot have (not a spare, another scalable unit, a spare standing in twice, a spare in a
    tenant) fails in one line naming the key.
extends_documentation_fragment:
  - gpucluster.fabric.plan_source
  - gpucluster.fabric.plan_source.build_dir
  - gpucluster.fabric.plan_source.tenants
options:
  failed:
    description: Hostname of the failed GPU server.
    type: str
    required: true
  spare:
    description: Hostname of the spare standing in for it (a position of C(servers.spares_per_unit)).
    type: str
    required: true
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Which switches does swapping lab-gpu0001 for lab-gpu0002 change?
  gpucluster.fabric.spare_plan:
    failed: lab-gpu0001
    spare: lab-gpu0002
  register: swap
"""

RETURN = r"""
switches:
  description: Switches whose configuration differs between the plan with the swap and without it.
  returned: success
  type: list
  elements: str
"""
