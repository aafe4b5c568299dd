"""Tenants: the assignment file's checks, the rendered isolation (golden), the change between two
assignments, the reachability it implies, the twin's nftables stand-in and the tenant_isolation check."""
import json
import os

import pytest
import yaml

from conftest import ROOT, load_example
from tenant_helpers import LEAVES, example, match_golden, rendered
from gpufabric.ipam import fmt
from gpufabric.plan import build_plan
from gpufabric.nos.sonic.config_db import config_db
from gpufabric.nos.sonic.schema import check_config_db
from gpufabric.structured import structured_configs
from gpufabric.tenants import AssignmentError, attach, load_assignment, parse_assignment, plan_servers
from gpufabric.tenant_assignment import expand
from gpufabric.tenants.change import interim, plan_change
from gpufabric.tenants.reach import Reach, rail_nics
from gpufabric.tenants.state import assignment_for, read_running, running_path, write_running
from gpufabric.twin.emulators.sonic import acl
from gpufabric.twin import nftables
from gpufabric.validate.checks import Context
from gpufabric.validate.checks.tenants import TenantIsolation, probe_command, probe_pairs
from gpufabric.validate.expect import Expectation
from gpufabric.validate.state import DeviceState

GOLDEN = os.path.join(ROOT, "tests", "golden", "lab", "tenants")


@pytest.fixture(scope="module")
def plan():
    return build_plan(load_example("lab"))


def problems(plan, data):
    with pytest.raises(AssignmentError) as info:
        parse_assignment(data, plan_servers(plan), "lab")
    return info.value.problems


# --- the assignment file ---------------------------------------------------------------------------

def test_ranges_expand_with_the_width_and_step_of_the_range():
    assert expand("lab-gpu[0002:0004:2]") == ["lab-gpu0002", "lab-gpu0004"]
    assert expand("n[8:10]-x") == ["n8-x", "n9-x", "n10-x"]
    assert expand("lab-gpu0001") == ["lab-gpu0001"]


def test_a_valid_assignment_puts_the_rest_in_the_free_pool(plan):
    a = parse_assignment({"tenants": {"alpha": {"servers": ["lab-gpu[0001:0002]"]}}}, plan_servers(plan))
    assert a.tenants == {"alpha": ["lab-gpu0001", "lab-gpu0002"]}
    assert a.free == ["lab-gpu0003", "lab-gpu0004"]
    assert a.tenant_of("lab-gpu0004") == "free"


def test_unknown_server_names_the_entry_and_the_servers_there_are(plan):
    assert problems(plan, {"tenants": {"alpha": {"servers": ["lab-gpu0001", "lab-gpu0009"]}}}) == [
        "tenants.alpha.servers[1]: lab-gpu0009 is not a server of lab (its servers: lab-gpu0001..lab-gpu0004)"]


def test_a_server_in_two_tenants_names_both(plan):
    assert problems(plan, {"tenants": {"alpha": {"servers": ["lab-gpu0001"]},
                                       "beta": {"servers": ["lab-gpu[0001:0002]"]}}}) == [
        "tenants.beta.servers[0]: lab-gpu0001 is already in tenant alpha (tenants.alpha.servers[0]): a server "
        "belongs to one tenant at most"]


def test_empty_tenant_and_bad_names_each_get_one_line(plan):
    found = problems(plan, {"tenants": {"gamma": {"servers": []}, "Bad_Name": {"servers": ["lab-gpu0001"]},
                                        "free": {"servers": ["lab-gpu0002"]}}, "extra": 1})
    assert found == [
        "extra: unknown key; the file has isolation and tenants",
        "tenants.gamma.servers: the tenant is empty: list at least one server, or remove the tenant (its servers "
        "go to the free pool)",
        "tenants.Bad_Name: bad tenant name: use lowercase letters, digits and '-', starting with a letter, at most "
        "24 characters, not 'free' (the free pool's name)",
        "tenants.free: bad tenant name: use lowercase letters, digits and '-', starting with a letter, at most 24 "
        "characters, not 'free' (the free pool's name)"]


def test_bad_range_and_mode(plan):
    assert problems(plan, {"isolation": "vxlan", "tenants": {"a": {"servers": ["lab-gpu[4:1]", "x[1-2]"]}}}) == [
        "isolation: 'vxlan' is not a mode; use one of acl, vrf",
        "tenants.a.servers[0]: 'lab-gpu[4:1]': a range needs start <= end and a step of at least 1",
        "tenants.a.servers[1]: 'x[1-2]': a range is written head[start:end] or head[start:end:step], e.g. "
        "lab-gpu[0001:0004]"]


