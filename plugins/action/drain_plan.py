# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.drain_plan: decide on the controller whether a switch may be drained, and how."""
from __future__ import annotations

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.build import switch_files
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.day2 import drain
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home, nos_of
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.specfile import plan_for_task
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.structured import structured_configs
from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction

STATES = ("drained", "undrained")


class ActionModule(PlannedAction):
    _VALID_ARGS = frozenset(("spec", "switch", "state", "confirm_leaf", "native", "wave"))

    @staticmethod
    def _switch_config(args, task_vars, key, switch):
        """(the switch's structured config with it drained (key "drain") or not ("undrain"), the spec)."""
        plan = plan_for_task({"spec": args.get("spec"), key: [switch]}, task_vars)[1]
        return structured_configs(plan)[switch], plan.spec

    def planned(self, result, args, task_vars):
        switch, state = args.get("switch"), args.get("state", "drained")
        if not switch or state not in STATES:
            return dict(result, failed=True, msg="drain_plan needs switch (a hostname) and state (%s), got %r and %r"
                        % (" or ".join(STATES), switch, state))
        base = self.plan({"spec": args.get("spec")}, task_vars)[1]
        nos = next((d.nos for d in base.devices if d.name == switch), None)
        native = bool(args.get("native"))
        if nos and getattr(home(nos), "frr_conf", None) is None and not native:
            # Its routing config is part of the NOS's own config (an NVUE revision, say), not an frr.conf that
            # vtysh commands and a file write can drain; its deploy role changes it without a drain.
            return dict(result, failed=True, msg="%s runs %s, whose routing is in its own configuration, not an frr.conf: "
                        "ask with native=true (drain.yml does, from the inventory's fabric_routing_native)" % (switch, nos))
        kept = drain.drained_switches(base)
        confirm_needed = drain.needs_confirmation(base, [switch])
        # The switches drained at the same time as this one (a rollout wave, deploy.yml): the last-path refusal
        # judges them together, as one drain.
        wave = [switch] + sorted(set(args.get("wave") or ()) - {switch})
        if state == "drained":
            refusal, warnings = drain.check_drain(base, wave, bool(args.get("confirm_leaf")))
            warnings = [w for w in warnings if w.startswith(switch + " ") or w.startswith(switch + ":")] \
                if len(wave) > 1 else warnings
        else:
            refusal, warnings = None, []
            if switch in kept:
                refusal = ("%s is in maintenance.drained of the spec: remove it there, then run undrain.yml "
                           "(or deploy.yml)" % switch)
        if refusal:
            return dict(result, failed=True, msg=refusal, costs=warnings, confirm_needed=confirm_needed)
        (drained, spec), (undrained, _spec) = (self._switch_config(args, task_vars, key, switch)
                                               for key in ("drain", "undrain"))
        target, before = (drained, undrained) if state == "drained" else (undrained, drained)
        nos_home = home(nos_of(target))
        # The lines that shift traffic on the running switch, and the line showing it is drained: its NOS's.
        result.update(changed=False, switch=switch, state=state, costs=warnings, confirm_needed=confirm_needed,
                      commands=nos_home.drain.commands(target["bgp"], drain=state == "drained"),
                      neighbours=drain.neighbours(base, switch), kept_drained=sorted(kept),
                      network=base.device(switch).role.split("_")[0], marker=nos_home.drain.RUNNING_MARKER,
                      cluster=base.summary["cluster"],
                      sessions=[n["ip"] for n in target["bgp"]["neighbors"]])
        if getattr(nos_home, "frr_conf", None) is not None:
            result.update(frr_conf=nos_home.frr_conf(target), frr_conf_before=nos_home.frr_conf(before))
        if native:
            # The NOS's own configuration files in each state, for a deploy role whose NOS keeps its routing there.
            try:
                result.update(native_config=switch_files(target, spec), native_config_before=switch_files(before, spec))
            except ValueError as exc:
                return dict(result, failed=True, msg="%s: %s" % (switch, exc))
        return result
