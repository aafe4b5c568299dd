# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: build
short_description: Render the configuration of every switch of a GPU cluster
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin), once for the whole fabric. It plans the cluster from its spec,
    derives each switch's structured config and renders it by the home of the switch's NOS (C(nos) of its spec
    role; docs/architecture.md), e.g. C(config_db.json) and C(frr.conf), or C(startup.yaml).
  - Writes I(build_dir)/<cluster>/ with C(plan.json), C(summary.json) and, per switch,
    C(devices/<host>/structured.yml) and the files its NOS boots from.
  - The new tree is written beside the old one and swapped in with renames, so a reader never sees half a build;
    when nothing changed nothing is touched and the task reports no change. The output is byte-identical on every run.
  - Switches and servers are rendered and written in batches, so memory does not grow with the fabric. The tree's
    C(.build-manifest), written last, holds a hash of the build's inputs (spec, tenant assignment, collection code
    and version) and of every file; a full build whose inputs hash the same over untouched files renders nothing.
    A build directory of other inputs, edited by hand or left by a killed run is rendered again and compared,
    never mixed.
  - Touches no device. In check mode it only reports what would change.
  - Rail leaves get tenant isolation (port ACLs) from the tenant assignment, see docs/tenancy.md.
  - With I(yang_models), every switch's rendered configuration is first validated by its NOS's schema gate against
    those models (the YANG models the switch itself checks a target config against); any problem fails the task
    and nothing is written.
extends_documentation_fragment:
  - gpucluster.fabric.plan_source
  - gpucluster.fabric.plan_source.build_dir
  - gpucluster.fabric.plan_source.drain
  - gpucluster.fabric.plan_source.swap
options:
  check_stage:
    description:
      - In check mode, also write the build as it would be now into a temporary directory,
        C(gpufabric-check-<cluster>) under the system's temporary directory (never into I(build_dir)), and return
        that as I(build_root), so that later tasks compare devices with it (C(deploy.yml --check --diff)). The
        caller removes I(check_stage_dir); the next check run replaces it if a run stopped before that.
    type: bool
    default: false
  rollout:
    description:
      - Also return the rollout's waves (I(rollout)), as build/<cluster>/rollout.json lists them, worked out from the
        plan whatever I(devices) selects; deploy.yml rolls the switches that differ from their build in that order.
    type: bool
    default: false
  tenants:
    description:
      - A tenant assignment file to render the isolation from.
      - Default is the running assignment, I(build_dir)/state/<cluster>/tenants.yml, written by
        C(playbooks/tenants.yml); without one the fabric is rendered open (no tenant ACLs).
    type: path
  yang_models:
    description:
      - Directory of the switches' NOS YANG models, e.g. a copy of C(/usr/local/yang-models) from a switch of the
        release you run (docs/architecture.md, the schema gate of each NOS home). Needs the C(libyang) Python
        package (requirements.txt) and Debian's C(libyang2).
    type: path
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Render every switch's configuration under build/<cluster>/
  gpucluster.fabric.build:
    build_dir: "{{ playbook_dir }}/../build"
  run_once: true
  register: fabric_build
"""

RETURN = r"""
cluster:
  description: Cluster name (the directory under I(build_dir)).
  returned: success
  type: str
  sample: lab
build_root:
  description: The directory written, I(build_dir)/<cluster>; with I(check_stage) in check mode, the temporary one.
  returned: success
  type: str
rollout:
  description: With I(rollout), the waves in deploy order, each a C(role) and its C(members) (build/<cluster>/rollout.json
    says why each can go together and the capacity it leaves).
  returned: with rollout
  type: list
  elements: dict
check_stage_dir:
  description: The temporary directory holding the staged build (to remove after use).
  returned: check mode with I(check_stage)
  type: str
switches:
  description: Number of switches rendered.
  returned: success
  type: int
  sample: 27
changed_count:
  description: Number of files added, changed or removed.
  returned: success
  type: int
changed_paths:
  description: The first 50 of those files, relative to I(build_root).
  returned: success
  type: list
  elements: str
yang_validated:
  description: Whether the configs were validated against I(yang_models).
  returned: success
  type: bool
problems:
  description: On a failed validation, the first 50 problems, each naming switch, table, key, field and rule.
  returned: failure
  type: list
  elements: str
spec:
  description: The spec file built.
  returned: success
  type: str
"""