def test_a_file_error_names_the_file(plan, tmp_path):
    path = tmp_path / "t.yml"
    path.write_text("tenants:\n  alpha: {servers: [nope]}\n")
    with pytest.raises(AssignmentError) as info:
        load_assignment(str(path), plan_servers(plan), "lab")
    assert str(info.value) == "%s: tenants.alpha.servers[0]: nope is not a server of lab (its servers: " \
                              "lab-gpu0001..lab-gpu0004)" % path


def test_running_assignment_round_trips_and_ipv6_fabrics_are_refused(plan, tmp_path):
    a = example(plan, "lab.tenants.yml")
    assert read_running(str(tmp_path), plan) is None
    write_running(str(tmp_path), "lab", a)
    assert read_running(str(tmp_path), plan) == a
    assert os.path.exists(running_path(str(tmp_path), "lab"))
    dual_stack = build_plan(load_example("lab"))
    dual_stack.spec["backend"]["ipv6"] = True   # the spec refuses it today; the ACL mode must refuse it too
    with pytest.raises(AssignmentError, match="acl mode filters IPv4 only and backend.ipv6 is on"):
        assignment_for(dual_stack, str(tmp_path))


# --- the rendered isolation ------------------------------------------------------------------------

def test_rendered_isolation_matches_the_golden_files(plan):
    configs = rendered(plan, example(plan, "lab.tenants.yml"))
    files = {}
    for leaf in LEAVES:
        db = config_db(configs[leaf])
        files["%s.structured.yml" % leaf] = yaml.safe_dump(configs[leaf]["tenant_isolation"], sort_keys=True)
        files["%s.acl.json" % leaf] = json.dumps({t: db[t] for t in ("ACL_TABLE", "ACL_RULE", "FLEX_COUNTER_TABLE")},
                                                 indent=4, sort_keys=True) + "\n"
        files["%s.nft" % leaf] = acl.ruleset(db)
    match_golden(GOLDEN, files)


def test_every_leaf_config_stays_valid_and_binds_each_server_port_once(plan):
    configs = rendered(plan, example(plan, "lab.tenants.yml"))
    for dev in plan.by_role("backend_leaf"):
        db = config_db(configs[dev.name])
        assert check_config_db(db) == [], dev.name
        tables = {n: t for n, t in db["ACL_TABLE"].items() if t["type"] == "L3"}
        bound = [p for t in tables.values() for p in t["ports"]]
        server_ports = [i["name"] for i in configs[dev.name]["ethernet_interfaces"] if i["tier"] == "server"]
        assert sorted(bound) == sorted(server_ports), dev.name
        for name, table in tables.items():
            assert table["stage"] == "ingress" and set(table["ports"]) <= set(db["PORT"])
            rules = sorted((int(r["PRIORITY"]), r) for k, r in db["ACL_RULE"].items() if k.startswith(name + "|"))
            lowest = rules[0][1]
            assert (lowest["PACKET_ACTION"], lowest["IP_TYPE"], "DST_IP" in lowest) == ("DROP", "IPV4ANY", False)
            assert all(r["PACKET_ACTION"] == "FORWARD" and "DST_IP" in r for _p, r in rules[1:])
    assert "tenant_isolation" not in structured_configs(plan)["lab-r0-leaf01"], "no assignment, no ACL"


def test_acls_permit_own_tenant_on_the_rail_only(plan):
    a = example(plan, "lab.tenants.yml")
    reach = Reach(plan, a)
    nics = rail_nics(plan)
    for server, found in nics.items():
        for src in found:
            for other, others in nics.items():
                for dst in others:
                    if other == server:
                        continue
                    same = a.tenant_of(server) == a.tenant_of(other)
                    assert reach.both_ways(src, dst) == (same and src.rail == dst.rail), (src.label(), dst.label())
    free = Reach(plan, parse_assignment({"tenants": {"a": {"servers": ["lab-gpu0001", "lab-gpu0002"]}}},
                                        plan_servers(plan)))
    gpu3, gpu4 = nics["lab-gpu0003"][0], nics["lab-gpu0004"][0]
    assert not free.both_ways(gpu3, gpu4), "two free-pool servers stay apart"
    assert free.admits(gpu3.leaf, gpu3.port, fmt(plan.device(gpu3.leaf).loopback)), "but reach their leaf"
    assert not free.admits(gpu3.leaf, gpu3.port, fmt(plan.device("lab-r0-leaf01").loopback))


# --- the change -----------------------------------------------------------------------------------

