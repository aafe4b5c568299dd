# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter gpucluster.fabric.server_network_files (documented in server_network_files.yml)."""
from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.render import linux_host


def server_network_files(structured, stack):
    try:
        return linux_host.network_files(structured, stack)
    except ValueError as e:
        raise AnsibleFilterError(str(e)) from e
    except (KeyError, TypeError) as e:
        raise AnsibleFilterError("server_network_files: the structured config lacks %s: rebuild it with "
                                 "playbooks/build.yml" % e) from e


class FilterModule:
    def filters(self):
        return {"server_network_files": server_network_files}
