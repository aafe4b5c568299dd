# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: tenants
short_description: Check a tenant assignment and plan the move from the running one
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin), once for the whole fabric; touches no device.
  - Reads the tenant assignment (which servers each tenant holds, see docs/tenancy.md) and checks it against the
    plan; every problem (unknown server, a server in two tenants, an empty tenant, a bad name) is one line of
    I(msg), and nothing is written.
  - I(state=planned) compares it with the running assignment and
    returns the servers that move and, per phase (C(revoke) then C(grant), or one C(isolate) phase when the fabric
    is not isolated yet), the rail leaves whose isolation changes with their ports and ACLs. The running
    assignment is what the rail leaves enforce, read from them (I(running_from)); without I(running_from), the one
    last recorded under I(build_dir)/state/<cluster>/tenants.yml. Leaves that disagree with the rest (a change
    stopped half way) are re-applied in the first phase. Each phase's switch
    configs are written under I(build_dir)/state/<cluster>/pending/<n>-<phase>/devices/<host>/.
  - I(state=recorded) records the assignment as running and rewrites the build with it; run it after the phases
    were applied. In check mode it only reports.
extends_documentation_fragment:
  - gpucluster.fabric.plan_source
  - gpucluster.fabric.plan_source.build_dir
options:
  assignment:
    description: The tenant assignment file (YAML, see docs/tenancy.md).
    type: path
    required: true
  running_from:
    description:
      - Name of the variable each rail leaf registered with its running config (the output of the command its NOS
        prints it with); C(playbooks/tenants.yml) reads the leaves first.
      - A rail leaf that has no such reading is an error naming it.
    type: str
  state:
    description: Plan the change, or record the assignment as applied.
    type: str
    choices: [planned, recorded]
    default: planned
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Plan the move to the new assignment
  gpucluster.fabric.tenants:
    assignment: inventories/lab/lab.tenants.yml
  register: tenant_change

- name: Record it once every phase was applied
  gpucluster.fabric.tenants:
    assignment: inventories/lab/lab.tenants.yml
    state: recorded
"""

RETURN = r"""
lines:
  description: The change as a person reads it (servers moving, phases, leaves, ports, ACLs).
  returned: state is planned
  type: list
  elements: str
moves:
  description: Servers whose tenant changes (C(from) is C(open) when the fabric was not isolated).
  returned: state is planned
  type: list
  elements: dict
phases:
  description: In order; each with C(name), C(hosts) (the switches it changes), C(root) (their configs) and C(leaves).
  returned: state is planned
  type: list
  elements: dict
isolation:
  description: The new assignment's isolation mode, C(acl) or C(vrf).
  returned: state is planned
  type: str
running:
  description: Path of the running assignment.
  returned: success
  type: str
state_dir:
  description: The cluster's state directory (build_dir/state/<cluster>), which the phases' deploy roles keep their state in.
  returned: a change is planned
  type: str
problems:
  description: One line per problem of a rejected assignment.
  returned: failure
  type: list
  elements: str
"""