def test_first_isolation_is_one_phase_over_every_rail_leaf(plan):
    change = plan_change(plan, None, example(plan, "lab.tenants.yml"))
    assert [p["name"] for p in change["phases"]] == ["isolate"]
    assert change["phases"][0]["hosts"] == [d.name for d in plan.by_role("backend_leaf")]
    assert change["moves"][0] == {"server": "lab-gpu0001", "from": "open", "to": "alpha"}


def test_a_move_revokes_first_then_grants(plan):
    old, new = example(plan, "lab.tenants.yml"), example(plan, "lab-moved.tenants.yml")
    change = plan_change(plan, old, new)
    assert change["moves"] == [{"server": "lab-gpu0003", "from": "alpha", "to": "beta"}]
    revoke, grant = change["phases"]
    assert (revoke["name"], grant["name"]) == ("revoke", "grant")
    assert revoke["assignment"].tenant_of("lab-gpu0003") == "free"
    assert revoke["leaves"]["lab-r0-leaf02"] == {"ports": ["Ethernet0 alpha -> free"],
                                                 "acls": ["QUARANTINE", "TENANT_ALPHA"], "vrfs": []}
    assert grant["leaves"]["lab-r0-leaf02"]["ports"] == ["Ethernet0 free -> beta"]
    # SU1's leaves serve no moving server but carry alpha and beta ports whose rules name it.
    assert revoke["leaves"]["lab-r0-leaf01"] == {"ports": [], "acls": ["TENANT_ALPHA"], "vrfs": []}
    assert grant["leaves"]["lab-r0-leaf01"] == {"ports": [], "acls": ["TENANT_BETA"], "vrfs": []}
    assert "server lab-gpu0003: alpha -> tenant beta" in change["lines"]


def test_a_move_touches_only_leaves_carrying_the_server_or_its_two_tenants(plan):
    servers = plan_servers(plan)
    old = parse_assignment({"tenants": {"a": {"servers": ["lab-gpu0001"]}, "b": {"servers": ["lab-gpu0002"]}}},
                           servers)
    new = parse_assignment({"tenants": {"a": {"servers": ["lab-gpu0001"]},
                                        "b": {"servers": ["lab-gpu0002", "lab-gpu0003"]}}}, servers)
    change = plan_change(plan, old, new)
    hosts = {h for p in change["phases"] for h in p["hosts"]}
    assert hosts == {d.name for d in plan.by_role("backend_leaf")}, "SU2 serves lab-gpu0003, SU1 carries b"
    moved_back = plan_change(plan, new, old)
    assert [p["name"] for p in moved_back["phases"]] == ["revoke"], "into the free pool: nothing to grant"
    assert plan_change(plan, new, new)["phases"] == []
    assert plan_change(plan, new, new)["lines"] == ["no change: the running tenant assignment is the new one"]


def test_interim_holds_every_moving_server_in_the_free_pool(plan):
    old, new = example(plan, "lab.tenants.yml"), example(plan, "lab-moved.tenants.yml")
    mid = interim(old, new, plan_servers(plan))
    assert mid.tenants == {"alpha": ["lab-gpu0001"], "beta": ["lab-gpu0002", "lab-gpu0004"]}


# --- the twin's nftables --------------------------------------------------------------------------

def test_nft_ruleset_orders_by_priority_and_refuses_what_it_cannot_enforce():
    """SONiC's ACL tables (the SONiC emulator's acl.py) into the twin's neutral nftables ruleset."""
    db = {"ACL_TABLE": {"T": {"type": "L3", "stage": "ingress", "ports": ["Ethernet0"], "policy_desc": "x"}},
          "ACL_RULE": {"T|LOW": {"PRIORITY": "1", "IP_TYPE": "IPV4ANY", "PACKET_ACTION": "DROP"},
                       "T|HIGH": {"PRIORITY": "9", "IP_TYPE": "IPV4ANY", "PACKET_ACTION": "FORWARD",
                                  "DST_IP": "10.0.0.0/31"}}}
    text = acl.ruleset(db)
    assert text == nftables.ruleset(acl.port_rules(db))
    assert text.index('comment "HIGH"') < text.index('comment "LOW"')
    assert 'hook ingress device "Ethernet0"' in text and nftables.digest_of(text)
    assert not nftables.needs_change(text, text.split("\n", 2)[2])
    two = dict(db, ACL_TABLE=dict(db["ACL_TABLE"], U={"type": "L3", "stage": "ingress", "ports": ["Ethernet0"]}))
    with pytest.raises(acl.AclError, match=r"port Ethernet0 is bound to 2 L3 ingress ACL tables \(T, U\)"):
        acl.ruleset(two)
    db["ACL_RULE"]["T|L4"] = {"PRIORITY": "5", "PACKET_ACTION": "DROP", "L4_DST_PORT": "22"}
    with pytest.raises(acl.AclError, match=r"ACL_RULE T\|L4: the twin cannot enforce L4_DST_PORT"):
        acl.ruleset(db)
    assert acl.ruleset({}) == nftables.ruleset({}) == "table netdev gpufabric_acl\ndelete table netdev gpufabric_acl\n"
    assert nftables.needs_change(nftables.ruleset({}), text) and not nftables.needs_change(nftables.ruleset({}), "")


