"""Tenants in VRF mode: the assignment's VRF demands, the rendered VRFs (golden), the change of a move
(only the moved server's leaves), the reachability the VRFs imply, FRR's parser; and tenants on a
top-of-rack fabric, whose leaves carry every rail."""
import json
import os
import shutil
import subprocess

import pytest
import yaml

from conftest import ROOT, load_example
from tenant_helpers import LEAVES, example, match_golden, rendered
from gpufabric.plan import build_plan
from gpufabric.nos.sonic.render import render_device
from gpufabric.nos.sonic.config_db import config_db
from gpufabric.nos.sonic.schema import check_config_db
from gpufabric.tenants import AssignmentError, attach, parse_assignment, plan_servers
from gpufabric.tenants.change import plan_change
from gpufabric.tenants.reach import Reach, rail_nics

GOLDEN = os.path.join(ROOT, "tests", "golden", "lab", "tenants-vrf")


@pytest.fixture(scope="module")
def plan():
    return build_plan(load_example("lab"))


def leaves_of(plan, server):
    return {link.a.name for link in plan.device(server).links if link.network == "backend" and link.b.name == server}


# --- the assignment -------------------------------------------------------------------------------

def test_vrf_mode_needs_a_unique_id_and_a_short_name(plan):
    with pytest.raises(AssignmentError) as info:
        parse_assignment({"isolation": "vrf", "tenants": {
            "alpha": {"servers": ["lab-gpu0001"]},
            "beta": {"id": 7, "servers": ["lab-gpu0002"]},
            "gamma": {"id": 7, "servers": ["lab-gpu0003"]},
            "averylongname": {"id": 9, "servers": ["lab-gpu0004"]}}}, plan_servers(plan), "lab")
    assert info.value.problems == [
        "tenants.alpha.id: isolation vrf needs a tenant id, a whole number 1..4094 that stays the tenant's while it "
        "exists (it tags its routes); got None",
        "tenants.gamma.id: 7 is already the id of tenant beta: every tenant needs its own",
        "tenants.averylongname: isolation vrf: a tenant name has at most 11 characters (its VRF, "
        "Vrf-averylongname, is a Linux interface name of at most 15)"]
    acl = parse_assignment({"tenants": {"averylongname": {"servers": ["lab-gpu0001"]}}}, plan_servers(plan))
    assert acl.isolation == "acl" and acl.ids == {}, "the ACL mode asks for neither"


# --- the rendered VRFs ----------------------------------------------------------------------------

def test_rendered_vrfs_match_the_golden_files(plan):
    configs = rendered(plan, example(plan, "lab-vrf.tenants.yml"))
    files = {}
    for leaf in LEAVES:
        db = config_db(configs[leaf])
        files["%s.structured.yml" % leaf] = yaml.safe_dump(configs[leaf]["tenant_isolation"], sort_keys=True)
        files["%s.vrf.json" % leaf] = json.dumps({"VRF": db["VRF"], "INTERFACE": db["INTERFACE"]},
                                                 indent=4, sort_keys=True) + "\n"
        files["%s.frr.conf" % leaf] = render_device(configs[leaf])["frr.conf"]
    match_golden(GOLDEN, files)


def test_every_server_port_is_in_its_tenants_vrf_or_behind_the_quarantine(plan):
    servers = plan_servers(plan)
    a = parse_assignment({"isolation": "vrf", "tenants": {"alpha": {"id": 1, "servers": ["lab-gpu0001"]},
                                                          "beta": {"id": 2, "servers": ["lab-gpu0003"]}}}, servers)
    configs = rendered(plan, a)
    for dev in plan.by_role("backend_leaf"):
        cfg = configs[dev.name]
        db = config_db(cfg)
        assert check_config_db(db) == [], dev.name
        section = cfg["tenant_isolation"]
        ports = {i["name"]: i["peer"] for i in cfg["ethernet_interfaces"] if i.get("tier") == "server"}
        for port, server in ports.items():
            tenant = a.tenant_of(server)
            if tenant == "free":
                assert "vrf_name" not in db["INTERFACE"][port]
                assert port in db["ACL_TABLE"]["QUARANTINE"]["ports"]
            else:
                assert db["INTERFACE"][port] == {"vrf_name": "Vrf-" + tenant}
        assert sorted(db["VRF"]) == sorted(v["name"] for v in section["vrfs"])
        assert "summary-only" not in render_device(cfg)["frr.conf"], "host routes carry the communities"
        assert all(t["type"] != "L3" or n == "QUARANTINE" for n, t in db["ACL_TABLE"].items())


