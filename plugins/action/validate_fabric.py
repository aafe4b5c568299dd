# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action gpucluster.fabric.validate_fabric: compare the live cluster with its plan, once, on the controller."""
from __future__ import annotations

import os

from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.nos_registry import home
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.progress import selected_stages
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.tenants.state import assignment_for
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.validate.checks import CHECKS, select
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.validate import report as reports
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.validate.expect import Expectation
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.validate.napalm_state import collect_napalm
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.validate.observations import (
    FACT, carried, read_fact_file, recording, write_fact_files)
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.validate.runner import (
    collect_all, command_collector, validate)
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.twin import NetnsTransport, twin_lldp_socket
from ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric.validate.transport import SshTransport
from ansible_collections.gpucluster.fabric.plugins.plugin_utils.planned_action import PlannedAction

NETNS_CONNECTION = "gpucluster.fabric.netns"
TRANSPORTS = ("auto", "netns", "ssh", "napalm")
PHASES = ("all", "collect", "check")


def _fact_cache_dir():
    """The directory of a jsonfile fact cache (AWX's use_fact_cache sets one per job), or None."""
    from ansible import constants as C
    plugin = C.config.get_config_value("CACHE_PLUGIN") or ""
    directory = C.config.get_config_value("CACHE_PLUGIN_CONNECTION")
    return os.path.expanduser(directory) if directory and plugin.rsplit(".", 1)[-1] == "jsonfile" else None


def _observation(hostvars, name, cache_dir):
    """A device's encoded state: its fact as Ansible's fact cache gave it, else its facts file in AWX's form."""
    facts = _var(hostvars, name, "ansible_facts", {})
    found = facts.get(FACT) if isinstance(facts, dict) else None
    return found if found is not None else read_fact_file(cache_dir, name)


def _var(hostvars, host, key, default=None):
    try:
        value = hostvars[host].get(key, default) if host in hostvars else default
    # An undefined or untemplatable variable is just absent.
    except Exception:  # pylint: disable=broad-except
        return default
    return default if value is None else value


def _api_hosts(plan, hostvars):
    """{switch: {setting: value}} of the switches reached over their NOS's own API: a home whose collectors give
    ``API_VARS`` ({setting: host variable}) and ``api_transport``, for a switch whose host variables set the first
    (its address). Under transport auto or netns those switches are read there, as on a real fabric: the twin's
    stand-in answers its NOS's API, not a tool in the namespace."""
    out = {}
    for dev in plan.devices:
        if not dev.nos or dev.name not in hostvars:
            continue
        collectors = home(dev.nos).collectors
        names = getattr(collectors, "API_VARS", None)
        if not names or not hasattr(collectors, "api_transport"):
            continue
        settings = {key: _var(hostvars, dev.name, var) for key, var in names.items()}
        if settings[next(iter(names))]:
            out[dev.name] = settings
    return out


