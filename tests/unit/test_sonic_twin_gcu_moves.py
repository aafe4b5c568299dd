"""What a user sees of the twin GCU's patch sorter (twin/emulators/sonic/gcu_moves.py), held to sonic-utilities 202511's own
cases (tests/generic_config_updater/files/patch_sorter_test_success.json): a create-only field's row deleted and
added back with what refers to it, a port held admin down around its QoS rows' changes, and the link really going
down and up on the twin (orchagent.Portsorch); `config apply-patch` adding a missing table (config/main.py, PR
#4095, 202511 only); a dated build's branch and its date held to the per-ASIC minimums."""
import copy
import json
import types

import pytest

from conftest import lab_leaf_config_db, needs_sonic_yang

pytest.importorskip("jsonpatch", reason="the SONiC twin needs jsonpatch (requirements.txt)")

from gpufabric.twin.emulators.sonic import apply_patch, gcu, gcu_moves  # noqa: E402
from gpufabric.twin.emulators.sonic.configdb import MemoryConfigDb  # noqa: E402
from gpufabric.twin.emulators.sonic.orchagent import Portsorch  # noqa: E402

SORTER = gcu._rules()["202511"]["sorter"]
PORT4 = {"admin_status": "up", "alias": "fortyGigE0/4", "description": "Servers0:eth0", "index": "1",
         "lanes": "29,30,31,32", "mtu": "9100", "pfc_asym": "off", "speed": "40000"}
POOL = {"BUFFER_PROFILE": {"egress_lossy_profile": {"dynamic_th": "3", "pool": "egress_lossy_pool", "size": "1518"}},
        "BUFFER_POOL": {"egress_lossy_pool": {"mode": "dynamic", "size": "7326924", "type": "egress"}}}


@pytest.fixture
def moves(emulator_models):
    """ordered_changes(old, target) with the references and table order of SONiC's models."""
    refs, rank = gcu_moves.references(emulator_models), gcu_moves.table_order(emulator_models)
    return lambda old, target: gcu_moves.ordered_changes(old, target, SORTER, refs, rank)


def test_sonic_utilities_case_replacing_a_create_only_field(moves):
    # REPLACING_CREATE_ONLY_FIELD__SUCCESS: the ACL table's port reference, the VLAN member, the port out; then back.
    old = {"PORT": {"Ethernet0": {"alias": "Eth1", "lanes": "65, 66, 67, 68", "description": "Ethernet0 100G link",
                                  "speed": "100000"}},
           "ACL_TABLE": {"NO-NSW-PACL-V4": {"type": "L3", "policy_desc": "NO-NSW-PACL-V4", "ports": ["Ethernet0"]}},
           "VLAN_MEMBER": {"Vlan100|Ethernet0": {"tagging_mode": "untagged"}},
           "VLAN": {"Vlan100": {"vlanid": "100", "dhcp_servers": ["192.0.0.1", "192.0.0.2"]}}}
    target = copy.deepcopy(old)
    target["PORT"]["Ethernet0"]["lanes"] = "67"
    assert moves(old, target) == [
        ("ACL_TABLE", "NO-NSW-PACL-V4", {"type": "L3", "policy_desc": "NO-NSW-PACL-V4"}),
        ("VLAN_MEMBER", "Vlan100|Ethernet0", None), ("PORT", "Ethernet0", None),
        ("PORT", "Ethernet0", target["PORT"]["Ethernet0"]),
        ("ACL_TABLE", "NO-NSW-PACL-V4", target["ACL_TABLE"]["NO-NSW-PACL-V4"]),
        ("VLAN_MEMBER", "Vlan100|Ethernet0", target["VLAN_MEMBER"]["Vlan100|Ethernet0"])]
    # A field that is not create-only is an edit in place.
    target = copy.deepcopy(old)
    target["PORT"]["Ethernet0"]["description"] = "edited"
    assert moves(old, target) == [("PORT", "Ethernet0", target["PORT"]["Ethernet0"])]


def test_bgp_neighbor_asn_and_peer_range_rows_are_deleted_and_added_back(moves):
    old = {"BGP_NEIGHBOR": {"10.0.0.1": {"asn": "65100", "name": "spine01", "local_addr": "10.0.0.0"}},
           "BGP_PEER_RANGE": {"SERVERS": {"ip_range": ["10.1.0.0/24"], "name": "SERVERS"}}}
    target = copy.deepcopy(old)
    target["BGP_NEIGHBOR"]["10.0.0.1"]["asn"] = "65200"
    target["BGP_PEER_RANGE"]["SERVERS"]["ip_range"] = ["10.2.0.0/24"]     # every field of a peer range is create-only
    changes = moves(old, target)
    for table, key in (("BGP_NEIGHBOR", "10.0.0.1"), ("BGP_PEER_RANGE", "SERVERS")):
        assert [r for t, k, r in changes if (t, k) == (table, key)] == [None, target[table][key]]
    assert len(changes) == 4
    assert gcu_moves.recreated(old, target, SORTER["create_only"]) == [("BGP_NEIGHBOR", "10.0.0.1"),
                                                                       ("BGP_PEER_RANGE", "SERVERS")]


