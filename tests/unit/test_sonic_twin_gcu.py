"""The twin's Generic Config Updater held to sonic-utilities' own test cases (tests/generic_config_updater/
field_operation_validator_test.py, change_applier_test.py, generic_updater_test.py) for what it models: the
ASIC lookup, the field-operation refusals per release with GCU's text, whole-target checks before any write,
table-by-table writes in reference order, checkpoints and rollback."""
import copy
import json
import os

import pytest

from conftest import YANG_MODELS, lab_leaf_config_db, needs_sonic_yang

pytest.importorskip("jsonpatch", reason="the SONiC twin needs jsonpatch (requirements.txt)")

from gpufabric.twin.emulators.sonic import gcu  # noqa: E402
from gpufabric.twin.emulators.sonic.configdb import MemoryConfigDb, from_raw, to_raw  # noqa: E402

RDMA = "generic_config_updater.field_operation_validators.rdma_config_update_validator"
BUFFER_PROFILE = "generic_config_updater.field_operation_validators.buffer_profile_config_update_validator"
WRED = "generic_config_updater.field_operation_validators.wred_profile_config_update_validator"
DELL = ("broadcom", "DellEMC-Z9332f-O32")       # a Dell SKU: in none of GCU's lists
SN5600 = ("mellanox", "Mellanox-SN5600-O128")    # spc4


def switch(release, asic_type, **kw):
    return gcu.Switch(release, asic_type, **kw)


def refusal(release, platform, old, target, **kw):
    """GCU's message for the change old -> target on a switch of this platform, or None when allowed."""
    asic_type, hwsku = platform
    meta = {"DEVICE_METADATA": {"localhost": {"hwsku": hwsku}}}
    try:
        gcu.validate_field_operation(switch(release, asic_type, **kw), dict(meta, **old), dict(meta, **target))
    except gcu.GcuError as e:
        return str(e)
    return None


@pytest.mark.parametrize("asic_type,hwsku,asic", [
    ("mellanox", "ACS-MSN2700", "spc1"), ("mellanox", "mellanox-sn5600-o128", "spc4"), ("mellanox", "ACS-SN5600", "spc4"),
    ("broadcom", "Force10-S6000", "td2"), ("broadcom", "Arista-7060X6-64PE-B-O128", "th5"),
    ("broadcom", "DellEMC-Z9332f-O32", "unknown"), ("broadcom", "DellEMC-Z9664f-O64", "unknown"),
    ("vs", "ACS-MSN3800", "spc2"), ("vs", "Force10-S6000", "td2"), ("cisco-8000", "anything", "cisco-8000"),
    ("mellanox", "Force10-S6000", "unknown"), ("barefoot", "ACS-MSN2700", "unknown"),
])
def test_asic_lookup_as_gcu_does_it(asic_type, hwsku, asic):
    # Mellanox SKUs match whole names, Broadcom list names are looked for inside the hwsku, vs tries both.
    assert switch("202511", asic_type).asic(hwsku) == asic


def test_unknown_asic_refuses_every_rdma_table_edit():
    old = {"PFC_WD": {"Ethernet4": {"restoration_time": "200", "detection_time": "200", "action": "drop"}}}
    new = copy.deepcopy(old)
    new["PFC_WD"]["Ethernet4"]["restoration_time"] = "234234"
    assert refusal("202511", DELL, old, new) == "Modification of PFC_WD table is illegal- validating function %s returned False" % RDMA
    assert refusal("202511", SN5600, old, new) is None
    # Adding a port's watchdog row is a field edit too: a Dell SKU cannot.
    assert "PFC_WD table is illegal" in refusal("202511", DELL, {"PFC_WD": {}}, old)


def test_build_date_below_the_platform_minimum_is_refused():
    # sonic-utilities: td3 on a 2022-05-30 build may not change BUFFER_POOL xoff (allowed from 20221100).
    old = {"BUFFER_POOL": {"ingress_lossless_pool": {"xoff": "1000", "size": "10", "type": "ingress", "mode": "dynamic"}}}
    new = copy.deepcopy(old)
    new["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"] = "234234"
    td3 = ("broadcom", "Arista-7050CX3-32S-C32")
    assert "BUFFER_POOL table is illegal" in refusal("202505", td3, old, new, build_version="SONiC.20220530")
    assert refusal("202505", td3, old, new, build_version="SONiC.20230530.12") is None
    assert refusal("202505", td3, old, new, build_version="SONiC.202505.0") is None   # no 8-digit date: no date check


def test_buffer_pool_edits_refused_everywhere_since_pr_4219():
    old = {"BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000", "type": "ingress", "mode": "dynamic"}}}
    new = copy.deepcopy(old)
    new["BUFFER_POOL"]["ingress_lossless_pool"]["size"] = "2000"
    assert refusal("202505", SN5600, old, new) is None
    assert refusal("202511", SN5600, old, new) == "Modification of BUFFER_POOL table is illegal- validating function %s returned False" % RDMA
    assert "BUFFER_POOL table is illegal" in refusal("202505", DELL, old, new)


