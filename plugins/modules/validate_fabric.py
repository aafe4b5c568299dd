# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
module: validate_fabric
short_description: Validate the live GPU cluster fabric against its plan
version_added: 0.1.0
description:
  - Runs on the controller (an action plugin), once for the whole fabric (use C(run_once)). It plans the cluster
    from its spec, collects every device's state once (LLDP neighbours, BGP sessions, interfaces and counters,
    routes and ECMP, QoS, server NIC addresses and policy routing), concurrently with a bound, and runs checks that
    compare it with the plan.
  - 'Checks: C(cabling) (per port, expected vs seen LLDP peer, two swapped cables reported as one swap),
    C(link_state), C(mtu), C(interface_errors), C(interface_speed), C(optics_dom), C(bgp_sessions) (planned sessions
    Established with the planned ASNs, no unplanned ones), C(leaf_summaries) (each leaf announces its summary,
    nothing more specific leaks), C(ecmp_width), C(rail_isolation) (rail_planes),
    C(qos_backend_links) and C(qos_nic_leaf) (PFC/ECN identical on both ends and as planned),
    C(server_addressing), C(server_policy_routing), C(rail_reachability) (ICMP from every rail NIC to the same
    rail of every other server and, with rail planes or tenants, not across), C(path_mtu) (an echo as large as the NIC MTU,
    with DF set, crosses the fabric and comes back).'
  - Each result is PASS, FAIL, SKIP (the device has no such source) or ERROR (collection failed) and names device,
    check and object. Reports are written to I(build_dir)/validation/<cluster>/ (outside I(build_dir)/<cluster>/,
    which a build replaces) as C(report.json), C(report.md) and C(junit.xml), with C(counters.json), the carrier
    change readings from which the next run counts flaps.
  - The task fails when a result is FAIL or ERROR, unless I(fail_on_failure=false). It changes nothing on any device.
extends_documentation_fragment:
  - gpucluster.fabric.plan_source
  - gpucluster.fabric.plan_source.build_dir
  - gpucluster.fabric.plan_source.tenants
  - gpucluster.fabric.plan_source.drain
  - gpucluster.fabric.plan_source.swap
options:
  transport:
    description:
      - How devices are reached. C(auto) decides per host. C(netns) when the host's C(ansible_connection) is
        C(gpucluster.fabric.netns) (the virtual twin), C(napalm) when the host has a C(napalm_driver) variable,
        otherwise C(ssh).
      - C(netns) runs commands in the network namespace named after the host and C(vtysh -N <host>).
        It also runs C(lldpcli -u) on the twin's lldpd socket. A switch's own configuration is read from the switch,
        through its NOS's management plane on the twin (its live configuration database, read by the NOS's own
        command), never from the build.
      - C(ssh) uses OpenSSH with keys only (BatchMode) to C(ansible_host)/C(ansible_user)/C(ansible_port).
        Each switch is read as the NOS its role runs in the spec (C(nos); its home's collectors).
      - C(napalm) uses the NAPALM driver in C(napalm_driver) with C(ansible_user)/C(ansible_password) and
        C(napalm_optional_args).
    type: str
    choices: [auto, netns, ssh, napalm]
    default: auto
  max_workers:
    description: How many devices are collected at the same time.
    type: int
    default: 16
  fail_on_failure:
    description: Fail the task when any result is FAIL or ERROR.
    type: bool
    default: true
  include:
    description: Run only these checks (names as listed above).
    type: list
    elements: str
  exclude:
    description: Do not run these checks.
    type: list
    elements: str
  thresholds:
    description:
      - Limits for C(interface_errors) and C(optics_dom).
      - Keys C(errors) (default 100, per counter), C(discards) (10000), C(flaps) (carrier changes, 10),
        C(rx_power_dbm) (-10.0).
    type: dict
  networks:
    description: Networks whose devices and links are validated.
    type: list
    elements: str
    choices: [backend, frontend, oob]
    default: [backend]
  devices:
    description: Validate only these devices (plan names); links to devices outside the list are checked from one side.
    type: list
    elements: str
  lldp_socket:
    description:
      - C(netns) transport, the lldpd control socket per host as a template with C({cluster}) and C({host}).
      - Default is the virtual twin's own socket path.
    type: str
  phase:
    description:
      - C(all) collects every selected device and checks it, in this task.
      - C(collect) only collects the devices of the job's inventory (one slice's, under AWX job slicing), within
        I(devices). It writes each one's state as the C(fabric_observation) fact of its host, a file C(<host>) in the
        jsonfile fact cache's directory (the form AWX's fact cache stores; a jsonfile fact cache is required).
        No check runs and no report is written. The probes of each server still target the whole fabric.
      - C(check) collects nothing. It checks the states that earlier C(collect) runs left as each host's
        C(fabric_observation) fact (AWX's fact cache carries them from job to job). A device without one is
        an ERROR of every check that reads it, never a PASS.
    type: str
    choices: [all, collect, check]
    default: all
notes:
  - Timing is returned per run. C(controller_cpu_ms_per_device) is the controller's own CPU time (parsing and checks)
    per device. The commands' own CPU time is reported apart as C(command_cpu_s).
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
- name: Validate the fabric against the plan
  gpucluster.fabric.validate_fabric:
    build_dir: "{{ playbook_dir }}/../build"
    max_workers: 16
  run_once: true
  register: fabric_validation

- name: Validate the virtual twin's cabling and BGP only, without failing the play
  gpucluster.fabric.validate_fabric:
    transport: netns
    include: [cabling, bgp_sessions]
    fail_on_failure: false
  run_once: true
"""

RETURN = r"""
fact_cache:
  description: With I(phase=collect), the fact cache's directory the devices' states were written to.
  returned: phase is collect
  type: str
cluster:
  description: Cluster name.
  returned: success
  type: str
  sample: lab
devices:
  description: Number of devices collected.
  returned: success
  type: int
  sample: 22
counts:
  description: Results by status.
  returned: success
  type: dict
  sample: {"PASS": 848, "FAIL": 0, "SKIP": 34, "ERROR": 0}
failures:
  description: The FAIL and ERROR results (at most 200), each with device, check, object, status and message.
  returned: success
  type: list
  elements: dict
reports:
  description: Paths of the reports written (keys json, markdown, junit).
  returned: success
  type: dict
summary_lines:
  description: The summary printed for humans, one line per FAIL/ERROR (at most 40).
  returned: success
  type: list
  elements: str
timing:
  description: Wall time, controller CPU time, per-device controller CPU time in ms and command CPU time.
  returned: success
  type: dict
spec:
  description: The spec file validated against.
  returned: success
  type: str
"""
