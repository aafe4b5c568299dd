# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations


class ModuleDocFragment:
    DOCUMENTATION = r"""
options:
  baseuri:
    description: The BMC (iDRAC) address, C(host[:port]) or a full C(https://...) URL.
    type: str
    required: true
  username:
    description: BMC user.
    type: str
    required: true
  password:
    description: BMC password (keep it in a vault).
    type: str
    required: true
  validate_certs:
    description: Verify the BMC's TLS certificate.
    type: bool
    default: true
  timeout:
    description: Seconds per Redfish request.
    type: int
    default: 30
  system_id:
    description: Id of the system under C(/redfish/v1/Systems) (C(System.Embedded.1) on an iDRAC); default is the only one.
    type: str
"""
