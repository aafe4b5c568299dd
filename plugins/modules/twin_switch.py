# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: twin_switch
short_description: Apply one twin switch's own part of the virtual twin from its rendered files
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin) as a task of the switch, so the play shows the switch
    as changed. Needs root, FRR and lldpd, and a running twin (M(gpucluster.fabric.twin)).
  - Makes the switch's network namespace, and one namespace per tenant VRF of its rendered C(config_db.json)
    (tenant isolation in VRF mode), hold what its rendered files say; VRF namespaces the switch no longer
    has are removed. The rendered C(frr.conf) is translated for the twin (docs/twin.md, tenant VRFs) and
    reloaded with frr-reload; port ACLs are loaded as nftables. Waits until the switch's BGP sessions
    are Established.
  - Idempotent; in check mode reports whether anything would change, changing nothing.
options:
  build_root:
    description: A directory holding C(devices/<hostname>/) with C(config_db.json), C(frr.conf) and C(structured.yml)
      (a build, or a phase of M(gpucluster.fabric.tenants)).
    type: path
    required: true
  spec:
    description: The cluster spec file; by default the inventory's.
    type: path
  timeout:
    description: Seconds to wait for the switch's BGP sessions.
    type: float
    default: 90
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Apply a tenant change phase to a twin leaf
  gpucluster.fabric.twin_switch:
    build_root: "{{ tenant_phase_root }}"
"""

RETURN = r"""
changes:
  description: What was changed, one line each.
  returned: changed
  type: list
  elements: str
namespaces:
  description: The switch's namespaces (its own and its tenant VRFs').
  returned: success
  type: list
  elements: str
"""
