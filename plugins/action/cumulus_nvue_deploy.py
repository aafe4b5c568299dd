# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.cumulus_nvue_deploy: deploy one Cumulus Linux switch's startup.yaml through the
NVUE REST API, from the controller, as the switch's own task (the flow is nos/cumulus/deploy.py)."""
from __future__ import annotations

from ansible_collections.gpucluster.fabric.plugins.plugin_utils.switch_action import BGP_GATE_ARGS, SwitchApiAction, api_args, config_text

ARGUMENT_SPEC = {
    # The build's startup.yaml: its path on the controller, or its text (drain.yml, which reads no build directory).
    "startup": {"type": "path"},
    "startup_content": {"type": "str"},
    **api_args(8765),
    "keep": {"type": "list", "elements": "str"},
    "timeout": {"type": "float", "default": 180.0},
    "poll": {"type": "float", "default": 2.0},
    "request_timeout": {"type": "float", "default": 30.0},
    "save": {"type": "bool", "default": True},
    "release": {"type": "str"},
    "overwrite_changes": {"type": "bool", "default": False},
    # `nv` on the switch through the connection: the apply with NVUE's confirm timer (seconds, 0: none) and the
    # deploy's record in the switch's revision history (the hand-change guard). false: the API alone, with neither.
    "cli": {"type": "bool", "default": True},
    "confirm_timeout": {"type": "float", "default": 600.0},
    # The BGP gate (bgp_gate.py), over the switch's FRR through the connection.
    **BGP_GATE_ARGS,
    "vtysh_command": {"type": "str", "default": "sudo vtysh"},
    # The drain before a change (roles/cumulus_deploy/tasks/drained_apply.yml) and drain.yml / undrain.yml
    # (tasks/shift.yml): the build's startup.yaml in its drained form (drain_plan's native_config), and which step
    # this is: drain (what runs, plus the drain), undrain (what runs, less the drain), or change (to the drained form
    # when it is given, else to the build).
    "drained_content": {"type": "str"},
    "step": {"type": "str", "default": "change", "choices": ["change", "drain", "undrain"]},
}
MUTUALLY_EXCLUSIVE = [["startup", "startup_content"]]
REQUIRED_ONE_OF = [["startup", "startup_content"]]


def _preload_models():
    """NVIDIA's NVUE models of the default release, built when this action is first loaded. Ansible's strategy
    loads an action's class in the controller before it forks the task's workers (plugins/strategy/linear.py,
    action_loader.get(..., class_only=True)), so they are built once per playbook run; otherwise each switch's
    schema gate, in its own fresh worker, built them again (about 1.4 s each, twice a changed switch)."""
    try:
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos.cumulus import schema
    except ImportError:
        return
    schema.preload()


_preload_models()


