# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the actions deploying one switch through its management API from the controller share (each NOS's deploy
action that talks HTTPS to the switch): the API's and the BGP gate's arguments, the password kept out of everything the task returns,
and the build's file or its text (doc fragment gpucluster.fabric.bgp_gate documents the gate's arguments)."""
from __future__ import annotations

from ansible.module_utils.common.parameters import remove_values
from ansible.plugins.action import ActionBase


def api_args(port):
    """The arguments reaching a switch's API over HTTPS, ``port`` its default port."""
    return {
        "api_host": {"type": "str", "required": True},
        "api_port": {"type": "int", "default": port},
        "user": {"type": "str", "required": True},
        "password": {"type": "str", "required": True, "no_log": True},
        "validate_certs": {"type": "bool", "default": True},
        "ca_path": {"type": "path"},
    }


# The BGP gate (bgp_gate.py): the switch's structured config, the structured configs of its BGP neighbours (what
# each must send), which sessions it requires, how long it waits and how often it reads.
BGP_GATE_ARGS = {
    "device": {"type": "dict"},
    "peers": {"type": "list", "elements": "dict", "default": []},
    "bgp_gate": {"type": "str", "default": "auto", "choices": ["auto", "all", "established_before"]},
    "bgp_timeout": {"type": "float", "default": 180.0},
    "bgp_poll": {"type": "float", "default": 10.0},
}


def config_text(args, path, content):
    """The build's file for the switch: ``args[content]`` when given, else the text of the file ``args[path]``
    (OSError when it cannot be read)."""
    if args.get(content) is not None:
        return args[content]
    with open(args[path], encoding="utf-8") as f:
        return f.read()


class SwitchApiAction(ActionBase):
    """Subclasses declare ``ARGS`` (validate_argument_spec's arguments: argument_spec, mutually_exclusive,
    required_one_of) and implement ``_deploy(host, args)``, returning what the task returns."""

    TRANSFERS_FILES = False
    ARGS = {}

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _validation, args = self.validate_argument_spec(**self.ARGS)
        secret = {args["password"]}
        try:
            result.update(self._deploy(task_vars["inventory_hostname"], args))
        finally:
            # Nothing the switch or a library says may carry the password back into the output.
            result = remove_values(result, secret)
        return result

    def _deploy(self, host, args):
        raise NotImplementedError