needs_frr = pytest.mark.skipif(shutil.which("vtysh") is None,
                               reason="FRR is not installed (vtysh missing): `make setup` or apt-get install frr")


@needs_frr
def test_vrf_frr_conf_passes_frrs_own_parser(plan, tmp_path):
    configs = rendered(plan, example(plan, "lab-vrf.tenants.yml"), LEAVES)
    for leaf in LEAVES:
        path = tmp_path / (leaf + ".conf")
        path.write_text(render_device(configs[leaf])["frr.conf"])
        result = subprocess.run(["vtysh", "--dryrun", "-f", str(path)], capture_output=True, text=True, check=False)
        assert result.returncode == 0, (leaf, result.stdout, result.stderr)


# --- the change of a move -------------------------------------------------------------------------

def test_a_move_changes_only_the_leaves_of_the_moved_server(plan):
    old, new = example(plan, "lab-vrf.tenants.yml"), example(plan, "lab-vrf-moved.tenants.yml")
    change = plan_change(plan, old, new)
    assert change["moves"] == [{"server": "lab-gpu0003", "from": "alpha", "to": "beta"}]
    own = leaves_of(plan, "lab-gpu0003")
    assert len(own) == 8
    assert [p["name"] for p in change["phases"]] == ["revoke", "grant"]
    for phase in change["phases"]:
        assert set(phase["hosts"]) == own, phase["name"]
    revoke, grant = change["phases"]
    # lab-r0-leaf02 serves lab-gpu0003 (alpha) and lab-gpu0004 (beta): alpha leaves the leaf.
    assert revoke["leaves"]["lab-r0-leaf02"] == {"ports": ["Ethernet0 alpha -> free"], "acls": ["QUARANTINE"],
                                                 "vrfs": ["Vrf-alpha removed"]}
    assert grant["leaves"]["lab-r0-leaf02"] == {"ports": ["Ethernet0 free -> beta"], "acls": ["QUARANTINE"],
                                                "vrfs": []}
    back = plan_change(plan, new, old)
    assert {h for p in back["phases"] for h in p["hosts"]} == own
    assert plan_change(plan, new, new)["phases"] == [], "a second run changes nothing"
    # Files of the other leaves are byte for byte the same under both assignments.
    before, after = rendered(plan, old), rendered(plan, new)
    differ = {leaf.name for leaf in plan.by_role("backend_leaf")
              if render_device(before[leaf.name]) != render_device(after[leaf.name])}
    assert differ == own
    assert all(before[d.name] == after[d.name] for d in plan.devices if d.role == "backend_spine")


def test_first_vrf_isolation_and_a_mode_change_touch_every_leaf(plan):
    everyone = {d.name for d in plan.by_role("backend_leaf")}
    first = plan_change(plan, None, example(plan, "lab-vrf.tenants.yml"))
    assert set(first["phases"][0]["hosts"]) == everyone
    mode = plan_change(plan, example(plan, "lab.tenants.yml"), example(plan, "lab-vrf.tenants.yml"))
    assert {h for p in mode["phases"] for h in p["hosts"]} == everyone


# --- what the VRFs let through --------------------------------------------------------------------

