# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: topology
short_description: GPU cluster fabric inventory computed from a cluster spec
version_added: 0.1.0
description:
  - Reads a cluster spec (a YAML file named C(*.topology.yml) or C(*.topology.yaml)), plans the whole
    cluster (rail leaves, spines, superspines, frontend and out-of-band switches, GPU servers, every
    cable, /31, loopback, management address and ASN) and exposes one host per device.
  - Hosts come in a stable order. Groups are C(gpu_servers), C(backend_leaf), C(backend_spine),
    C(backend_superspine), C(backend_core) (four tiers), C(frontend_leaf), C(frontend_spine),
    C(frontend_superspine), C(oob_switch), C(rail_<n>), C(su_<nn>) (scalable unit), C(pod_<nn>) (pods of
    three or four tiers), C(rack_<name>), and the parents
    C(backend), C(frontend), C(oob) and C(switches). A switch is also in C(nos_<name>) (one group per
    network OS), whose group variables C(fabric_vtysh_command) and C(fabric_frr_conf_path) say how plays
    reach the NOS's FRR; inventory C(group_vars) files override them (the virtual twin does).
  - A switch gets C(ansible_network_os) from its NOS.
  - Each host gets C(ansible_host) (its management address) and C(fabric), a dict with C(role), C(model),
    C(rack), C(rail) where one applies, C(asn), C(loopback_ipv4) and a few role-specific keys; GPU servers
    also get C(interfaces) (name, peer, peer_interface, network, speed, mtu, ipv4 on routed links).
  - Group C(all) gets C(fabric_spec_file), the spec's path relative to the directory the inventory is read
    from (absolute when the spec lies elsewhere). Playbooks whose inventory is not the spec itself, such as an
    AWX job's inventory script of what the last inventory sync stored, find the spec through it.
  - Hosts get only what plays need. A switch's ports are in C(build/<cluster>/plan.json) and its
    C(devices/<host>/structured.yml), not in host variables.
  - The spec keys are documented in docs/spec.md of the collection; a spec error fails the inventory with a
    one-line message naming the key.
extends_documentation_fragment:
  - constructed
  - inventory_cache
options:
  plugin:
    description: Marks this file as a source for this plugin.
    type: str
    required: true
    choices: [gpucluster.fabric.topology]
  cluster:
    description: Cluster identity and hostname patterns (see docs/spec.md).
    type: dict
    required: true
  servers:
    description: GPU servers, their model, count and rack layout (see docs/spec.md).
    type: dict
    required: true
  backend:
    description: The GPU-to-GPU fabric, its design, tiers, pools and ASNs (see docs/spec.md).
    type: dict
    required: true
  frontend:
    description: The frontend network (see docs/spec.md).
    type: dict
  oob:
    description: The out-of-band management network (see docs/spec.md).
    type: dict
  switch_config:
    description: Settings every switch configuration shares (see docs/spec.md).
    type: dict
  docs:
    description: Build documentation settings (see docs/spec.md).
    type: dict
  layout:
    description: Physical layout settings (see docs/spec.md).
    type: dict
  models:
    description: Hardware models added to the built-in catalog (see docs/spec.md).
    type: dict
"""

EXAMPLES = r"""
# inventories/lab/lab.topology.yml
plugin: gpucluster.fabric.topology
cluster:
  name: lab
servers:
  count: 4
  per_rack: 2
backend:
  design: rail_optimized
  leaf: {model: Z9332F-ON, downlinks: 2, uplinks: 2}
  spine: {model: Z9664F-ON}

---
# Cache the computed inventory and group the hosts by hardware model
plugin: gpucluster.fabric.topology
cache: true
cache_plugin: ansible.builtin.jsonfile
cache_connection: /tmp/gpucluster-inventory
keyed_groups:
  - key: fabric.model
    prefix: model
cluster: {name: lab}
servers: {count: 4}
backend:
  leaf: {model: Z9332F-ON}
  spine: {model: Z9664F-ON}
