# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.eos_session: bring one EOS switch to its startup-config in a configuration session over
eAPI with napalm's eos driver, from the controller, as the switch's own task (the flow is nos/eos/deploy.py)."""
from __future__ import annotations

import re

from ansible_collections.gpucluster.fabric.plugins.plugin_utils.switch_action import BGP_GATE_ARGS, SwitchApiAction, api_args, config_text

ARGUMENT_SPEC = {
    # The build's startup-config: its path on the controller, or its text (drain.yml, which reads no build directory).
    "config": {"type": "path"},
    "config_content": {"type": "str"},
    **api_args(443),
    "timeout": {"type": "int", "default": 60},
    "keep": {"type": "list", "elements": "str"},
    "confirm_timeout": {"type": "int", "default": 600},
    "overwrite_changes": {"type": "bool", "default": False},
    # The BGP gate (bgp_gate.py) over eAPI.
    **BGP_GATE_ARGS,
    # change: the session replaces the configuration with the config; drain / undrain: the session merges only the
    # drain's lines (or their removal) into what runs, the rest of the switch left as it is.
    "step": {"type": "str", "default": "change", "choices": ["change", "drain", "undrain"]},
}
MUTUALLY_EXCLUSIVE = [["config", "config_content"]]
REQUIRED_ONE_OF = [["config", "config_content"]]
_ROUTER_BGP = re.compile(r"^router bgp (\S+)\s*$", re.M)


class ActionModule(SwitchApiAction):
    ARGS = {"argument_spec": ARGUMENT_SPEC, "mutually_exclusive": MUTUALLY_EXCLUSIVE, "required_one_of": REQUIRED_ONE_OF}
    _requires_connection = False

    def _deploy(self, host, args):
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos.eos import bgp, deploy, drain, eapi

        source = args.get("config") or "its startup-config"
        try:
            text = config_text(args, "config", "config_content")
        except OSError as exc:
            return {"failed": True, "msg": "%s: %s: %s" % (host, source, exc.strerror)}
        merge = None
        if args["step"] != "change":
            asn = _ROUTER_BGP.search(text)
            if asn is None:
                return {"failed": True, "msg": "%s: %s has no `router bgp`: nothing to %s" % (host, source, args["step"])}
            merge = drain.commands({"asn": asn.group(1)}, args["step"] == "drain")
        try:
            driver = eapi.open_driver(host, args["api_host"], args["user"], args["password"], args["api_port"],
                                      args["validate_certs"], args.get("ca_path"), args["timeout"])
        except eapi.EapiError as exc:
            return {"failed": True, "msg": str(exc)}
        try:
            return self._session(host, driver, text, merge, args, bgp, deploy, eapi)
        finally:
            try:
                driver.close()
            except Exception:
                pass  # closing aborts a session left open; the deploy's own result is what counts

    def _session(self, host, driver, text, merge, args, bgp, deploy, eapi):
        try:
            before = eapi.run_json(driver, bgp.GATE_COMMANDS[:1])
        except Exception as exc:
            return {"failed": True, "msg": "%s: eAPI did not answer %s: %s"
                    % (host, bgp.GATE_COMMANDS[0], deploy._one_line(exc))}
        out = {"sessions": bgp.sessions(before)}
        gate = None
        device = args.get("device")
        if device and (device.get("bgp") or {}).get("neighbors"):
            def gate():
                try:
                    text = eapi.run_json(driver, bgp.GATE_COMMANDS)
                except eapi.Refused as exc:
                    return ["the switch refused the gate's commands (%s): %s" % (", ".join(bgp.GATE_COMMANDS), exc)]
                return bgp.deploy_gate(text, device, before, args["bgp_gate"], args["peers"])
        keep = tuple(args["keep"]) if args.get("keep") is not None else deploy.DEFAULT_KEEP
        try:
            done = deploy.deploy(driver, host, text, check=self._task.check_mode, keep=keep,
                                 guard=not args["overwrite_changes"], gate=gate, gate_timeout=args["bgp_timeout"],
                                 gate_poll=args["bgp_poll"], confirm=args["confirm_timeout"], step=args["step"],
                                 merge=merge)
        except deploy.DeployError as exc:
            return dict(out, failed=True, msg=str(exc))
        out.update(changed=done["changed"], differs=done["changed"], session=done["session"])
        if self._task.diff and done["changed"]:
            out["diff"] = {"prepared": "%s: configuration session %s, its diff from the running config:\n%s\n"
                                       % (host, done["session"], done["diff"])}
        return out