class ActionModule(PlannedAction):
    PROGRESS = "validate"
    _VALID_ARGS = frozenset(("spec", "build_dir", "tenants", "drain", "undrain", "replace", "restore", "transport", "max_workers",
                             "fail_on_failure", "include", "exclude", "thresholds", "networks", "devices", "lldp_socket",
                             "phase"))

    def _transport_of(self, host, hostvars, default, api=None):
        if api and host in api and default in ("auto", "netns"):
            return "api"
        if default != "auto":
            return default
        if _var(hostvars, host, "ansible_connection") == NETNS_CONNECTION:
            return "netns"
        if _var(hostvars, host, "napalm_driver"):
            return "napalm"
        return "ssh"

    def planned(self, result, args, task_vars):
        hostvars = task_vars.get("hostvars", {})
        default = args.get("transport", "auto")
        if default not in TRANSPORTS:
            return dict(result, failed=True, msg="transport must be one of %s, not %r" % (", ".join(TRANSPORTS), default))
        phase = args.get("phase") or "all"
        if phase not in PHASES:
            return dict(result, failed=True, msg="phase must be one of %s, not %r" % (", ".join(PHASES), phase))
        progress = self.progress
        path, plan, build_dir = self.plan(args, task_vars)
        assignment_for(plan, build_dir, args.get("tenants"))   # tenant_isolation checks the running tenant assignment
        cluster = plan.summary["cluster"]
        socket = args.get("lldp_socket")
        netns = NetnsTransport(
            lldp_socket=(lambda host: socket.format(cluster=cluster, host=host)) if socket
            else (lambda host: twin_lldp_socket(cluster, host)))
        # A switch speaks the NOS its role runs (the plan's `nos`); servers and hosts are Linux.
        flavours = {d.name: d.nos or "linux" for d in plan.devices}
        ssh = SshTransport(hosts={
            host: {"host": _var(hostvars, host, "ansible_host"), "user": _var(hostvars, host, "ansible_user"),
                   "port": _var(hostvars, host, "ansible_port"),
                   "flavour": flavours[host]}
            for host in flavours if host in hostvars})
        api = _api_hosts(plan, hostvars)
        by_nos = {nos: home(nos).collectors.api_transport({h: s for h, s in api.items() if flavours[h] == nos})
                  for nos in {flavours[h] for h in api}}

        def transport_for(host):
            kind = self._transport_of(host, hostvars, default, api)
            return by_nos[flavours[host]] if kind == "api" else netns if kind == "netns" else ssh

        commands = command_collector(transport_for)

        def collect(dev, sources, expect):
            if self._transport_of(dev.name, hostvars, default, api) != "napalm":
                return commands(dev, sources, expect)
            return collect_napalm(dev.name, dev.role, sources, _var(hostvars, dev.name, "napalm_driver"),
                                  _var(hostvars, dev.name, "ansible_host", dev.name),
                                  _var(hostvars, dev.name, "ansible_user"), _var(hostvars, dev.name, "ansible_password"),
                                  _var(hostvars, dev.name, "napalm_optional_args", {}))

        include, exclude = args.get("include"), args.get("exclude")
        if not include:
            # Tags naming checks run only those; --skip-tags naming checks leave them out.
            names = [c.name for c in CHECKS]
            chosen = selected_stages(names, task_vars.get("ansible_run_tags"), task_vars.get("ansible_skip_tags"))
            include = chosen if len(chosen) < len(names) else None
        if phase == "collect":
            return self._collect_only(result, plan, collect, include, exclude, args, task_vars)
        if phase == "check":
            cache_dir = _fact_cache_dir()
            collect = carried(lambda name: _observation(hostvars, name, cache_dir))
        baseline = reports.read_baseline(build_dir, cluster)
        try:
            report = validate(plan, collect, baseline=baseline, include=include, exclude=exclude,
                              thresholds=args.get("thresholds"), max_workers=int(args.get("max_workers", 16)),
                              networks=args.get("networks") or ["backend"], devices=args.get("devices"))
        except ValueError as exc:
            return dict(result, failed=True, msg=str(exc))
        timing = report["timing"]
        progress.phase("collect", report["devices"], "devices", timing["collect_wall_s"])
        progress.phase("checks", len(report["results"]), "results", timing["checks_wall_s"])
        paths = reports.write_reports(report, build_dir, baseline)
        text = reports.summary(report)
        problems = [r._asdict() for r in report["results"] if r.status in ("FAIL", "ERROR")]
        result.update(changed=False, cluster=cluster, spec=path, counts=report["counts"], timing=report["timing"],
                      reports=paths, summary_lines=text.splitlines(), failures=problems[:200],
                      devices=report["devices"], progress=progress.total())
        if problems and args.get("fail_on_failure", True):
            result.update(failed=True, msg="%d check results failed (FAIL %d, ERROR %d); see %s"
                          % (len(problems), report["counts"]["FAIL"], report["counts"]["ERROR"], paths["markdown"]))
        return result

    def _collect_only(self, result, plan, collect, include, exclude, args, task_vars):
        """Phase collect: the devices of this job's inventory (a slice's, under AWX job slicing), within --limit,
        collected for the selected checks, each one's state written as its host's facts file in the fact cache's
        directory (the form AWX stores; observations.py), for a later job to check. The expectation, and so every
        server's probe targets, stays the whole fabric's."""
        cache_dir = _fact_cache_dir()
        if not cache_dir:
            return dict(result, failed=True, msg="phase collect keeps each device's state as a fact for the check job: "
                        "it needs a jsonfile fact cache (AWX: Enable Fact Storage; else ANSIBLE_CACHE_PLUGIN=jsonfile "
                        "and ANSIBLE_CACHE_PLUGIN_CONNECTION=<directory>)")
        only = set((task_vars.get("groups") or {}).get("all", ()))
        if args.get("devices"):
            only &= set(args["devices"])
        expect = Expectation(plan, networks=args.get("networks") or ["backend"])
        kept = {}
        collect_all(expect, select(include, exclude), recording(collect, kept), int(args.get("max_workers", 16)), only)
        write_fact_files(cache_dir, kept)
        self.progress.phase("collect", len(kept), "devices", self.progress.elapsed())
        result.update(changed=False, cluster=plan.summary["cluster"], devices=len(kept), fact_cache=cache_dir,
                      progress=self.progress.total())
        return result