def test_wred_profile_refused_on_202505_allowed_on_202511():
    old = {"WRED_PROFILE": {"ROCEV2_LOSSLESS": {"green_min_threshold": "153600", "ecn": "ecn_all"}}}
    new = copy.deepcopy(old)
    new["WRED_PROFILE"]["ROCEV2_LOSSLESS"]["green_min_threshold"] = "204800"
    assert refusal("202505", DELL, old, new) == "Modification of WRED_PROFILE table is illegal- validating function %s returned False" % WRED
    assert refusal("202505", SN5600, old, new) is None
    assert refusal("202511", DELL, old, new) is None
    # 202505's ECN scenario names three fields and replace only: ecn itself is not among them.
    other = copy.deepcopy(old)
    other["WRED_PROFILE"]["ROCEV2_LOSSLESS"]["ecn"] = "ecn_green"
    assert "WRED_PROFILE table is illegal" in refusal("202505", SN5600, old, other)


def test_buffer_profile_field_and_object_level():
    profile = {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "0", "xoff": "1000", "xon": "1000"}
    old = {"BUFFER_PROFILE": {"pg_lossless_400000_5m_profile": profile}}
    dyn = copy.deepcopy(old)
    dyn["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"]["dynamic_th"] = "1"
    assert refusal("202511", SN5600, old, dyn) is None
    assert refusal("202511", DELL, old, dyn) == ("Modification of BUFFER_PROFILE table is illegal- validating function "
                                                 "%s returned False" % BUFFER_PROFILE)
    assert refusal("202505", DELL, old, dyn) == "Modification of BUFFER_PROFILE table is illegal- validating function %s returned False" % RDMA
    size = copy.deepcopy(old)
    size["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"]["xon"] = "2000"
    assert "BUFFER_PROFILE table is illegal" in refusal("202511", SN5600, old, size)
    # Whole profiles come and go on 202511 (what a rollback needs), on any ASIC; not on 202505.
    gone = {"BUFFER_PROFILE": {}}
    assert refusal("202511", DELL, old, gone) is None
    assert "BUFFER_PROFILE table is illegal" in refusal("202505", DELL, old, gone)


