# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: ztp_tree
short_description: Install the zero-touch provisioning HTTP tree from its bundle, file by file, atomically
version_added: 0.3.0
description:
  - Reads I(bundle), the C(www-bundle.json) that module M(gpucluster.fabric.ztp) writes beside the C(www/) tree
    (a JSON object of path under C(www/) to file text), and makes each of those files under I(dest) hold its text,
    mode 0644, directories 0755.
  - A file that differs is written beside itself and renamed over it, so a switch or an iDRAC fetching it
    meanwhile reads the old file or the new one. Files the bundle does not name (images put under C(www/) by
    hand) are left alone.
  - Runs on the provisioning host. Check mode reports the files that would change.
options:
  bundle:
    description: Path of the bundle on the provisioning host.
    type: path
    required: true
  dest:
    description: The HTTP root to install into (the role's C(ztp_server_www)).
    type: path
    required: true
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Install the HTTP file tree
  gpucluster.fabric.ztp_tree:
    bundle: /srv/gpufabric-ztp.bundle.json
    dest: /srv/gpufabric-ztp
"""

RETURN = r"""
changed_count:
  description: How many files differed (and were written, unless in check mode).
  returned: always
  type: int
changed_paths:
  description: The first 50 of them, relative to I(dest).
  returned: always
  type: list
  elements: str
"""

import json

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.ztp.install import BundleError, install_bundle


def main():
    module = AnsibleModule(argument_spec={"bundle": {"type": "path", "required": True},
                                          "dest": {"type": "path", "required": True}},
                           supports_check_mode=True)
    bundle, dest = module.params["bundle"], module.params["dest"]
    try:
        with open(bundle, encoding="utf-8") as f:
            files = json.load(f)
    except (OSError, ValueError) as exc:
        module.fail_json(msg="bundle %s: cannot be read as the ztp module's www-bundle.json (%s)" % (bundle, exc))
    try:
        changed = install_bundle(files, dest, check=module.check_mode)
    except BundleError as exc:
        module.fail_json(msg="bundle %s: %s" % (bundle, exc))
    except OSError as exc:
        module.fail_json(msg="%s: %s (files written before this one are complete; run again)" % (dest, exc))
    module.exit_json(changed=bool(changed), changed_count=len(changed), changed_paths=changed[:50])


if __name__ == "__main__":
    main()
