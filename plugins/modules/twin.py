# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: twin
short_description: The virtual twin of the cluster on this machine, with real FRR and lldpd
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin), once for the whole cluster. Needs root, FRR and lldpd.
  - I(state=present) makes every switch and server a network namespace named after its inventory hostname,
    every planned backend and frontend cable a veth pair carrying the plan's interface names, and the OOB
    network one Linux bridge in the namespace C(<cluster>-oob) carrying the management addresses. Switch
    ports take MTUs and addresses from the rendered C(config_db.json); each switch runs zebra, bgpd and bfdd
    (as its rendered C(frr.conf) needs) with FRR pathspace C(-N <hostname>); every device runs lldpd.
    Servers get their rail NIC addresses, MTU 9000 and one routing table plus one C(ip rule) per NIC.
    Idempotent; waits until every BGP session is Established.
  - I(state=verified) checks the running twin against the plan with the validation runner of
    M(gpucluster.fabric.validate_fabric) over the netns transport, on the backend and the frontend (cabling,
    links, MTU, BGP sessions, ECMP width, rail reachability, server addressing and routing; sources a twin lacks SKIP)
    and fails when a result is FAIL or ERROR.
  - I(state=absent) removes every namespace, cable, process and file the twin made, and fails naming what is left
    (returned as C(leftovers)).
  - See docs/twin.md.
extends_documentation_fragment:
  - gpucluster.fabric.plan_source.tenants
options:
  state:
    description: What to do with the twin.
    type: str
    choices: [present, absent, verified]
    default: present
  spec:
    description: Path of the cluster spec. Default is the one spec among the inventory sources (C(-i)).
    type: path
  build_dir:
    description:
      - Directory holding C(state/<cluster>/tenants.yml), the running tenant assignment; when it exists, the
        twin's rail leaves enforce it with nftables (see docs/tenancy.md). Default is C(build) in the current directory.
    type: path
  timeout:
    description: Seconds to wait for BGP convergence with I(state=present).
    type: int
    default: 90
  frr_config:
    description:
      - C(rendered) starts FRR with the rendered C(frr.conf). C(blank) starts it without routing config and
        leaves an installed C(frr.conf) alone, for C(playbooks/deploy.yml) to install and reload the rendered one.
      - C(factory) does the same and boots each switch from its NOS's factory state (the configuration the NOS's first
        boot writes for its platform, or what the switch saved since), for C(playbooks/deploy.yml) to take it to the
        plan (docs/twin.md, "Factory state").
    type: str
    choices: [rendered, blank, factory]
    default: rendered
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Build the twin of the inventory's cluster
  gpucluster.fabric.twin:
    state: present
  run_once: true

- name: Check it against the plan
  gpucluster.fabric.twin:
    state: verified
  run_once: true
"""

RETURN = r"""
changes:
  description: What was created, changed or removed; empty when nothing was.
  returned: state is present or absent
  type: list
  elements: str
seconds:
  description: Wall time of the task.
  returned: state is present or absent
  type: float
leftovers:
  description: What of the cluster's twin is still on the machine after the removal (namespaces, processes, FRR and
    state directories, the NOS stand-ins' files); the task fails when it is not empty.
  returned: state is absent
  type: list
  elements: str
converged:
  description: Seconds from the end of the setup until every BGP session was Established.
  returned: state is present and frr_config is rendered
  type: float
counts:
  description: Number of results per status (PASS, FAIL, SKIP, ERROR).
  returned: state is verified
  type: dict
failures:
  description: The first 50 failed results, each with device, check, object, status and message.
  returned: state is verified
  type: list
  elements: dict
"""
