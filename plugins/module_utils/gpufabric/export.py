"""The plan as data for others: lean Ansible hostvars and groups, and the whole plan as JSON."""
import json
import os

from .day2.spares import server_state
from .files import write_atomic
from .ipam import cidr, fmt
from .nos_registry import ansible_network_os, deploy_facts, names as nos_names, platform
from .spec import port_mtu

ROLE_GROUP = {"gpu_server": "gpu_servers", "backend_host": "backend_hosts"}
PARENTS = {"backend_leaf": "backend", "backend_spine": "backend", "backend_superspine": "backend",
           "frontend_leaf": "frontend", "frontend_spine": "frontend", "frontend_superspine": "frontend",
           "oob_switch": "oob", "backend_core": "backend"}


def _mtus(spec):
    return {(server, network): port_mtu(spec, network, server)
            for server in (True, False) for network in ("backend", "frontend", "oob")}


def interfaces(dev, mtus, plane_rdma=None):
    """Every cabled port of ``dev``: {name, peer, peer_interface, network, speed, mtu[, ipv4, ipv6, rdma]}.
    ``plane_rdma``: a multi-plane plan's {NIC plane port: RDMA device} (plan.plane_rdma)."""
    server = dev.role in ("gpu_server", "backend_host")
    rdma = {n["name"]: n["rdma"] for n in dev.model.backend_nics if n.get("rdma")} if server else {}
    if server and plane_rdma:
        rdma = plane_rdma
    out = []
    for end in dev.ends():
        link = end.link
        entry = {"name": end.port, "peer": end.peer.name, "peer_interface": end.peer_port, "network": link.network,
                 "speed": link.speed * 1000, "mtu": mtus[(server, link.network)]}
        if link.ipv4 is not None:
            entry["ipv4"] = end.ipv4
        if link.ipv6 is not None:
            entry["ipv6"] = end.ipv6
        if end.port in rdma and link.network == "backend":
            entry["rdma"] = rdma[end.port]
        out.append(entry)
    return out


def groups_of(dev, be_pods=False, fe_pods=False):
    """Inventory groups of a device: role, rail, scalable unit, pod, rack (names safe for Ansible)."""
    groups = [ROLE_GROUP.get(dev.role, dev.role)]
    if dev.rail is not None and dev.role.startswith("backend"):
        groups.append("rail_%d" % dev.rail)
    if dev.fabric_plane is not None:
        groups.append("plane_%d" % (dev.fabric_plane + 1))
    if dev.su is not None and dev.role in ("gpu_server", "backend_leaf", "backend_host"):
        groups.append("su_%02d" % (dev.su + 1))
    if dev.kind is not None:
        groups.append("backend_host_" + dev.kind)
    if be_pods and dev.role in ("backend_leaf", "backend_spine"):
        groups.append("pod_%02d" % (dev.pod + 1))
    if fe_pods and dev.role in ("frontend_leaf", "frontend_spine"):
        groups.append("frontend_pod_%02d" % (dev.pod + 1))
    if dev.nos is not None:
        groups.append("nos_" + dev.nos)
    if dev.spare:
        groups.append("spare_servers")
    groups.append("rack_" + dev.rack.name.replace("-", "_"))
    return groups


def hostvars(plan, names=None):
    """{host: {ansible_host, fabric}} in plan order (of the hosts in ``names``, a set, if given): what plays need,
    not the whole plan."""
    mtus = _mtus(plan.spec)
    pods = plan.summary["backend"]["tiers"] >= 3
    fe_pods = plan.summary.get("frontend", {}).get("tiers") == 3
    mgmt_gateway = fmt(plan.mgmt_gateway)
    network_os = {name: ansible_network_os(name) for name in nos_names()}
    out = {}
    for dev in plan.devices if names is None else (d for d in plan.devices if d.name in names):
        fab = {"role": dev.role, "model": dev.model.name, "rack": dev.rack.name,
               "mgmt_ipv4": cidr(dev.mgmt, plan.mgmt_prefix), "mgmt_gateway": mgmt_gateway}
        if dev.nos is not None:
            fab["nos"] = dev.nos
        if dev.rail is not None:
            fab["rail"] = dev.rail
        if dev.fabric_plane is not None:
            fab["plane"] = dev.fabric_plane + 1
        if dev.su is not None and dev.role in ("gpu_server", "backend_leaf", "backend_host"):
            fab["su"] = dev.su + 1
        if dev.kind is not None:
            fab["kind"] = dev.kind
        if dev.pod is not None and (pods if dev.role.startswith("backend") else fe_pods):
            fab["pod"] = dev.pod + 1
        if dev.asn is not None:
            fab["asn"] = dev.asn
        if dev.loopback is not None:
            fab["loopback_ipv4"] = fmt(dev.loopback)
        if dev.loopback6 is not None:
            fab["loopback_ipv6"] = fmt(dev.loopback6, 6)
        if dev.server_block is not None:
            fab["server_summary_ipv4"] = cidr(*dev.server_block)
        if dev.bmc is not None:
            fab["bmc_ipv4"] = fmt(dev.bmc)
        if dev.frontend_ip is not None:
            fab["frontend_ipv4"] = cidr(dev.frontend_ip, dev.frontend_block[1])
            fab["frontend_gateway"] = fmt(dev.frontend_block[0] + 1)
        if dev.role in ("gpu_server", "backend_host"):
            # The gpu_server role configures the server's ports from these. A switch's ports are half of
            # an inventory's values at scale, and its plays read them from build/<cluster>/devices/ (the
            # structured config) instead, so holding them per host would only slow Ansible down.
            fab["interfaces"] = interfaces(dev, mtus, plan.plane_rdma)
            fab.update(server_state(plan, dev))
        out[dev.name] = {"ansible_host": fmt(dev.mgmt), "fabric": fab}
        if dev.nos is not None:
            out[dev.name]["ansible_network_os"] = network_os[dev.nos]
    return out


