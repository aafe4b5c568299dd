# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: sonic_deploy_read
short_description: Read a SONiC switch once and compare it with its build, for the sonic_deploy role
version_added: 0.1.0
description:
  - An action plugin, run on the controller. It sends the switch one command line through the connection, as
    C(ansible.builtin.raw) does (no Python starts on the switch). Its sections are separated by marker lines
    carrying each command's exit status.
  - With I(mode=pending) it reads C(show runningconfiguration all) and the installed frr.conf's checksum, and
    returns C(fabric_deploy_pending), whether the switch differs from its build (deploy.yml's first pass).
  - With I(mode=full) it also reads frr.conf whole (kept to restore it on rollback), C(/etc/sonic/sonic_version.yml)
    and the BGP summary before the change, and it works out, on the controller, everything the role decided in
    separate tasks before, namely the target config_db (what C(config replace) is given), whether config_db and
    frr.conf differ, the offline check against SONiC's YANG models and what the Generic Config Updater would
    refuse (the switch is then left unchanged, and the task fails naming each refusal).
  - Changes nothing. In check mode it reports C(changed) when the switch differs, and with C(--diff) it shows the
    config_db and frr.conf differences.
options:
  build_root:
    description: The cluster's build directory (C(devices/<host>/structured.yml), C(frr.conf), C(config_db.json)).
    type: path
    required: true
  mode:
    description: C(pending) (does the switch differ?) or C(full) (everything a deploy of it needs).
    type: str
    choices: [pending, full]
    default: full
  config_db:
    description: Whether config_db is compared and pushed (C(sonic_deploy_config_db)).
    type: bool
    default: true
  frr_conf_path:
    description: Where frr.conf is installed on the switch.
    type: str
    required: true
  vtysh_command:
    description: How FRR's vtysh is reached on the switch (I(mode=full) reads the BGP summary with it).
    type: str
    default: docker exec bgp vtysh
  yang_models:
    description: A directory of SONiC's YANG models; the target is checked against them when given.
    type: str
    default: ""
  gcu_load_tables:
    description: Tables whose new rows the Generic Config Updater refuses and C(config load) writes first.
    type: list
    elements: str
    default: [PFC_WD]
  expected_role:
    description: The role the switch must have in the build (empty for any).
    type: str
    default: ""
  record_file:
    description:
      - Where the last deploy's record is on the switch (the hand-change guard's). A switch whose CONFIG_DB tables
        of the build differ from that record was changed by hand or by another tool since, and the task fails naming
        them; a switch with no record is not refused. frr.conf is not guarded (drain.yml rewrites it).
    type: str
    default: /etc/sonic/gpufabric-deploy.json
  overwrite_changes:
    description: Replace a switch changed since the last deploy with its build instead of refusing it.
    type: bool
    default: false
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Read lab-spine01 and compare it with its build
  gpucluster.fabric.sonic_deploy_read:
    build_root: build/lab
    frr_conf_path: /etc/sonic/frr/frr.conf
"""

RETURN = r"""
pending:
  description: Whether the switch differs from its build (config_db or frr.conf).
  returned: success
  type: bool
read:
  description:
    - With I(mode=full), what the role keeps as its facts, each C(sonic_deploy_<key>).
    - C(config_db) (the value in force), C(device) (the structured config), C(frr_text), C(target) (the config_db
      given to C(config replace)), C(db_changed), C(frr_changed), C(frr_installed_sha1), C(frr_previous) (the
      installed frr.conf, null when there is none), C(gcu) (rows to write with C(config load) first, and their
      keys), C(bgp_before) (C(show bgp summary json) before the change), C(bgp_peers) (the BGP neighbours' builds) and
      C(record) (the record the deploy leaves on the switch once its change is kept).
  returned: success, with I(mode=full)
  type: dict
"""