def test_vrfs_let_a_tenant_reach_itself_and_nothing_else(plan):
    a = example(plan, "lab-vrf.tenants.yml")
    reach = Reach(plan, a)
    nics = rail_nics(plan)
    for server, found in nics.items():
        for src in found:
            for other, others in nics.items():
                if other == server:
                    continue
                for dst in others:
                    same = a.tenant_of(server) == a.tenant_of(other)
                    assert reach.both_ways(src, dst) == same, (src.label(), dst.label())
    gpu1 = nics["lab-gpu0001"][0]
    assert reach.decided_by(gpu1.leaf, gpu1.port) == "VRF Vrf-alpha"
    free = Reach(plan, parse_assignment({"isolation": "vrf", "tenants": {"a": {"id": 1, "servers": ["lab-gpu0001"]}}},
                                        plan_servers(plan)))
    gpu2, gpu3 = nics["lab-gpu0002"][0], nics["lab-gpu0003"][0]
    assert not free.both_ways(gpu2, gpu3), "two free-pool servers stay apart"
    assert not free.both_ways(gpu1, gpu2), "and apart from the tenant"
    assert free.decided_by(gpu2.leaf, gpu2.port) == "ACL QUARANTINE"


# --- top of rack ----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["acl", "vrf"])
def test_tenants_on_a_top_of_rack_fabric(mode):
    """A top-of-rack leaf carries every rail of its servers: the ACL permits the tenant's NICs on all of
    them, and the VRF holds the ports of every rail."""
    plan = build_plan(load_example("tor-lab"))
    servers = plan_servers(plan)
    tenants = {"alpha": {"id": 1, "servers": [servers[0], servers[2]]},
               "beta": {"id": 2, "servers": [servers[1], servers[3]]}}
    a = parse_assignment({"isolation": mode, "tenants": tenants}, servers)
    configs = rendered(plan, a)
    leaves = plan.by_role("backend_leaf")
    for leaf in leaves:
        section = configs[leaf.name]["tenant_isolation"]
        assert check_config_db(config_db(configs[leaf.name])) == []
        if mode == "acl":
            acl = next(x for x in section["acls"] if x["tenant"] == "alpha")
            assert len(acl["ports"]) == 8 and acl["rules"][0]["why"] == "tenant alpha, rails 0, 1, 2, 3, 4, 5, 6, 7"
        else:
            vrf = next(v for v in section["vrfs"] if v["tenant"] == "alpha")
            assert len(vrf["ports"]) == 8
    reach = Reach(plan, a)
    nics = rail_nics(plan)
    for src in nics[servers[0]]:
        assert reach.both_ways(src, nics[servers[2]][src.rail]), src.label()
        assert not reach.both_ways(src, nics[servers[1]][src.rail]), src.label()
    change = plan_change(plan, a, parse_assignment({"isolation": mode, "tenants": {
        "alpha": {"id": 1, "servers": [servers[0]]}, "beta": {"id": 2, "servers": servers[1:]}}}, servers))
    hosts = {h for p in change["phases"] for h in p["hosts"]}
    assert hosts >= leaves_of(plan, servers[2])
    if mode == "vrf":
        assert hosts == leaves_of(plan, servers[2])


# --- the twin's stand-in --------------------------------------------------------------------------