"""

import os

from ansible.errors import AnsibleParserError
from ansible.plugins.inventory import BaseInventoryPlugin, Cacheable, Constructable
from ansible.template import trust_as_template

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.errors import SpecError
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.export import (
    PARENTS, ROLE_GROUP, hostvars, inventory_groups, nos_group_vars)
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.spec import validate
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.specfile import (
    RECORDED_SPEC, plan_spec_file, read_spec, recorded_spec_path)


class SpecParseError(AnsibleParserError):
    """A spec error, shown as one line: the message already names file, line, column and key, so the
    source excerpt Ansible would add (and which splits its warning into a summary plus a repeat) is left out."""

    _formatted_source_context = None


def _trusted(value, seen):
    """``value`` with every string marked trusted (the spec's author wrote them), equal strings shared.
    Written flat for the shape of hostvars (strings, numbers, dicts, lists of dicts): it runs on every
    value of every host."""
    def trust(text):
        out = seen.get(text)
        if out is None:
            out = seen[text] = trust_as_template(text)
        return out

    def scalar(item):
        return trust(item) if item.__class__ is str else item

    if isinstance(value, str):
        return trust(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                out[key] = _trusted(item, seen)
            else:
                out[key] = scalar(item)
        return out
    if isinstance(value, list):
        if all(item.__class__ is dict for item in value):
            return [{key: scalar(v) if not isinstance(v, (dict, list)) else _trusted(v, seen) for key, v in item.items()}
                    for item in value]
        return [_trusted(item, seen) for item in value]
    return value


class InventoryModule(BaseInventoryPlugin, Constructable, Cacheable):
    NAME = "gpucluster.fabric.topology"
    # The values are computed from the spec file the user wrote (names, addresses, numbers), like a
    # static YAML inventory, so they are trusted; it also keeps --list free of untrusted-value markers.
    trusted_by_default = True

    def verify_file(self, path):
        return super().verify_file(path) and path.endswith((".topology.yml", ".topology.yaml"))

    def parse(self, inventory, loader, path, cache=True):
        super().parse(inventory, loader, path, cache)
        try:
            located = read_spec(path)
        except SpecError as exc:
            raise SpecParseError(str(exc)) from None
        spec = located.cluster_spec()
        try:
            validate(spec)  # first, so a misspelt key gets its "did you mean" before Ansible's option check
        except SpecError as exc:
            raise SpecParseError(str(located.error(exc))) from None
        self.set_options(direct=located.data)

        cache_key = self.get_cache_key(path) + "_%d" % int(os.stat(path).st_mtime_ns)
        use_cache = self.get_option("cache") and cache
        data = None
        if use_cache:
            try:
                data = self._cache[cache_key]
            except KeyError:
                data = None
        if data is None:
            try:
                plan = plan_spec_file(path)
            except SpecError as exc:
                raise SpecParseError(str(exc)) from None
            members, children = inventory_groups(plan)
            data = {"hostvars": hostvars(plan), "members": members, "children": children,
                    "group_vars": nos_group_vars(members)}
            if self.get_option("cache"):
                self._cache[cache_key] = data
        self._populate(data)
        # Where the spec is, for jobs whose inventory is what this parse exported (AWX's job inventory script):
        # relative to the directory the inventory was read from, which for AWX is the project's root.
        self.inventory.set_variable("all", RECORDED_SPEC, recorded_spec_path(path))

    def _populate(self, data):
        inv = self.inventory
        for group in list(ROLE_GROUP.values()) + list(PARENTS) + ["backend", "frontend", "oob", "switches"]:
            inv.add_group(group)
        for group in data["members"]:
            inv.add_group(group)
        for parent, kids in data["children"].items():
            inv.add_group(parent)
            for child in kids:
                inv.add_child(parent, child)
        for host in data["hostvars"]:
            inv.add_host(host)
        for group, hosts in data["members"].items():
            for host in hosts:
                inv.add_child(group, host)
        for group, variables in data.get("group_vars", {}).items():
            for key, value in variables.items():
                inv.set_variable(group, key, value)
        construct = self.get_option("compose") or self.get_option("groups") or self.get_option("keyed_groups")
        strict = self.get_option("strict")
        # Ansible's inventory wrapper visits every value of every host to tag it trusted and with its origin,
        # most of the time of a 10,000-host inventory. The values are trusted here once, each distinct string
        # once (peer names, port names, networks repeat), and handed to the inventory data directly.
        data_store = getattr(inv, "__wrapped__", inv)
        trusted = {}
        for host, variables in data["hostvars"].items():
            for key, value in variables.items():
                data_store.set_variable(host, key, _trusted(value, trusted))
            if construct:
                self._set_composite_vars(self.get_option("compose"), variables, host, strict=strict)
                self._add_host_to_composed_groups(self.get_option("groups"), variables, host, strict=strict)
                self._add_host_to_keyed_groups(self.get_option("keyed_groups"), variables, host, strict=strict)
