# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: rail_routing
short_description: Apply rail NIC addressing and per-NIC policy routing live, with ip and sysctl
version_added: 0.2.0
description:
  - For each rail NIC of I(interfaces) (the C(nics) list of the build's servers/<host>/structured.yml
    filter) sets the MTU, brings the link up, adds its /31, fills its own routing table (the /31 with the
    NIC's source address and a default route via the rail leaf) and one C(ip rule) C(from ADDRESS lookup TABLE).
  - Writes I(sysctls) (C(net.ipv4.conf.*) keys) under C(/proc/sys) when they differ.
  - The persistent form of the same plan is the networkd or netplan files the gpu_server role renders; this
    module makes it effective without restarting the network service, and is what the tests run in namespaces.
  - Check mode returns the commands that would run.
options:
  interfaces:
    description: Rail NICs, each with C(name), C(cidr), C(address), C(network), C(gateway), C(table), C(priority), C(mtu).
    type: list
    elements: dict
    required: true
  sysctls:
    description: Kernel parameters (C(net.ipv4.conf.IF.rp_filter) style) -> value.
    type: dict
    default: {}
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Rail NICs live
  gpucluster.fabric.rail_routing:
    interfaces: "{{ gpu_server_cfg.nics }}"
    sysctls: "{{ gpu_server_cfg.sysctls }}"
"""

RETURN = r"""
commands:
  description: The ip commands run (or that would run), and sysctl writes as C(sysctl KEY=VALUE).
  returned: always
  type: list
  elements: str
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.server import live

REQUIRED = ("name", "cidr", "address", "network", "gateway", "table", "priority", "mtu")


def ip_json(module, ip, args):
    rc, out, err = module.run_command([ip, "-j"] + args)
    if rc != 0 and "does not exist" in err:  # a routing table nobody has used yet
        return []
    if rc != 0:
        module.fail_json(msg="ip %s failed: %s" % (" ".join(args), err.strip()))
    return json.loads(out or "[]")


def main():
    module = AnsibleModule(argument_spec={"interfaces": {"type": "list", "elements": "dict", "required": True},
                                          "sysctls": {"type": "dict", "default": {}}},
                           supports_check_mode=True)
    ip = module.get_bin_path("ip", required=True)
    commands = []
    for nic in module.params["interfaces"]:
        missing = [k for k in REQUIRED if k not in nic]
        if missing:
            module.fail_json(msg="interfaces.%s: missing %s" % (nic.get("name", "?"), ", ".join(missing)))
        rc, out, err = module.run_command([ip, "-j", "link", "show", "dev", nic["name"]])
        if rc != 0:
            module.fail_json(msg="rail NIC %s does not exist on this host (%s)" % (nic["name"], err.strip()))
        cmds = live.link_commands(nic, json.loads(out)[0])
        cmds += live.addr_commands(nic, ip_json(module, ip, ["-4", "addr", "show", "dev", nic["name"]]))
        run_now = cmds
        if not module.check_mode:
            for c in run_now:
                module.run_command([ip] + c, check_rc=True)
        commands += run_now
        # Routes with a source address need the address present first (kernel checks prefsrc).
        later = live.route_commands(nic, ip_json(module, ip, ["-4", "route", "show", "table", str(nic["table"])]))
        later += live.rule_commands(nic, ip_json(module, ip, ["-4", "rule", "show"]))
        if not module.check_mode:
            for c in later:
                module.run_command([ip] + c, check_rc=True)
        commands += later
    for key, value in module.params["sysctls"].items():
        path = os.path.join("/proc/sys", key.replace(".", "/"))
        try:
            with open(path) as f:
                current = f.read().strip()
        except OSError as exc:
            module.fail_json(msg="sysctl %s: %s" % (key, exc.strerror))
        if current != str(value):
            commands.append(["sysctl", "%s=%s" % (key, value)])
            if not module.check_mode:
                with open(path, "w") as f:
                    f.write(str(value))
    lines = [" ".join(c) if c[0] == "sysctl" else "ip " + " ".join(c) for c in commands]
    module.exit_json(changed=bool(commands), commands=lines)


if __name__ == "__main__":
    main()