class ActionModule(SwitchApiAction):
    ARGS = {"argument_spec": ARGUMENT_SPEC, "mutually_exclusive": MUTUALLY_EXCLUSIVE, "required_one_of": REQUIRED_ONE_OF}
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def _deploy(self, host, args):
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos.cumulus import deploy
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos.cumulus.confirm import (
            CliError as ConfirmCliError, NvCli)
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos.cumulus.nvue_client import (
            NvueClient, NvueError)

        source = args.get("startup") or "its startup.yaml"
        try:
            text = config_text(args, "startup", "startup_content")
            documents = deploy.load_documents(text)
            header, target = deploy.target_of(documents, host)
        except OSError as exc:
            return {"failed": True, "msg": "%s: %s: %s" % (host, source, exc.strerror)}
        except (ValueError, deploy.DeployError) as exc:
            return {"failed": True, "msg": "%s: %s: %s" % (host, source, exc)}
        release = args.get("release") or deploy.release_of(header)
        out = {"release": release}
        overlay = None
        if args.get("drained_content") is not None:
            try:
                drained_documents = deploy.load_documents(args["drained_content"])
                drained = deploy.target_of(drained_documents, host)[1]
            except (ValueError, deploy.DeployError) as exc:
                return dict(out, failed=True, msg="%s: the drained form of %s: %s" % (host, source, exc))
            if args["step"] == "undrain":
                # Only the drain taken away, from what runs; the rest of the switch stays as it is.
                overlay = deploy.merge_patch(drained, target) or {}
            else:
                # drain: only what the drain adds (its route-map, the peer groups' outbound policy), over what runs.
                overlay = (deploy.merge_patch(target, drained) or {}) if args["step"] == "drain" else None
                target, documents = drained, drained_documents
        elif args["step"] != "change":
            return dict(out, failed=True, msg="%s: step=%s needs drained_content (drain_plan's native_config)"
                        % (host, args["step"]))
        gate = deploy.schema_gate(documents, host, release)
        if gate is None:
            out["warnings"] = ["%s: the NVUE schema gate is not installed: %s is sent unchecked (the switch still "
                               "checks it)" % (host, source)]
        elif gate:
            return dict(out, failed=True, msg="%s: startup.yaml refused by the NVUE object model of Cumulus Linux %s, "
                        "nothing sent: %s" % (host, release, "; ".join(gate[:5])), problems=gate)
        client = NvueClient(host, args["api_host"], args["user"], args["password"], port=args["api_port"],
                            validate_certs=args["validate_certs"], ca_path=args.get("ca_path"),
                            timeout=args["request_timeout"])
        keep = deploy.DEFAULT_KEEP if args.get("keep") is None else tuple(args["keep"])
        if args["confirm_timeout"] < 0:
            return dict(out, failed=True, msg="%s: confirm_timeout %s: seconds, 0 or more" % (host, args["confirm_timeout"]))
        try:
            gate = None if self._task.check_mode else self._bgp_gate(host, args)
        except ValueError as exc:
            return dict(out, failed=True, msg="%s: %s" % (host, exc))
        cli = NvCli(host, self._nv) if args["cli"] else None
        try:
            report = deploy.deploy(client, target, check=self._task.check_mode, keep=keep, timeout=args["timeout"],
                                   poll=args["poll"], save=args["save"], guard=not args["overwrite_changes"], gate=gate,
                                   gate_timeout=args["bgp_timeout"], gate_poll=args["bgp_poll"], overlay=overlay,
                                   cli=cli, confirm=args["confirm_timeout"], diff=bool(self._task.diff))
        except (deploy.DeployError, NvueError, ConfirmCliError) as exc:
            return dict(out, failed=True, msg=str(exc))
        out["changed"] = out["differs"] = report["changed"]
        if report.get("revision"):
            out["revision"] = report["revision"]
        if self._task.diff and report["changed"]:
            out["diff"] = report["diff"]
        return out

    def _nv(self, line):
        """One `nv` command line on the switch through the connection: (rc, stdout, stderr)."""
        try:
            res = self._low_level_execute_command(line)
        except Exception as exc:  # noqa: BLE001 -- a connection that runs no command (httpapi): named, as a failure
            return 255, "", "the connection could not run it (%s): reach the switch over ssh (ansible_connection), or " \
                "set cumulus_deploy_cli=false" % exc
        return res.get("rc", 1), res.get("stdout", ""), res.get("stderr", "")

    def _vtysh(self, command, queries):
        """What FRR on the switch prints for ``queries``, one vtysh call through the connection ("" when it fails:
        the gate then names the missing state)."""
        import shlex

        line = command + "".join(" -c %s" % shlex.quote(q) for q in queries)
        res = self._low_level_execute_command(line)
        return res.get("stdout", "") if res.get("rc") == 0 else ""

    def _bgp_gate(self, host, args):
        """The gate deploy.deploy asks after the apply, or None when the switch has no planned BGP neighbour. What it
        requires is decided from the sessions before the change (bgp_gate.required_sessions)."""
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.frr_linux import bgp as bgp_gate

        device = args.get("device") or {}
        planned = [n["ip"] for n in (device.get("bgp") or {}).get("neighbors", ())]
        if not planned:
            return None
        try:
            before = self._vtysh(args["vtysh_command"], bgp_gate.GATE_COMMANDS[:1])
        except Exception as exc:  # noqa: BLE001 -- a connection that runs no command (httpapi): stop before any change
            raise ValueError("the BGP gate reads FRR with '%s' through the connection, which could not run it (%s); "
                             "nothing sent: reach the switch over ssh (ansible_connection)" % (args["vtysh_command"], exc))
        bgp_gate.required_sessions(planned, before, args["bgp_gate"], "cumulus_deploy_bgp_gate")   # a bad value: now
        peers = args.get("peers") or []

        def gate():
            try:
                text = self._vtysh(args["vtysh_command"], bgp_gate.GATE_COMMANDS)
            except Exception as exc:  # noqa: BLE001 -- the gate fails, and the change is rolled back, naming it
                return ["FRR could not be read with '%s': %s" % (args["vtysh_command"], exc)]
            return bgp_gate.deploy_gate(text, device, before, args["bgp_gate"], peers)
        return gate
