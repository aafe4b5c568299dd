# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: twin_port_acl
short_description: Enforce a twin switch's port ACLs with nftables
version_added: 0.1.0
description:
  - The virtual twin's stand-in for a switch's data-plane port ACLs. Run through the C(gpucluster.fabric.netns) connection,
    it loads the switch's C(ACL_TABLE) (type L3, ingress) and C(ACL_RULE) rows as one nftables table on the ingress
    hook of each bound port, replacing the previous one in one transaction. See docs/twin.md.
  - Idempotent (the table carries a digest of its rules); supports check mode and diff.
options:
  config_db:
    description: The switch's rendered C(config_db.json) (only C(ACL_TABLE) and C(ACL_RULE) are read).
    type: dict
    required: true
requirements:
  - nftables (the nft command) on the twin host
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Load the port ACLs of a twin switch
  gpucluster.fabric.twin_port_acl:
    config_db: "{{ lookup('ansible.builtin.file', build_root ~ '/devices/' ~ inventory_hostname ~ '/config_db.json') | from_json }}"
"""

RETURN = r"""
ports:
  description: Ports carrying an ACL.
  returned: success
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.twin import nftables
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.twin.run import CommandError, run


def main():
    module = AnsibleModule(argument_spec={"config_db": {"type": "dict", "required": True}}, supports_check_mode=True)
    try:
        text = nftables.ruleset(module.params["config_db"])
    except nftables.AclError as exc:
        module.fail_json(msg=str(exc))
    ports = sorted(nftables.port_acls(module.params["config_db"]))
    have = run(["nft", "list", "table", "netdev", nftables.TABLE], check=False)
    before = have.stdout if have.returncode == 0 else ""
    changed = nftables.needs_change(text, before)
    diff = {"before": before, "after": text if nftables.digest_of(text) else ""}
    if changed and not module.check_mode:
        try:
            nftables.apply_local(text)
        except CommandError as exc:
            module.fail_json(msg=str(exc))
    module.exit_json(changed=changed, ports=ports, diff=diff)


if __name__ == "__main__":
    main()
