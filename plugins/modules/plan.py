# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: plan
short_description: Plan a GPU cluster from its spec and write the plan
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin); plans the whole cluster once and writes
    C(plan.json) (every device, rack and cable with addresses and ASNs) and C(summary.json)
    under I(build_dir)/<cluster>/, each written atomically and only when its content changed.
  - In check mode nothing is written.
extends_documentation_fragment:
  - gpucluster.fabric.plan_source
  - gpucluster.fabric.plan_source.build_dir
  - gpucluster.fabric.plan_source.drain
options:
  write:
    description: Write the files; false only computes the summary.
    type: bool
    default: true
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Plan the cluster of the inventory and show the summary
  gpucluster.fabric.plan:
    build_dir: "{{ playbook_dir }}/../build"
  register: plan
"""

RETURN = r"""
summary:
  description: GPUs, servers, switches by role and rail, links per tier, oversubscription, largest cluster.
  returned: success
  type: dict
summary_lines:
  description: The summary as text lines.
  returned: success
  type: list
  elements: str
written:
  description: Files that changed.
  returned: success
  type: list
  elements: str
plan_dir:
  description: Directory holding plan.json and summary.json.
  returned: success
  type: str
spec:
  description: The spec file planned.
  returned: success
  type: str
"""
