# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: eos_session
short_description: Bring an EOS switch to its startup-config in one configuration session over eAPI, with rollback
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin) as a task of the switch. Talks HTTPS to the switch's eAPI through
    napalm's eos driver (pyeapi's https transport), the switch's certificate checked against I(ca_path).
  - Loads the config into a new configuration session (C(configure session), C(rollback clean-config), the config's
    lines), keeping the running config's accounts, AAA, eAPI and TLS blocks the config does not have (I(keep)), and
    adds the deploy's record (the description of an unused route-map, C(GPUFABRIC-DEPLOY-RECORD), naming the digest of the session's configuration).
  - The session's diff (C(show session-config named <session> diffs)) is the change; empty, the session is aborted and
    nothing changes. In check mode the diff is shown (with --diff) and the session aborted.
  - Otherwise commits it with EOS's commit timer (C(configure session <session> commit timer), I(confirm_timeout)),
    runs the BGP gate (bgp_gate.py over C(show ip bgp summary) and C(show ip bgp) JSON) until it passes or
    I(bgp_timeout) ends, then confirms (C(configure session <session> commit), C(write memory)); a failed gate aborts
    the session (the previous configuration runs again) and fails saying so. A lost switch is rolled back by its
    timer.
  - A running config that is no longer the one its record names (changed by hand since the last deploy) is refused,
    untouched, unless I(overwrite_changes).
  - I(step=drain) or I(step=undrain) merges only the drain's lines (or their removal) over what runs.
extends_documentation_fragment:
  - gpucluster.fabric.bgp_gate
options:
  config:
    description: The switch's startup-config on the controller (build/<cluster>/devices/<host>/startup-config).
    type: path
  config_content:
    description: Its text instead (drain.yml, which reads no build directory).
    type: str
  api_host:
    description: Address or name of the switch's eAPI.
    type: str
    required: true
  api_port:
    description: Port of the switch's eAPI (HTTPS).
    type: int
    default: 443
  user:
    description: An account of the switch with privilege 15.
    type: str
    required: true
  password:
    description: Its password; never shown.
    type: str
    required: true
  validate_certs:
    description: Check the switch's certificate and name. false only for a lab switch.
    type: bool
    default: true
  ca_path:
    description: CA bundle (PEM) trusted for the switch's certificate; default the system's CAs.
    type: path
  timeout:
    description: Seconds one eAPI request may take.
    type: int
    default: 60
  keep:
    description: Top-level blocks (by their first words) of the running config kept when the config lacks them.
    type: list
    elements: str
  confirm_timeout:
    description: Seconds of EOS's commit timer; 0 commits at once (a failed gate then replaces the running config with flash:rollback-0).
    type: int
    default: 600
  overwrite_changes:
    description: Deploy over a running config changed since the last deploy's record.
    type: bool
    default: false
  step:
    description: change (replace with the config), drain or undrain (merge the drain's lines, or their removal, over what runs).
    type: str
    choices: [change, drain, undrain]
    default: change
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Deploy a spine's startup-config
  gpucluster.fabric.eos_session:
    config: build/eos-lab/devices/{{ inventory_hostname }}/startup-config
    api_host: "{{ ansible_host }}"
    user: automation
    password: "{{ vault_eos_password }}"
    ca_path: /etc/ssl/certs/fabric-ca.pem
"""

RETURN = r"""
differs:
  description: Whether the session's diff was not empty (the same as I(changed), also in check mode).
  returned: success
  type: bool
session:
  description: The configuration session's name.
  returned: success
  type: str
sessions:
  description: The switch's BGP sessions before the change, {peer address, state}.
  returned: the switch answered
  type: dict
"""