def test_removals_gcu_never_allows():
    lo = {"LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.32/32": {}, "Loopback1": {}, "Loopback1|10.1.0.33/32": {}}}
    keep0 = {"LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.32/32": {}}}
    keep1 = {"LOOPBACK_INTERFACE": {"Loopback1": {}, "Loopback1|10.1.0.33/32": {}}}
    assert refusal("202511", DELL, lo, keep0) is None
    assert refusal("202511", DELL, lo, keep1) == ("Given patch operation is invalid. Operation: remove is illegal on field: "
                                                  "/LOOPBACK_INTERFACE/Loopback0")
    assert refusal("202511", SN5600, {"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "60"}}}, {"PFC_WD": {"GLOBAL": {}}}) == (
        "Given patch operation is invalid. Operation: remove is illegal on field: /PFC_WD/GLOBAL/POLL_INTERVAL")


def test_port_speed_and_fec_against_state_db():
    old = {"PORT": {"Ethernet0": {"speed": "400000", "fec": "rs"}}}
    speed = {"PORT": {"Ethernet0": {"speed": "200000", "fec": "rs"}}}
    state = {"Ethernet0": {"supported_speeds": "100000,400000", "supported_fecs": "rs,none"}}
    assert "PORT table is illegal" in refusal("202511", DELL, old, speed, state_ports=state)
    assert refusal("202511", DELL, old, speed) is None                      # no STATE_DB entry: any speed
    assert refusal("202511", DELL, old, speed, state_ports=state, chassis=True) is None
    fec = {"PORT": {"Ethernet0": {"speed": "400000", "fec": "fc"}}}
    assert "PORT table is illegal" in refusal("202511", DELL, old, fec, state_ports=state)
    assert refusal("202511", DELL, old, fec) is None                        # default list: rs, fc, none, auto
    assert refusal("202511", DELL, old, {"PORT": {}}) is None               # removals always pass


def test_data_acl_rule_change_refused_while_the_table_type_changes():
    old = {"ACL_TABLE": {"T": {"type": "L3"}}, "ACL_RULE": {"T|R1": {"PRIORITY": "10"}}}
    new = {"ACL_TABLE": {"T": {"type": "L3V6"}}, "ACL_RULE": {"T|R1": {"PRIORITY": "20"}}}
    assert refusal("202511", DELL, old, new).startswith("Modification of dataacl rule T|R1 is illegal")
    assert refusal("202511", DELL, old, dict(new, ACL_RULE=old["ACL_RULE"])) is None


def test_redis_encoding_of_rows():
    assert to_raw({"lanes": "1,2", "ports": ["Ethernet0", "Ethernet4"]}) == {"lanes": "1,2", "ports@": "Ethernet0,Ethernet4"}
    assert to_raw({}) == {"NULL": "NULL"}
    assert from_raw({"ports@": "Ethernet0,Ethernet4", "NULL": "NULL"}) == {"ports": ["Ethernet0", "Ethernet4"]}


def test_unknown_release_is_refused_in_one_line():
    with pytest.raises(gcu.GcuError, match="SONiC release 201811 is not modelled: use one of 202505, 202511"):
        gcu.Switch("201811", "broadcom")


# --- the updater over a whole switch config (needs libyang and SONiC's models) --------------------------------

@pytest.fixture
def leaf():
    return lab_leaf_config_db()


@pytest.fixture
def updater(tmp_path, leaf):
    needs_sonic_yang()
    from gpufabric.twin.emulators.sonic import yang_check   # the emulator's own YANG check, not the deploy's gate

    return gcu.Updater(MemoryConfigDb(leaf), gcu.Switch("202511", "broadcom"), yang_check.load(YANG_MODELS),
                       str(tmp_path / "checkpoints"))


def test_replace_writes_only_the_difference_referred_tables_first(updater, leaf):
    target = copy.deepcopy(leaf)
    target["PORT"]["Ethernet8"]["mtu"] = "9100"
    target["PORT"]["Ethernet8"]["admin_status"] = "down"
    target["INTERFACE"]["Ethernet8|10.99.0.0/31"] = {}
    del target["INTERFACE"]["Ethernet0|%s" % next(k.split("|")[1] for k in leaf["INTERFACE"] if k.startswith("Ethernet0|"))]
    del target["INTERFACE"]["Ethernet0"]
    updater.replace(target)
    # GCU's ChangeApplier sets each changed key whole or deletes it; removals first, then writes.
    assert [(t, k, row is None) for t, k, row in updater.db.writes] == [
        ("INTERFACE", next(k for k in leaf["INTERFACE"] if k.startswith("Ethernet0|")), True), ("INTERFACE", "Ethernet0", True),
        ("PORT", "Ethernet8", False), ("INTERFACE", "Ethernet8|10.99.0.0/31", False)]
    assert updater.running() == target
    # Order: a table that refers to another (INTERFACE -> PORT) is written after it, removed before it.
    order = gcu.table_order(updater.models)
    assert order["INTERFACE"] > order["PORT"] and order["BUFFER_PG"] > order["BUFFER_PROFILE"] > order["BUFFER_POOL"]


def test_nothing_written_when_the_target_fails(updater, leaf):
    cases = [
        (lambda t: t["PORT"]["Ethernet8"].update(mtu="99999"), "Given patch will produce invalid config. Error: "),
        (lambda t: t["PORT"]["Ethernet8"].update(lanes=t["PORT"]["Ethernet0"]["lanes"]), "lane is used multiple times in PORT"),
        (lambda t: t.update(SCHEDULER={}), "will result in empty tables which is not allowed in ConfigDb. Table: SCHEDULER"),
        (lambda t: t.update(NO_SUCH_TABLE={"x": {"a": "b"}}), "has changes to tables without YANG models"),
        (lambda t: t["LOOPBACK_INTERFACE"].pop("Loopback0"), "Operation: remove is illegal on field: /LOOPBACK_INTERFACE/Loopback0"),
        (lambda t: t["BUFFER_POOL"]["ingress_lossless_pool"].update(size="1"), "Modification of BUFFER_POOL table is illegal"),
    ]
    for change, message in cases:
        target = copy.deepcopy(leaf)
        change(target)
        with pytest.raises(gcu.GcuError) as e:
            updater.replace(target)
        assert message in str(e.value)
        assert updater.db.writes == [] and updater.running() == leaf


def test_checkpoint_rollback_and_delete(updater, leaf):
    updater.checkpoint("before")
    with open(os.path.join(updater.checkpoints_dir, "before.cp.json")) as f:
        assert json.load(f) == leaf
    target = copy.deepcopy(leaf)
    target["PORT"]["Ethernet8"]["mtu"] = "9100"
    updater.replace(target)
    assert updater.list_checkpoints() == ["before"]
    assert [c["name"] for c in updater.list_checkpoints(with_time=True)] == ["before"]
    updater.rollback("before")
    assert updater.running() == leaf
    with pytest.raises(ValueError, match="Checkpoint 'nope' does not exist"):
        updater.rollback("nope")
    updater.delete_checkpoint("before")
    assert updater.list_checkpoints() == []


def test_backend_tables_may_differ_after_the_write(updater, leaf):
    # buffermgrd rewrites profiles it generates: GCU does not hold BUFFER_PROFILE/BUFFER_PG to the target.
    class Rewriting(MemoryConfigDb):
        def set_entry(self, table, key, row):
            super().set_entry(table, key, row)
            if table == "BUFFER_PROFILE" and row is not None:
                self.config[table][key]["size"] = "12345"
    updater.db = Rewriting(leaf)
    target = copy.deepcopy(leaf)
    target["BUFFER_PROFILE"]["new_profile"] = dict(target["BUFFER_PROFILE"]["egress_lossy_profile"])
    updater.replace(target)
    assert updater.db.config["BUFFER_PROFILE"]["new_profile"]["size"] == "12345"


def test_refusals_name_every_refused_operation_for_the_switch_release_and_asic(leaf):
    target = copy.deepcopy(leaf)
    target["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"]["xoff"] = "1"
    target["WRED_PROFILE"]["ROCEV2_LOSSLESS"]["green_min_threshold"] = "204800"
    target["PORT"]["Ethernet8"]["mtu"] = "9100"
    dell_202505 = {"build_version": "SONiC.202505.12", "asic_type": "broadcom"}
    assert gcu.refusals(leaf, target, dell_202505) == [
        "replace /BUFFER_PROFILE/pg_lossless_400000_5m_profile/xoff - Modification of BUFFER_PROFILE table is illegal- "
        "validating function %s returned False" % RDMA,
        "replace /WRED_PROFILE/ROCEV2_LOSSLESS/green_min_threshold - Modification of WRED_PROFILE table is illegal- "
        "validating function %s returned False" % WRED]
    assert [r.split(" - ")[0] for r in gcu.refusals(leaf, target, dict(dell_202505, build_version="SONiC.202511.3"))] == [
        "replace /BUFFER_PROFILE/pg_lossless_400000_5m_profile/xoff"]
    sn5600 = copy.deepcopy(leaf)
    sn5600["DEVICE_METADATA"]["localhost"]["hwsku"] = "Mellanox-SN5600-O128"
    assert gcu.refusals(sn5600, dict(target, DEVICE_METADATA=sn5600["DEVICE_METADATA"]),
                        {"build_version": "SONiC.202511.3", "asic_type": "mellanox"}) == []   # spc4: PG headroom (xoff) edits allowed
    assert gcu.refusals(leaf, target, {"build_version": "SONiC.201911.1", "asic_type": "broadcom"}) is None
    assert gcu.release_of("SONiC.202511.0-gpufabric-twin") == "202511" and gcu.release_of("20220531.28") == "202205"


def test_load_plan_takes_new_pfc_watchdog_rows_outside_gcu_and_nothing_else(leaf):
    dell = {"build_version": "SONiC.202511.3", "asic_type": "broadcom"}
    port = sorted(k for k in leaf["PFC_WD"] if k != "GLOBAL")[0]
    running = copy.deepcopy(leaf)
    del running["PFC_WD"][port]                       # the port has no watchdog yet: the target adds one
    plan = gcu.load_plan(running, leaf, dell, ["PFC_WD"])
    assert plan["refused"] == [] and plan["load_keys"] == ["PFC_WD|%s" % port]
    assert plan["load"] == {"PFC_WD": {port: leaf["PFC_WD"][port]}}
    # Without PFC_WD among the tables that may be loaded, the add is GCU's refusal, named.
    stopped = gcu.load_plan(running, leaf, dell, [])
    assert stopped["load"] == {} and stopped["refused"][0].startswith("add /PFC_WD/%s - Modification of PFC_WD" % port)
    # An edit of an existing watchdog is no new row: refused, and then nothing is loaded either.
    other = sorted(k for k in leaf["PFC_WD"] if k not in ("GLOBAL", port))[0]
    edited = copy.deepcopy(leaf)
    edited["PFC_WD"][other]["action"] = "alert"
    both = gcu.load_plan(running, edited, dell, ["PFC_WD"])
    assert both["load"] == {} and both["load_keys"] == [] and [r.split(" - ")[0] for r in both["refused"]] == [
        "replace /PFC_WD/%s/action" % other]
    # Nothing refused: nothing to load, even where rows are new.
    sn5600 = copy.deepcopy(running)
    sn5600["DEVICE_METADATA"]["localhost"]["hwsku"] = "Mellanox-SN5600-O128"
    allowed = gcu.load_plan(sn5600, dict(leaf, DEVICE_METADATA=sn5600["DEVICE_METADATA"]),
                            {"build_version": "SONiC.202511.3", "asic_type": "mellanox"}, ["PFC_WD"])
    assert allowed == {"load": {}, "load_keys": [], "refused": [], "flaps": [], "recreated": []}
    assert gcu.load_plan(running, leaf, {"build_version": "SONiC.201911.1"}, ["PFC_WD"])["refused"] is None
