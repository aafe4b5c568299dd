# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.sonic_deploy_push: one step of a SONiC deploy that writes a file and acts on it, as one
transfer and one command line (the file is moved into place and the step's command run under the task's become).
Before, each such step was a copy (two module runs on the switch) and a raw command."""
from __future__ import annotations

import posixpath
import shlex

from ansible.errors import AnsibleConnectionFailure
from ansible.plugins.action import ActionBase

ARGUMENT_SPEC = {
    "content": {"type": "str", "required": True},
    "dest": {"type": "str", "required": True},
    "mode": {"type": "str", "default": "0644"},
    "then": {"type": "str"},
    "compare": {"type": "bool", "default": False},
}
UNCHANGED = "@@gpufabric-push unchanged"


def command_line(part, dest, mode, then, compare):
    """The one command line of a push: the transferred file ``part`` installed as ``dest``, then ``then``. With
    ``compare``, a ``dest`` that already holds the content is left alone, ``then`` not run, and UNCHANGED said."""
    part_q, dest_q = shlex.quote(part), shlex.quote(dest)
    step = "install -m %s %s %s && rm -f %s" % (shlex.quote(mode), part_q, dest_q, part_q)
    if then:
        step = "%s && { %s; }" % (step, then)
    if compare:
        step = "if cmp -s %s %s; then rm -f %s; echo '%s'; else %s; fi" % (part_q, dest_q, part_q, UNCHANGED, step)
    return step


class ActionModule(ActionBase):
    TRANSFERS_FILES = True
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        if self._task.check_mode:
            return dict(result, changed=True, msg="not run in check mode")
        host = task_vars["inventory_hostname"]
        # Written as the login user where it may write (SONiC's admin cannot write /etc/sonic), then installed by the
        # command, which runs under the task's become.
        part = "/tmp/.gpufabric-%s-%s.part" % (host, posixpath.basename(args["dest"]))
        try:
            self._transfer_data(part, args["content"])
        except AnsibleConnectionFailure:
            raise       # the switch is unreachable: Ansible says so (UNREACHABLE), the play may wait for it
        except Exception as exc:  # noqa: BLE001 -- the connection's own error, in one line
            return dict(result, failed=True, msg="%s: could not copy %s to the switch: %s" % (host, args["dest"], exc))
        res = self._low_level_execute_command(
            command_line(part, args["dest"], args["mode"], args.get("then"), args["compare"]))
        out = res.get("stdout", "")
        result.update(rc=res.get("rc"), stdout=out, stderr=res.get("stderr", ""),
                      changed=UNCHANGED not in out)
        if res.get("rc") != 0:
            err = (res.get("stderr") or out or "").strip().splitlines()
            result.update(failed=True, msg="%s: %s%s failed (status %s)%s" % (
                host, args["dest"], (" then `%s`" % args["then"]) if args.get("then") else "", res.get("rc"),
                (": " + err[-1][-300:]) if err else ""))
        return result