# --- the tenant_isolation check -------------------------------------------------------------------

def probed_states(plan, answered):
    """Server states whose probe answers are ``answered(src NIC, dst NIC)``."""
    states = {}
    for server in plan_servers(plan):
        st = DeviceState(server, "gpu_server")
        st.reach = {"%s>%s" % (s.address, d.address): answered(s, d) for s, d in probe_pairs(plan, server)}
        states[server] = st
    return states


def test_tenant_isolation_passes_per_nic_and_names_leaks_and_cuts(plan):
    a = example(plan, "lab.tenants.yml")
    attach(plan, a)
    try:
        reach = Reach(plan, a)
        expect = Expectation(plan)
        ok = TenantIsolation().run(Context(expect, probed_states(plan, reach.both_ways), {}))
        assert len(ok) == 32 and {r.status for r in ok} == {"PASS"}
        assert ok[0].message == "lab-gpu0001 ens1np0 (rail 0, lab-r0-leaf01 Ethernet0), ACL TENANT_ALPHA: tenant " \
                                "alpha, reaches its 1 same-tenant NIC(s), none of 2 other(s)"
        leaky = TenantIsolation().run(Context(expect, probed_states(plan, lambda s, d: True), {}))
        bad = [r for r in leaky if r.status == "FAIL"]
        assert len(bad) == 32
        assert bad[0].message == "lab-gpu0001 ens1np0 (rail 0, lab-r0-leaf01 Ethernet0), ACL TENANT_ALPHA: reaches " \
                                 "lab-gpu0002 10.0.0.3 (tenant beta), lab-gpu0004 10.0.0.35 (tenant beta) outside " \
                                 "tenant alpha"
        cut = TenantIsolation().run(Context(expect, probed_states(plan, lambda s, d: False), {}))
        assert "cannot reach lab-gpu0003 10.0.0.33 of its own tenant" in cut[0].message
        assert "python3 -c" in probe_command(probe_pairs(plan, "lab-gpu0001"))
    finally:
        attach(plan, None)
    skipped = TenantIsolation().run(Context(Expectation(plan), probed_states(plan, lambda s, d: True), {}))
    assert {r.status for r in skipped} == {"SKIP"}


def test_tenant_acls_pass_sonic_yang(plan):
    """The ACL tables against sonic-acl.yang and sonic-flex_counter.yang with libyang; PORT gets the lanes
    the platform's own config carries (merged on deploy)."""
    pytest.importorskip("libyang", reason="YANG validation needs the libyang Python package (make setup)")
    from conftest import YANG_MODELS
    from gpufabric.nos.sonic import yang as sonic_yang
    if not os.path.isdir(YANG_MODELS):
        pytest.skip("SONiC reference models absent: %s" % YANG_MODELS)
    models = sonic_yang.load(YANG_MODELS)
    configs = rendered(plan, example(plan, "lab.tenants.yml"))
    for leaf in LEAVES:
        db = config_db(configs[leaf])
        doc = {t: db[t] for t in ("DEVICE_METADATA", "PORT", "ACL_TABLE", "ACL_RULE", "FLEX_COUNTER_TABLE")}
        for lane, row in enumerate(doc["PORT"].values()):
            row["lanes"] = str(8 * lane)
        assert sonic_yang.validate(models, doc, leaf) == []


def test_summary_has_a_per_tenant_view_with_the_free_pool(plan):
    from gpufabric.docs import render_docs
    attach(plan, parse_assignment({"tenants": {"alpha": {"servers": ["lab-gpu0001", "lab-gpu0003"]}}},
                                  plan_servers(plan)))
    try:
        summary = render_docs(plan, svg=False)["docs/summary.md"]
    finally:
        attach(plan, None)
    assert "| alpha | 2 | 16 | 16 | lab-gpu0001, lab-gpu0003 |" in summary
    assert "| free pool (quarantined) | 2 | 16 | 16 | lab-gpu0002, lab-gpu0004 |" in summary
    assert "## Tenants" not in render_docs(plan, svg=False)["docs/summary.md"]