def test_sonic_utilities_cases_port_held_admin_down_around_qos_changes(moves):
    # PORT_CRITICAL_CHANGE_AND_PORT_IS_ADMIN_UP: down, the BUFFER_PG row, up.
    old = dict(POOL, PORT={"Ethernet4": PORT4})
    target = dict(old, BUFFER_PG={"Ethernet4|0": {"profile": "egress_lossy_profile"}})
    assert moves(old, target) == [("PORT", "Ethernet4", dict(PORT4, admin_status="down")),
                                  ("BUFFER_PG", "Ethernet4|0", {"profile": "egress_lossy_profile"}),
                                  ("PORT", "Ethernet4", PORT4)]
    assert gcu_moves.flaps(old, target, SORTER) == ["Ethernet4"]
    # PORT_CRITICAL_CONFIG_AND_ADDING_ADMIN_UP_PORT: the new port added down, brought up after.
    assert moves(POOL, target) == [("PORT", "Ethernet4", dict(PORT4, admin_status="down")),
                                   ("BUFFER_PG", "Ethernet4|0", {"profile": "egress_lossy_profile"}),
                                   ("PORT", "Ethernet4", PORT4)]
    assert gcu_moves.flaps(POOL, target, SORTER) == []           # it was not up before: no flap
    # A port already down (or without admin_status: down by default) is left alone.
    down = dict(POOL, PORT={"Ethernet4": dict(PORT4, admin_status="down")})
    assert moves(down, dict(down, BUFFER_PG=target["BUFFER_PG"])) == [
        ("BUFFER_PG", "Ethernet4|0", {"profile": "egress_lossy_profile"})]


@pytest.fixture
def leaf():
    return lab_leaf_config_db()


def test_lanes_change_on_a_leaf_port_re_creates_it_with_its_rows_and_flaps_it(emulator_models, tmp_path, leaf):
    needs_sonic_yang()
    updater = gcu.Updater(MemoryConfigDb(leaf), gcu.Switch("202511", "broadcom"), emulator_models, str(tmp_path))
    target = copy.deepcopy(leaf)
    target["PORT"]["Ethernet0"]["lanes"] = "33,34,35,36"
    updater.replace(target)
    writes = updater.db.writes
    assert updater.running() == target
    assert writes[0] == ("PORT", "Ethernet0", dict(leaf["PORT"]["Ethernet0"], admin_status="down"))
    assert writes[-1] == ("PORT", "Ethernet0", target["PORT"]["Ethernet0"])
    gone, back = writes.index(("PORT", "Ethernet0", None)), writes.index(
        ("PORT", "Ethernet0", dict(target["PORT"]["Ethernet0"], admin_status="down")))
    referring = {(t, k) for t in ("BUFFER_PG", "BUFFER_QUEUE", "QUEUE", "PORT_QOS_MAP", "PFC_WD", "INTERFACE")
                 for k in leaf[t] if k.split("|")[0] == "Ethernet0"}
    assert {(t, k) for t, k, r in writes[1:gone] if r is None} == referring
    assert {(t, k) for t, k, r in writes[back + 1:-1] if r is not None} == referring
    plan = gcu.load_plan(leaf, target, {"build_version": "SONiC.202511.3", "asic_type": "broadcom"}, ["PFC_WD"])
    assert plan["recreated"] == ["PORT|Ethernet0"] and plan["refused"] == []


def test_qos_change_flaps_the_link_on_the_twin_while_gcu_writes(emulator_models, tmp_path, leaf):
    needs_sonic_yang()
    events, links = [], {"Ethernet0": True, "Ethernet8": True}

    class Db(MemoryConfigDb):
        def set_entry(self, table, key, row):
            events.append("write %s|%s" % (table, key))
            super().set_entry(table, key, row)

    def run(argv):
        if argv[:3] == ["ip", "-j", "link"]:
            shown = [{"ifname": n, "flags": ["UP"] if up else []} for n, up in links.items()]
            return types.SimpleNamespace(stdout=json.dumps(shown))
        links[argv[4]] = argv[5] == "up"
        events.append("link %s %s" % (argv[4], argv[5]))
        return types.SimpleNamespace(stdout="")
    updater = gcu.Updater(Portsorch(Db(leaf), run), gcu.Switch("202511", "broadcom"), emulator_models, str(tmp_path))
    target = copy.deepcopy(leaf)
    target["PORT_QOS_MAP"]["Ethernet0"]["pfc_enable"] = "3,4"
    updater.replace(target)
    assert events == ["write PORT|Ethernet0", "link Ethernet0 down", "write PORT_QOS_MAP|Ethernet0",
                      "write PORT|Ethernet0", "link Ethernet0 up"]
    assert links == {"Ethernet0": True, "Ethernet8": True}
    plan = gcu.load_plan(leaf, target, {"build_version": "SONiC.202511.3", "asic_type": "broadcom"}, ["PFC_WD"])
    assert plan["flaps"] == ["Ethernet0"] and plan["recreated"] == []


