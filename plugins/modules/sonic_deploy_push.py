# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: sonic_deploy_push
short_description: Write a file to a SONiC switch and act on it, in one transfer and one command, for sonic_deploy
version_added: 0.1.0
description:
  - An action plugin, run on the controller, used by the sonic_deploy role for each step that writes a file and acts
    on it (the target config_db then C(config replace), the rows for C(config load), frr.conf then FRR's reload).
  - The content is transferred through the connection as the login user to C(/tmp/.gpufabric-<host>-<name>.part),
    then one command line installs it as I(dest) with I(mode) and runs I(then), under the task's C(become). No
    Python runs on the switch.
  - Fails naming I(dest), the command and its last line of error when the command line fails.
  - Does nothing in check mode.
options:
  content:
    description: The file's text.
    type: str
    required: true
  dest:
    description: Where the file goes on the switch.
    type: str
    required: true
  mode:
    description: Its permissions.
    type: str
    default: "0644"
  then:
    description: A command run right after the file is in place, in the same command line (e.g. C(config replace FILE)).
    type: str
  compare:
    description: When I(dest) already holds the content, leave it, do not run I(then), and report no change.
    type: bool
    default: false
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Install frr.conf and reload FRR with it
  become: true
  gpucluster.fabric.sonic_deploy_push:
    content: "{{ lookup('ansible.builtin.file', 'build/lab/devices/lab-spine01/frr.conf') }}"
    dest: /etc/sonic/frr/frr.conf
    then: docker exec bgp /usr/lib/frr/frr-reload.py --reload /etc/frr/frr.conf
"""

RETURN = r"""
rc:
  description: The command line's exit status.
  returned: when run
  type: int
stdout:
  description: What it printed.
  returned: when run
  type: str
stderr:
  description: What it printed on stderr.
  returned: when run
  type: str
"""
