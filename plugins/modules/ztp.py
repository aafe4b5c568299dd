# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: ztp
short_description: Write the zero-touch provisioning tree of a GPU cluster (Kea by position, switch NOS ZTP, iDRAC)
version_added: 0.2.0
description:
  - Runs on the controller (an action plugin), once for the whole fabric. Writes I(build_dir)/<cluster>/ztp/
    atomically; see docs/ztp.md.
  - C(kea-dhcp4.conf) gives every switch management port, iDRAC and host management port its planned address by
    cabling position (DHCP option 82 circuit-id as the OOB switch's relay writes it), never by MAC; a device on an
    unplanned port, or of the wrong kind at a position, gets nothing.
  - C(www/ztp/<switch>/) the files the switch's NOS boots from, written by the home of that NOS (docs/ztp.md),
    e.g. a ztp.json for DHCP option 67 with the switch's configuration; C(www/idrac/<server>.json), the server
    configuration profile that DHCP option 43 points the iDRAC at.
  - Runs C(kea-dhcp4 -t) on the result when Kea is installed on the controller. With I(yang_models), every
    switch configuration is validated against its NOS's models (YANG) first and nothing is written if one fails.
  - With I(kea_log), reads Kea's log and returns who asked at which position and got nothing (unplanned ports,
    swapped cables).
  - In check mode it only reports what would change.
extends_documentation_fragment:
  - gpucluster.fabric.plan_source
  - gpucluster.fabric.plan_source.build_dir
options:
  nos_images:
    description:
      - The image each NOS's ZTP installs first (its firmware section), by NOS name, each a path under www/ or a URL.
      - A NOS not named installs no image.
    type: dict
  onie_image:
    description: NOS installer URL sent in option 114 (ONIE default-url), a path under www/ or a URL.
    type: str
  lease_seconds:
    description: DHCP lease time.
    type: int
    default: 3600
  kea_interfaces:
    description: Kea's C(interfaces-config.interfaces) on the provisioning host.
    type: list
    elements: str
    default: ['*']
  kea_lease_file:
    description: Kea's memfile lease file.
    type: str
    default: /var/lib/kea/kea-leases4.csv
  kea_log_file:
    description: Kea's log file (read back for the position report).
    type: str
    default: /var/log/kea/kea-dhcp4.log
  pxe_interface:
    description: FQDD of the frontend NIC port the servers PXE boot from.
    type: str
    default: NIC.Slot.9-1-1
  bios_attributes:
    description: The gpu_server role's BIOS baseline (C(gpu_server_bios_attributes)), put in every server profile.
    type: dict
  yang_models:
    description: Directory of the switches' NOS models (YANG); when set, every switch config ZTP hands out must validate.
    type: path
  kea_log:
    description: A copy of Kea's log to report refused requests by position from.
    type: path
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Write build/<cluster>/ztp/
  gpucluster.fabric.ztp:
    build_dir: "{{ playbook_dir }}/../build"
    onie_image: images/nos-installer.bin
    bios_attributes: "{{ gpu_server_bios_attributes | default({}) }}"
  run_once: true
"""

RETURN = r"""
ztp_root:
  description: The directory written, I(build_dir)/<cluster>/ztp.
  returned: success
  type: str
provisioning_host:
  description: The spec's oob.provisioning_host, where Kea and the file server run.
  returned: success
  type: str
kea_config:
  description: Path of the Kea configuration in it.
  returned: success
  type: str
kea_checked:
  description: Whether C(kea-dhcp4 -t) ran (Kea installed on the controller).
  returned: when not in check mode, or nothing changed
  type: bool
yang_checked:
  description: Whether the config_db files were validated against YANG models.
  returned: success
  type: bool
positions:
  description: Number of management ports planned by position.
  returned: success
  type: int
changed_count:
  description: Number of files added, changed or removed.
  returned: success
  type: int
changed_paths:
  description: The first 50 of those files, relative to I(ztp_root).
  returned: success
  type: list
  elements: str
findings:
  description: With I(kea_log), one entry per position where a request got nothing (relay, port, planned, asker,
    macs, swapped_with, message).
  returned: when kea_log is given
  type: list
  elements: dict
"""