def test_the_twin_gives_each_tenant_vrf_a_namespace_joined_by_ibgp(plan, tmp_path):
    from gpufabric import build, twin
    from gpufabric.twin.vrf import is_vrf_link
    attach(plan, example(plan, "lab-vrf.tenants.yml"))
    try:
        files = build.render_all(plan)
        wanted = twin.build_twin(plan, files)
    finally:
        attach(plan, None)
    leaf, alpha = wanted.namespaces["lab-r0-leaf01"], wanted.namespaces["lab-r0-leaf01-Vrf-alpha"]
    assert len([n for n in wanted.namespaces if "-Vrf-" in n]) == 32, "two tenants on each of 16 leaves"
    # The server port stays in the leaf (LLDP), bridged to the VRF, which carries its /31.
    assert (leaf.ifaces["Ethernet0"].addrs, leaf.ifaces["Ethernet0"].master) == ([], "bEthernet0")
    assert alpha.ifaces["Ethernet0"].addrs == ["10.0.0.0/31"]
    assert ("lab-r0-leaf01", "vEthernet0", "lab-r0-leaf01-Vrf-alpha", "Ethernet0") in wanted.veths
    assert leaf.ifaces["vrfl1"].addrs == ["169.254.0.2/31"] and alpha.ifaces["vrfl1"].addrs == ["169.254.0.3/31"]
    # The switch's import/export policy, translated: the tag on the leaf's inbound session, the filter on the VRF's.
    assert "import vrf" not in leaf.frr_conf and " vrf Vrf-" not in leaf.frr_conf
    assert "route-map TWIN_FROM_Vrf-alpha permit 10\n set community 64512:1\n" in leaf.frr_conf
    assert "  neighbor 169.254.0.3 route-map TWIN_FROM_Vrf-alpha in\n" in leaf.frr_conf
    assert "  neighbor 169.254.0.2 route-map TENANT_ALPHA_IMPORT in\n" in alpha.frr_conf
    assert "route-map TENANT_ALPHA_IMPORT permit 10\n match community TENANT_ALPHA\n" in alpha.frr_conf
    assert alpha.frr_daemons == ("zebra", "bgpd") and is_vrf_link("169.254.0.3") and not is_vrf_link("10.0.0.1")
    # One leaf alone, from its config_db.json and frr.conf only (what reconcile_switch has on a switch): the tenant
    # ids come from the frr.conf's export route-map, so the part is the whole twin's.
    part = twin.Twin(plan.summary["cluster"])
    own = ("devices/lab-r0-leaf02/config_db.json", "devices/lab-r0-leaf02/frr.conf")
    twin.switch_namespaces(part, plan.device("lab-r0-leaf02"), {k: files[k] for k in own},
                           twin.cabled_ports(plan, "lab-r0-leaf02"))
    assert sorted(part.namespaces) == ["lab-r0-leaf02", "lab-r0-leaf02-Vrf-alpha", "lab-r0-leaf02-Vrf-beta"]
    assert part.namespaces["lab-r0-leaf02"].frr_conf == wanted.namespaces["lab-r0-leaf02"].frr_conf
    assert part.namespaces["lab-r0-leaf02"].frr_file == files["devices/lab-r0-leaf02/frr.conf"]
    assert sorted(part.namespaces["lab-r0-leaf02"].ifaces["vrfl1"].addrs) == ["169.254.0.2/31"]
    if shutil.which("vtysh"):
        for ns in (leaf, alpha):
            path = tmp_path / (ns.name + ".conf")
            path.write_text(ns.frr_conf)
            result = subprocess.run(["vtysh", "--dryrun", "-f", str(path)], capture_output=True, text=True, check=False)
            assert result.returncode == 0, (ns.name, result.stdout, result.stderr)


def test_tenant_ids_come_from_the_export_route_map_and_a_vrf_without_one_has_no_routing_yet(plan):
    """The twin numbers a VRF's internal link by the tenant id the leaf's frr.conf exports it with; a VRF that
    CONFIG_DB binds before the frr.conf names it (config replace comes first) gets its ports and nothing more."""
    from gpufabric import build, twin
    from gpufabric.twin.vrf import tenant_ids
    attach(plan, example(plan, "lab-vrf.tenants.yml"))
    try:
        files = build.render_all(plan)
    finally:
        attach(plan, None)
    conf = files["devices/lab-r0-leaf01/frr.conf"]
    assert tenant_ids(conf) == {"Vrf-alpha": 1, "Vrf-beta": 2}
    open_conf = build.render_all(plan)["devices/lab-r0-leaf01/frr.conf"]
    assert tenant_ids(open_conf) == {}
    part = twin.Twin(plan.summary["cluster"])
    leaf = twin.switch_namespaces(part, plan.device("lab-r0-leaf01"),
                                  {"devices/lab-r0-leaf01/config_db.json": files["devices/lab-r0-leaf01/config_db.json"],
                                   "devices/lab-r0-leaf01/frr.conf": open_conf},
                                  twin.cabled_ports(plan, "lab-r0-leaf01"))[0]
    alpha = part.namespaces["lab-r0-leaf01-Vrf-alpha"]
    assert alpha.ifaces["Ethernet0"].addrs == ["10.0.0.0/31"] and alpha.frr_daemons == ()
    assert not [name for name in leaf.ifaces if name.startswith("vrfl")]
    assert leaf.frr_file == open_conf and "router bgp 64514" in leaf.frr_conf