def nos_group_vars(members):
    """{nos_<name>: variables} for each NOS group in ``members``: how plays reach the NOS's FRR and which role and
    plays change its switches (platforms.yml), as group variables so a 100,000-host inventory holds them once per
    NOS, not once per switch."""
    out = {}
    for name in nos_names():
        group = "nos_" + name
        if group in members:
            frr = platform(name)["frr"]
            deploy = deploy_facts(name)
            out[group] = {"fabric_vtysh_command": frr["vtysh_command"], "fabric_frr_conf_path": frr["conf_path"],
                          "fabric_deploy_role": deploy["role"], "fabric_deploy_plays": list(deploy["plays"])}
            if deploy.get("tenancy_command"):
                out[group]["fabric_tenancy_command"] = deploy["tenancy_command"]
            if deploy.get("routing_native"):
                out[group]["fabric_routing_native"] = True
    return out


def inventory_groups(plan):
    """(group -> [hosts]) and (parent -> [children]) for the inventory plugin, both in stable order."""
    members = {}
    be_pods = plan.summary["backend"]["tiers"] >= 3
    fe_pods = plan.summary.get("frontend", {}).get("tiers") == 3
    for dev in plan.devices:
        for g in groups_of(dev, be_pods, fe_pods):
            members.setdefault(g, []).append(dev.name)
    children = {}
    for child, parent in PARENTS.items():
        children.setdefault(parent, []).append(child)
    children["switches"] = ["backend", "frontend", "oob"]
    return members, children


def plan_dict(plan):
    """The whole plan: summary, spec (with defaults), racks, devices and links."""
    devices = []
    for dev in plan.devices:
        d = {"name": dev.name, "role": dev.role, "model": dev.model.name, "index": dev.index,
             "rack": dev.rack.name, "slot": dev.slot}
        if dev.nos is not None:
            d["nos"] = dev.nos
        for key in ("rail", "su", "pod", "plane", "side", "asn", "fabric_plane"):
            value = getattr(dev, key)
            if value is not None:
                d[key] = value
        for key, value in (("loopback_ipv4", dev.loopback), ("mgmt_ipv4", dev.mgmt), ("bmc_ipv4", dev.bmc)):
            if value is not None:
                d[key] = fmt(value)
        if dev.loopback6 is not None:
            d["loopback_ipv6"] = fmt(dev.loopback6, 6)
        if dev.server_block is not None:
            d["server_summary_ipv4"] = cidr(*dev.server_block)
        if dev.frontend_ip is not None:
            d["frontend_ipv4"] = cidr(dev.frontend_ip, dev.frontend_block[1])
        if dev.role == "gpu_server":
            d.update(server_state(plan, dev))
        devices.append(d)
    links = []
    for link in plan.links:
        item = {"network": link.network, "tier": link.tier, "a": link.a.name, "a_port": link.a_port,
                "b": link.b.name, "b_port": link.b_port, "speed": link.speed}
        if link.ipv4 is not None:
            item["a_ipv4"] = cidr(link.ipv4, 31)
            item["b_ipv4"] = cidr(link.ipv4 + 1, 31)
        if link.ipv6 is not None:
            item["a_ipv6"] = cidr(link.ipv6, 127, 6)
            item["b_ipv6"] = cidr(link.ipv6 + 1, 127, 6)
        links.append(item)
    racks = [{"name": r.name, "row": r.row, "column": r.column, "kind": r.kind} for r in plan.racks]
    return {"summary": plan.summary, "spec": plan.spec, "racks": racks, "devices": devices, "links": links}


def plan_files(plan):
    """{"plan.json": whole plan, "summary.json": summary} as the text write_plan writes."""
    return {"plan.json": json.dumps(plan_dict(plan), sort_keys=False, separators=(",", ":")) + "\n",
            "summary.json": json.dumps(plan.summary, indent=1, sort_keys=False) + "\n"}


def write_plan(plan, build_dir):
    """build/<cluster>/plan.json (whole plan) and summary.json; returns the paths that changed."""
    base = os.path.join(build_dir, plan.summary["cluster"])
    changed = []
    for name, text in plan_files(plan).items():
        path = os.path.join(base, name)
        if write_atomic(path, text):
            changed.append(path)
    return changed
