# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations


class ModuleDocFragment:
    # Which spec a controller-side action plans. Every action takes it.
    DOCUMENTATION = r"""
options:
  spec:
    description:
      - Path of the cluster spec (C(*.topology.yml)).
      - Default is the one spec among the inventory sources (C(-i)).
    type: path
"""

    # Where the build lives: the actions that read or write build/ (gpucluster.fabric.plan_source.build_dir).
    BUILD_DIR = r"""
options:
  build_dir:
    description: Directory holding C(<cluster>/) (the build, the plan, validation reports). Default is C(build) in the current directory.
    type: path
"""

    # The actions that plan with switches drained for this task (gpucluster.fabric.plan_source.drain).
    DRAIN = r"""
options:
  drain:
    description:
      - Switches planned as drained for this task, on top of the spec's C(maintenance.drained) (C(playbooks/drain.yml)).
    type: list
    elements: str
  undrain:
    description: Switches planned as not drained for this task, whatever C(maintenance.drained) says.
    type: list
    elements: str
"""

    # The actions that plan with a failed server swapped for a spare for this task (gpucluster.fabric.plan_source.swap).
    SWAP = r"""
options:
  replace:
    description:
      - A mapping of failed server to the spare standing in for it, on top of the spec's
        C(maintenance.replaced) for this task only (C(playbooks/spare.yml)).
    type: dict
  restore:
    description: Failed servers whose swap is dropped from C(maintenance.replaced) for this task only.
    type: list
    elements: str
"""

    # The actions that read the running tenant assignment (gpucluster.fabric.plan_source.tenants).
    TENANTS = r"""
options:
  tenants:
    description:
      - The tenant assignment file (a project file) whose isolation the fabric holds.
      - Default is the assignment C(playbooks/tenants.yml) last recorded under I(build_dir), when there is one;
        a job that starts without that directory (AWX) gives the file here.
    type: path
"""
