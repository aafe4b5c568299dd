# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: growth
short_description: Compare a grown cluster's build with the build before it and write what to cable
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin); reads two builds and changes no device.
  - Compares the cabling plans by cable ID and writes the new cables, by rack, to
    I(build_dir)/<cluster>.growth.md (with any cable to move or remove, which growth should never need).
  - Lists the switches whose rendered files changed (what C(deploy.yml) changes) and the switches the two
    plans say must change (new, or with cabled ports that differ); I(unexpected) and I(missing) are their
    differences and are empty when the growth touches only what it must.
extends_documentation_fragment:
  - gpucluster.fabric.plan_source
  - gpucluster.fabric.plan_source.build_dir
options:
  previous:
    description: The build before the growth. Default is I(build_dir)/<cluster>.previous, which each build keeps.
    type: path
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: What to cable
  gpucluster.fabric.growth:
  register: growth
"""

RETURN = r"""
document:
  description: Path of the "what to cable" document.
  returned: success
  type: str
previous:
  description: The build compared with.
  returned: success
  type: str
new_cables:
  description: Number of new cables.
  returned: success
  type: int
moved_cables:
  description: IDs of installed cables whose ends change (recabling).
  returned: success
  type: list
  elements: str
removed_cables:
  description: IDs of installed cables the new plan no longer has.
  returned: success
  type: list
  elements: str
changed_switches:
  description: Switches whose rendered files changed or are new.
  returned: success
  type: list
  elements: str
new_switches:
  description: Switches the growth adds.
  returned: success
  type: list
  elements: str
must_change:
  description: Switches the two plans say must change (new, or with changed cabled ports).
  returned: success
  type: list
  elements: str
unexpected:
  description: Switches whose files changed although their cabled ports did not.
  returned: success
  type: list
  elements: str
missing:
  description: Switches whose cabled ports changed but whose files did not.
  returned: success
  type: list
  elements: str
"""
