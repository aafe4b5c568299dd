# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: cumulus_nvue_deploy
short_description: Deploy a Cumulus Linux switch's NVUE startup.yaml through the NVUE REST API, with rollback
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin) as a task of the switch. Talks HTTPS to the switch's NVUE REST API
    (Cumulus Linux 5.x, C(/nvue_v1), basic authentication), as NVIDIA's user guide describes it.
  - Checks I(startup) against NVIDIA's NVUE object model of its release first (the collection's schema gate) and
    sends nothing when it fails.
  - Reads the applied configuration (C(rev=applied), C(filled=false)) and compares it with the target, the
    C(set) documents of I(startup) plus whatever the switch has under I(keep) and the target does not set. Equal,
    nothing is sent. In check mode, reports the difference and applies nothing; with C(--diff) and I(cli), NVUE's
    own (C(nv config diff applied <rev>) of a pending revision holding the change, deleted unapplied), else as YAML.
  - Otherwise creates a revision, PATCHes the JSON merge patch from the applied configuration to the target
    into it (C(null) unsets), applies it with C(auto-prompt) C(ays_yes) and polls its state for at most
    I(timeout) seconds. Applied and equal to the target, the revision is saved (C(nv config save)) unless
    I(save=false).
  - A change the switch refuses (HTTP 400 naming the path, or a revision ending C(invalid), C(ays_fail),
    C(apply_fail)) fails the task with NVUE's message, the previous configuration still running. Anything
    failing after the configuration changed (an apply that did not end in time, a configuration other than the
    target, a save that did not take) puts the configuration read before back (delete and root patch in a new
    revision, applied and saved) and fails the task saying so.
  - With I(device) naming BGP neighbours, the BGP gate runs after the apply and before the save, over the switch's
    FRR (I(vtysh_command) through the task's connection), as every deploy role of the collection does (its
    C(bgp_gate)). It requires every session I(bgp_gate) selects Established, the switch's own announcements, and
    from each neighbour at least what its build (I(peers)) originates. Still failing after I(bgp_timeout) seconds, the
    configuration read before is put back as for a failed apply, and the task fails naming each session and prefix.
  - With I(cli) (the default), the revision is applied through C(nv) on the switch, over the task's connection as
    the BGP gate reads FRR, C(nv config apply <rev> -y --confirm <N>s -m <record>) (NVUE's confirm timer, documented
    for the CLI only), and confirmed (C(--confirm-yes)) once the read-back and the BGP gate pass, or rolled back at
    once (C(--confirm-no)) when they fail. A change that cuts the controller off from the switch is not confirmed, and the
    switch's timer rolls it back by itself, and the task waits for the switch to answer again with the previous
    configuration (bounded by the timer) and fails saying so.
  - The message of each apply (C(nv config history)) is the deploy's record, a digest of the configuration it left.
    A switch whose running configuration differs from the last record is refused untouched, naming what changed (see
    I(overwrite_changes)); a switch with no record (factory-empty, or never deployed by this collection) is deployed.
  - The password is never returned or shown (no_log).
extends_documentation_fragment:
  - gpucluster.fabric.bgp_gate
options:
  startup:
    description:
      - The switch's NVUE C(startup.yaml) (a list of C(header) and C(set) documents), as the build renders it.
      - One of I(startup) and I(startup_content) is required.
    type: path
  startup_content:
    description:
      - The text of that C(startup.yaml), instead of I(startup) (role C(cumulus_deploy)'s C(shift), which reads no build
        directory).
    type: str
  api_host:
    description: Address or name of the switch's NVUE API.
    type: str
    required: true
  api_port:
    description: Port of the NVUE API (C(nv set system api port)).
    type: int
    default: 8765
  user:
    description: An account of the switch allowed to apply configuration (group C(nvapply)).
    type: str
    required: true
  password:
    description: Its password. Keep it in Ansible Vault.
    type: str
    required: true
  validate_certs:
    description: Check the switch's certificate and name. Turn off only for a lab switch with its self-signed certificate.
    type: bool
    default: true
  ca_path:
    description: A CA bundle (PEM) trusted for the switch's certificate; the system's trust store by default.
    type: path
  keep:
    description:
      - Dotted NVUE paths a deploy never unsets when the target does not set them.
      - By default C(system.aaa), C(system.api), C(system.security), C(system.config) (accounts, the API itself, certificates).
    type: list
    elements: str
  timeout:
    description: Seconds an apply (and the save after it) may take before the switch is rolled back.
    type: float
    default: 180
  poll:
    description: Seconds between two reads of a revision's state.
    type: float
    default: 2
  request_timeout:
    description: Seconds one HTTP request may take.
    type: float
    default: 30
  save:
    description: Save the applied configuration as the startup configuration (C(nv config save)).
    type: bool
    default: true
  release:
    description: The Cumulus Linux release whose object model checks I(startup); by default the one its header names.
    type: str
  cli:
    description:
      - Apply through C(nv) on the switch (the task's connection), with NVUE's confirm timer and the deploy's record in
        the switch's revision history (the hand-change guard). false applies through the API alone, with neither (a
        connection that runs no command).
    type: bool
    default: true
  confirm_timeout:
    description:
      - Seconds the switch waits for the deploy to confirm an applied revision (C(nv config apply --confirm)) before it
        rolls it back by itself. Covers the read-back and the BGP gate. 0 applies without the timer.
    type: float
    default: 600
  overwrite_changes:
    description: Deploy over a configuration changed since the last deploy (the change is lost); no history is read.
    type: bool
    default: false
  vtysh_command:
    description: How FRR's vtysh is run on the switch (the inventory's C(fabric_vtysh_command)).
    type: str
    default: sudo vtysh
  drained_content:
    description:
      - The text of I(startup) in its drained form (the switch in the spec's C(maintenance.drained)), as action
        C(gpucluster.fabric.drain_plan) gives it with I(native=true) in C(native_config).
      - With I(step=change), the switch is brought to this form instead of I(startup).
    type: str
  step:
    description:
      - C(change) brings the switch to I(startup), or to I(drained_content) when given.
      - C(drain) adds to the configuration that runs only what the drain adds (the difference between I(startup) and
        I(drained_content)), in a revision of its own, under the same BGP gate and rollback; it needs
        I(drained_content). Role C(cumulus_deploy) runs C(drain), C(change) to the drained form, then C(change) to
        I(startup).
      - C(undrain) takes from the configuration that runs only what the drain added, in a revision of its own (it needs
        I(drained_content)); drain.yml and undrain.yml use C(drain) and C(undrain).
    type: str
    choices: [change, drain, undrain]
    default: change
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Deploy a leaf's startup.yaml
  gpucluster.fabric.cumulus_nvue_deploy:
    startup: build/cumulus-lab/devices/{{ inventory_hostname }}/startup.yaml
    api_host: "{{ ansible_host }}"
    user: automation
    password: "{{ vault_nvue_password }}"
    ca_path: /etc/ssl/certs/fabric-ca.pem
"""

RETURN = r"""
differs:
  description: Whether the switch differed from the target (the same as I(changed), also in check mode).
  returned: success
  type: bool
revision:
  description: The NVUE revision the change was applied as.
  returned: changed and not check mode
  type: str
release:
  description: The Cumulus Linux release whose object model checked the file.
  returned: always
  type: str
problems:
  description: What the object model refused, one line each (switch, path, NVIDIA's type).
  returned: the schema gate failed
  type: list
  elements: str
"""