def test_apply_patch_adds_a_missing_table_on_202511_only():
    running = {"PORT": {"Ethernet0": {"lanes": "1"}}}
    patch = [{"op": "add", "path": "/VLAN/Vlan100", "value": {"vlanid": "100"}}]
    assert apply_patch.prepare(patch, running, True) == [{"op": "add", "path": "/VLAN", "value": {}}] + patch
    with pytest.raises(apply_patch.InvalidPatch) as e:
        apply_patch.prepare(patch, running, False)
    assert str(e.value) == ("Validate json patch: %s failed due to:member 'VLAN' not found in %s"
                            % (json.dumps(patch), running))
    # What the table cannot take is still refused: a member below a row that is not there.
    with pytest.raises(apply_patch.InvalidPatch, match="Validate json patch: .* failed due to:member 'Vlan100' not"):
        apply_patch.prepare([{"op": "add", "path": "/VLAN/Vlan100/vlanid", "value": "100"}], running, True)
    assert apply_patch.prepare(patch, dict(running, VLAN={"Vlan1": {"vlanid": "1"}}), False) == patch


def test_apply_patch_of_a_new_table_through_the_updater(emulator_models, tmp_path, leaf):
    needs_sonic_yang()
    updater = gcu.Updater(MemoryConfigDb(leaf), gcu.Switch("202511", "broadcom"), emulator_models, str(tmp_path))
    assert "VLAN" not in leaf
    patch = [{"op": "add", "path": "/VLAN/Vlan100", "value": {"vlanid": "100"}}]
    updater.apply_patch(apply_patch.prepare(patch, updater.running(), updater.switch.rules["apply_patch_adds_missing_tables"]))
    assert updater.running()["VLAN"] == {"Vlan100": {"vlanid": "100"}}
    with pytest.raises(gcu.EmptyTable, match="Table: VLAN_MEMBER"):      # an empty table alone: GCU's refusal
        updater.apply_patch(apply_patch.prepare([{"op": "add", "path": "/VLAN_MEMBER", "value": {}}],
                                                updater.running(), True))


def test_dated_build_gets_its_branch_rules_and_the_date_minimums(leaf):
    assert gcu.release_of("SONiC.20250530.12") == "202505" and gcu.release_of("SONiC.20220531.28") == "202205"
    target = copy.deepcopy(leaf)
    target["WRED_PROFILE"]["ROCEV2_LOSSLESS"]["green_min_threshold"] = "204800"
    dated = {"build_version": "SONiC.20250530.12", "asic_type": "broadcom"}
    assert [r.split(" - ")[0] for r in gcu.refusals(leaf, target, dated)] == [
        "replace /WRED_PROFILE/ROCEV2_LOSSLESS/green_min_threshold"]             # 202505's rules, as on a Dell SKU
    assert gcu.refusals(leaf, target, dict(dated, build_version="SONiC.20220531.28")) is None   # 202205: not modelled
    # The date is held to the ASIC's minimum: an SN5640 (spc5) may tune a PFC watchdog from 20241200 on.
    sn5640 = copy.deepcopy(leaf)
    sn5640["DEVICE_METADATA"]["localhost"]["hwsku"] = "ACS-SN5640"
    port = sorted(k for k in leaf["PFC_WD"] if k != "GLOBAL")[0]
    edited = copy.deepcopy(sn5640)
    edited["PFC_WD"][port]["action"] = "alert"
    mellanox = {"asic_type": "mellanox"}
    assert gcu.refusals(sn5640, edited, dict(mellanox, build_version="SONiC.202505.20241130")) == [
        "replace /PFC_WD/%s/action - Modification of PFC_WD table is illegal- validating function "
        "generic_config_updater.field_operation_validators.rdma_config_update_validator returned False" % port]
    assert gcu.refusals(sn5640, edited, dict(mellanox, build_version="SONiC.202505.20241201")) == []
