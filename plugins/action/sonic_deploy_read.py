# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.sonic_deploy_read: one read of a SONiC switch, and the deploy's decisions from it, in
one task (nos/sonic/deploy_read.py). Before, the role spent a dozen tasks and four round trips on the same."""
from __future__ import annotations

import json
import os

import yaml
from ansible.plugins.action import ActionBase

ARGUMENT_SPEC = {
    "build_root": {"type": "path", "required": True},
    "mode": {"type": "str", "default": "full", "choices": ["pending", "full"]},
    "config_db": {"type": "bool", "default": True},
    "frr_conf_path": {"type": "str", "required": True},
    "vtysh_command": {"type": "str", "default": "docker exec bgp vtysh"},
    "yang_models": {"type": "str", "default": ""},
    "gcu_load_tables": {"type": "list", "elements": "str", "default": ["PFC_WD", "BUFFER_POOL", "BUFFER_PROFILE"]},
    "expected_role": {"type": "str", "default": ""},
    "record_file": {"type": "str", "default": "/etc/sonic/gpufabric-deploy.json"},
    "overwrite_changes": {"type": "bool", "default": False},
}


class StopSwitch(Exception):
    """The switch is left as it is: one line saying why."""


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(ARGUMENT_SPEC)

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        host = task_vars["inventory_hostname"]
        try:
            result.update(self._read(host, args))
        except StopSwitch as exc:
            result.update(failed=True, msg=str(exc))
        return result

    def _build(self, host, args, name, parse=None):
        path = os.path.join(args["build_root"], "devices", host, name)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            return parse(text) if parse else text
        except OSError as exc:
            raise StopSwitch("%s: %s: %s (run build.yml, or deploy.yml, which builds first)" % (host, path, exc.strerror))
        except ValueError as exc:
            raise StopSwitch("%s: %s: %s" % (host, path, exc))

    def _read(self, host, args):
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home

        deploy_read = home("sonic").deploy_read
        full, config_db = args["mode"] == "full", args["config_db"]
        device = self._build(host, args, "structured.yml", yaml.safe_load) or {}
        if full and args["expected_role"] not in ("", device.get("role")):
            raise StopSwitch("%s is a %s in the build but is deployed by the %s role: check the inventory groups"
                             % (host, device.get("role"), args["expected_role"]))
        frr_text = self._build(host, args, "frr.conf")
        rendered = self._build(host, args, "config_db.json", json.loads) if config_db or args["yang_models"] else {}
        parts = deploy_read.sections(args["frr_conf_path"], args["vtysh_command"], config_db, full, args["record_file"])
        res = self._low_level_execute_command(deploy_read.command(parts))
        try:
            read = deploy_read.split(parts, res.get("stdout", ""))
            seen = deploy_read.compare(read, rendered, frr_text, config_db)
        except deploy_read.ReadError as exc:
            raise StopSwitch("%s could not be read: %s%s" % (host, exc, self._stderr(res)))
        if config_db:
            self._guard(host, args, deploy_read.changed_by_hand(read, seen["running"]))
        differs = seen["db_changed"] or seen["frr_changed"]
        if not full:
            return {"changed": False, "pending": differs}
        self._offline_checks(host, args, seen, rendered)
        gcu = self._gcu_plan(host, args, seen, deploy_read.version(read)) if seen["db_changed"] else {}
        peers = []
        for peer in deploy_read.peer_names(device):
            path = os.path.join(args["build_root"], "devices", peer, "structured.yml")
            if os.path.isfile(path):   # a neighbour outside a --limit build has none: it need only be Established
                peers.append(self._build(peer, args, "structured.yml", yaml.safe_load))
        out = {"changed": bool(self._task.check_mode and differs), "pending": differs, "read": {
            "config_db": config_db, "device": device, "frr_text": frr_text, "target": seen["target"],
            "db_changed": seen["db_changed"], "frr_changed": seen["frr_changed"],
            "frr_installed_sha1": seen["frr_installed_sha1"], "frr_previous": seen["frr_previous"], "gcu": gcu,
            "bgp_before": deploy_read.bgp_before(read), "bgp_peers": peers,
            "record": deploy_read.record_text(seen["target"], rendered) if config_db else ""}}
        notes = self._gcu_notes(host, gcu)
        if notes:
            out["warnings"] = notes
        if self._task.diff and differs:
            out["diff"] = self._diff(args, seen, frr_text, deploy_read)
            if notes:
                out["diff"][0]["after_header"] += " - " + "; ".join(notes)
        return out

    @staticmethod
    def _guard(host, args, changed):
        """Refuse a switch changed since the record its last deploy left on it (nos/sonic/deploy_read.py)."""
        if changed and not args["overwrite_changes"]:
            named = ", ".join(changed[:8]) + (" and %d more" % (len(changed) - 8) if len(changed) > 8 else "")
            raise StopSwitch(
                "%s: the configuration on the switch changed since the last deploy (%s), by hand or by another tool; "
                "nothing sent: put the change in the spec, or set sonic_deploy_overwrite_changes=true to replace it "
                "with the build" % (host, named))

    @staticmethod
    def _gcu_notes(host, gcu):
        """What config replace will do that a user sees besides the difference (the deploy's GCU pre-check,
        nos/sonic/gcu_precheck.effects): ports it takes admin down and back up around their QoS changes, rows it
        deletes and adds back."""
        notes = []
        if gcu.get("flaps"):
            notes.append("%s: config replace will take %s admin down and back up around their QoS changes (SONiC's "
                         "Generic Config Updater does so): traffic over them stops until their links are up again"
                         % (host, ", ".join(gcu["flaps"])))
        if gcu.get("recreated"):
            notes.append("%s: config replace will delete and add back %s, with the rows that refer to them (a "
                         "create-only field changes: a port's link goes down, a BGP session is reset)"
                         % (host, ", ".join(gcu["recreated"])))
        return notes

    @staticmethod
    def _stderr(res):
        err = (res.get("stderr") or "").strip()
        return " (%s)" % err.splitlines()[-1][-300:] if err else ""

    @staticmethod
    def _offline_checks(host, args, seen, rendered):
        """SONiC's YANG models over the config replace target (or, when config_db is not pushed, the rendered
        config_db alone), on the controller, before anything touches the switch."""
        if not args["yang_models"]:
            return
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home

        try:
            problems = home("sonic").yang_problems(seen["target"] if args["config_db"] else rendered,
                                                   args["yang_models"], host)
        except ValueError as exc:
            raise StopSwitch(str(exc))
        if problems:
            raise StopSwitch("%s (nothing was changed on %s)" % ("; ".join(problems), host))

    @staticmethod
    def _gcu_plan(host, args, seen, version_text):
        """Which new rows go in with config load first, or, when the Generic Config Updater would refuse the change
        anyway, the switch left as it is, before the drain and the checkpoint (apply.yml)."""
        from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home

        try:
            version = yaml.safe_load(version_text) if version_text else {}
            plan = home("sonic").gcu_load_plan(seen["running"], seen["target"],
                                               version if isinstance(version, dict) else {}, args["gcu_load_tables"])
        except (ValueError, yaml.YAMLError) as exc:
            raise StopSwitch("%s: %s" % (host, exc))
        if plan["refused"]:
            raise StopSwitch(
                "%s: nothing changed (no checkpoint taken): SONiC's config replace would refuse %s. SONiC changes "
                "these fields only outside the Generic Config Updater: drain the switch (playbooks/drain.yml), write "
                "the tables with config load FILE -y (or config reload of a saved config_db.json), config save -y, "
                "then undrain" % (host, "; ".join(plan["refused"])))
        return plan

    @staticmethod
    def _diff(args, seen, frr_text, deploy_read):
        diffs = []
        if seen["db_changed"]:
            before, after = deploy_read.config_diff(seen["running"], seen["target"])
            diffs.append({"before_header": "config_db (running)", "after_header": "config_db (target)",
                          "before": before, "after": after})
        if seen["frr_changed"]:
            diffs.append({"before_header": args["frr_conf_path"], "after_header": args["frr_conf_path"] + " (build)",
                          "before": seen["frr_previous"] or "", "after": frr_text})
        return diffs
