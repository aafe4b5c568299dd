"""The deploy's GCU pre-check (nos/sonic/gcu_precheck.py, product code) and the twin's GCU emulator
(twin/emulators/sonic/gcu.py, the oracle) are written apart; over the same cases they must say the same: what GCU
refuses, with GCU's text, and which new rows go in first with `config load`. A case where they disagree fails,
named."""
import copy

import pytest

from conftest import lab_leaf_config_db

pytest.importorskip("jsonpatch", reason="the pre-check and the SONiC twin need jsonpatch (requirements.txt)")

from gpufabric import nos_registry  # noqa: E402
from gpufabric.twin.emulators.sonic import gcu  # noqa: E402

DELL = ("broadcom", "DellEMC-Z9332f-O32")       # in none of GCU's lists
SN5600 = ("mellanox", "Mellanox-SN5600-O128")    # spc4
TD3 = ("broadcom", "Arista-7050CX3-32S-C32")
VS = ("vs", "ACS-MSN3800")
RELEASES = {"202505": "SONiC.202505.12", "202511": "SONiC.202511.3", "old": "SONiC.201911.1",
            "dated": "SONiC.20220530", "dated-new": "SONiC.20230530.12"}


def _small(name, platform, release, old, new, load=("PFC_WD",)):
    asic_type, hwsku = platform
    meta = {"DEVICE_METADATA": {"localhost": {"hwsku": hwsku}}}
    version = {"build_version": RELEASES[release], "asic_type": asic_type}
    return name, dict(meta, **old), dict(meta, **new), version, list(load)


def _edit(base, path, value):
    out = copy.deepcopy(base)
    node = out
    for step in path[:-1]:
        node = node[step]
    if value is None:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def small_cases():
    pfc = {"PFC_WD": {"Ethernet4": {"restoration_time": "200", "detection_time": "200", "action": "drop"}}}
    pool = {"BUFFER_POOL": {"ingress_lossless_pool": {"xoff": "1000", "size": "10", "type": "ingress",
                                                      "mode": "dynamic"}}}
    wred = {"WRED_PROFILE": {"ROCEV2_LOSSLESS": {"green_min_threshold": "153600", "ecn": "ecn_all"}}}
    profile = {"BUFFER_PROFILE": {"pg_lossless_400000_5m_profile": {
        "pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "0", "xoff": "1000", "xon": "1000"}}}
    lo = {"LOOPBACK_INTERFACE": {"Loopback0": {}, "Loopback0|10.1.0.32/32": {}, "Loopback1": {},
                                 "Loopback1|10.1.0.33/32": {}}}
    port = {"PORT": {"Ethernet0": {"speed": "400000", "fec": "rs"}}}
    acl_old = {"ACL_TABLE": {"T": {"type": "L3"}}, "ACL_RULE": {"T|R1": {"PRIORITY": "10"}}}
    acl_new = {"ACL_TABLE": {"T": {"type": "L3V6"}}, "ACL_RULE": {"T|R1": {"PRIORITY": "20"}}}
    out = []
    for release in ("202505", "202511", "old"):
        for label, platform in (("dell", DELL), ("sn5600", SN5600), ("td3", TD3), ("vs", VS)):
            tag = "%s-%s" % (release, label)
            out += [
                _small("pfc-edit-" + tag, platform, release, pfc,
                       _edit(pfc, ("PFC_WD", "Ethernet4", "restoration_time"), "234234")),
                _small("pfc-add-" + tag, platform, release, {"PFC_WD": {"Ethernet0": {"action": "drop"}}},
                       dict(pfc, PFC_WD=dict(pfc["PFC_WD"], Ethernet0={"action": "drop"}))),
                _small("pfc-add-not-loaded-" + tag, platform, release, {"PFC_WD": {"Ethernet0": {"action": "drop"}}},
                       dict(pfc, PFC_WD=dict(pfc["PFC_WD"], Ethernet0={"action": "drop"})), load=()),
                _small("pool-xoff-" + tag, platform, release, pool,
                       _edit(pool, ("BUFFER_POOL", "ingress_lossless_pool", "xoff"), "234234")),
                _small("pool-size-" + tag, platform, release, pool,
                       _edit(pool, ("BUFFER_POOL", "ingress_lossless_pool", "size"), "2000")),
                _small("wred-threshold-" + tag, platform, release, wred,
                       _edit(wred, ("WRED_PROFILE", "ROCEV2_LOSSLESS", "green_min_threshold"), "204800")),
                _small("wred-ecn-" + tag, platform, release, wred,
                       _edit(wred, ("WRED_PROFILE", "ROCEV2_LOSSLESS", "ecn"), "ecn_green")),
                _small("profile-dynamic-th-" + tag, platform, release, profile,
                       _edit(profile, ("BUFFER_PROFILE", "pg_lossless_400000_5m_profile", "dynamic_th"), "1")),
                _small("profile-xon-" + tag, platform, release, profile,
                       _edit(profile, ("BUFFER_PROFILE", "pg_lossless_400000_5m_profile", "xon"), "2000")),
                _small("profile-gone-" + tag, platform, release, profile, {"BUFFER_PROFILE": {}}),
                _small("loopback0-gone-" + tag, platform, release, lo,
                       _edit(_edit(lo, ("LOOPBACK_INTERFACE", "Loopback0"), None),
                             ("LOOPBACK_INTERFACE", "Loopback0|10.1.0.32/32"), None)),
                _small("loopback1-gone-" + tag, platform, release, lo,
                       _edit(_edit(lo, ("LOOPBACK_INTERFACE", "Loopback1"), None),
                             ("LOOPBACK_INTERFACE", "Loopback1|10.1.0.33/32"), None)),
                _small("poll-interval-gone-" + tag, platform, release, {"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "60"}}},
                       {"PFC_WD": {"GLOBAL": {}}}),
                _small("port-speed-" + tag, platform, release, port, _edit(port, ("PORT", "Ethernet0", "speed"), "200000")),
                _small("port-fec-fc-" + tag, platform, release, port, _edit(port, ("PORT", "Ethernet0", "fec"), "fc")),
                _small("port-fec-bad-" + tag, platform, release, port, _edit(port, ("PORT", "Ethernet0", "fec"), "xx")),
                _small("port-new-row-bad-fec-" + tag, platform, release, port,
                       dict(port, PORT=dict(port["PORT"], Ethernet8={"speed": "400000", "fec": "bad"}))),
                _small("port-gone-" + tag, platform, release, port, {"PORT": {}}),
                _small("acl-retyped-" + tag, platform, release, acl_old, acl_new),
                _small("acl-retyped-rule-kept-" + tag, platform, release, acl_old,
                       dict(acl_new, ACL_RULE=acl_old["ACL_RULE"])),
            ]
    for release in ("dated", "dated-new", "202505"):
        out.append(_small("pool-xoff-td3-" + release, TD3, release, pool,
                          _edit(pool, ("BUFFER_POOL", "ingress_lossless_pool", "xoff"), "234234")))
    return out


def lab_cases():
    leaf = lab_leaf_config_db()
    target = copy.deepcopy(leaf)
    target["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"]["xoff"] = "1"
    target["WRED_PROFILE"]["ROCEV2_LOSSLESS"]["green_min_threshold"] = "204800"
    target["PORT"]["Ethernet8"]["mtu"] = "9100"
    port = sorted(k for k in leaf["PFC_WD"] if k != "GLOBAL")[0]
    no_watchdog = copy.deepcopy(leaf)
    del no_watchdog["PFC_WD"][port]
    other = sorted(k for k in leaf["PFC_WD"] if k not in ("GLOBAL", port))[0]
    edited = copy.deepcopy(leaf)
    edited["PFC_WD"][other]["action"] = "alert"
    sn5600 = copy.deepcopy(leaf)
    sn5600["DEVICE_METADATA"]["localhost"]["hwsku"] = "Mellanox-SN5600-O128"
    qos = copy.deepcopy(leaf)          # a port's PFC priorities: GCU holds the port admin down around it
    qos_port = sorted(p for p in qos["PORT_QOS_MAP"] if qos["PORT"].get(p, {}).get("admin_status") == "up")[0]
    row = qos["PORT_QOS_MAP"][qos_port]
    row["pfc_enable"] = "3" if row["pfc_enable"] != "3" else "3,4"
    recreate = copy.deepcopy(leaf)     # create-only fields: the rows are deleted and added back
    recreate["PORT"][sorted(recreate["PORT"])[0]]["lanes"] = "999"
    for table, field in (("BGP_NEIGHBOR", "asn"), ("LOOPBACK_INTERFACE", "vrf_name")):
        if recreate.get(table):
            recreate[table][sorted(recreate[table])[0]][field] = "65999" if field == "asn" else "Vrf_x"
    out = []
    for version in ({"build_version": "SONiC.202505.12", "asic_type": "broadcom"},
                    {"build_version": "SONiC.20250530.12", "asic_type": "broadcom"},
                    {"build_version": "SONiC.202511.3", "asic_type": "broadcom"},
                    {"build_version": "SONiC.202511.3", "asic_type": "mellanox"},
                    {"build_version": "SONiC.201911.1", "asic_type": "broadcom"}, {}):
        tag = "%s-%s" % (version.get("build_version", "none"), version.get("asic_type", "none"))
        out += [("lab-leaf-edits-" + tag, leaf, target, version, ["PFC_WD"]),
                ("lab-leaf-new-watchdog-" + tag, no_watchdog, leaf, version, ["PFC_WD"]),
                ("lab-leaf-new-watchdog-not-loaded-" + tag, no_watchdog, leaf, version, []),
                ("lab-leaf-new-and-edited-watchdog-" + tag, no_watchdog, edited, version, ["PFC_WD"]),
                ("lab-leaf-sn5600-" + tag, sn5600, dict(leaf, DEVICE_METADATA=sn5600["DEVICE_METADATA"]), version,
                 ["PFC_WD"]),
                ("lab-leaf-unchanged-" + tag, leaf, copy.deepcopy(leaf), version, ["PFC_WD"]),
                ("lab-leaf-qos-port-" + tag, leaf, qos, version, ["PFC_WD"]),
                ("lab-leaf-create-only-" + tag, leaf, recreate, version, ["PFC_WD"])]
    return out


def product_plan(running, target, version, load):
    return nos_registry.home("sonic").gcu_load_plan(running, target, version, load)


def emulator_plan(running, target, version, load):
    return gcu.load_plan(running, target, version, load)


def disagreements(cases, product=product_plan, emulator=emulator_plan):
    """[(case, product's plan, emulator's plan)] where the two differ."""
    out = []
    for name, running, target, version, load in cases:
        mine = product(copy.deepcopy(running), copy.deepcopy(target), dict(version), list(load))
        theirs = emulator(copy.deepcopy(running), copy.deepcopy(target), dict(version), list(load))
        if mine != theirs:
            out.append((name, mine, theirs))
    return out


def test_the_cases_cover_refusals_loads_and_unmodelled_releases():
    plans = [emulator_plan(r, t, v, lo) for _n, r, t, v, lo in small_cases() + lab_cases()]
    assert len({case[0] for case in small_cases() + lab_cases()}) == len(plans)
    assert any(p["refused"] is None for p in plans) and any(p["refused"] == [] for p in plans)
    assert any(p["refused"] for p in plans) and any(p["load"] for p in plans)
    assert any(p["flaps"] for p in plans) and any(p["recreated"] for p in plans)
    texts = " ".join(r for p in plans for r in p["refused"] or [])
    for what in ("remove is illegal", "dataacl rule", "rdma_config_update_validator", "wred_profile_config",
                 "buffer_profile_config", "port_config_update_validator"):
        assert what in texts, what


@pytest.mark.parametrize("cases", [small_cases, lab_cases], ids=["small", "lab-leaf"])
def test_the_deploy_pre_check_agrees_with_the_gcu_emulator(cases):
    found = disagreements(cases())
    assert not found, "\n".join("case %s: the deploy's pre-check says %r, the GCU emulator %r" % f for f in found)


def test_a_disagreement_is_named_by_its_case():
    def lenient(running, target, version, load):
        plan = product_plan(running, target, version, load)
        return dict(plan, refused=[] if plan["refused"] else plan["refused"])
    found = disagreements(small_cases(), product=lenient)
    assert "pfc-edit-202511-dell" in [name for name, _mine, _theirs in found]
    assert "pfc-edit-202511-sn5600" not in [name for name, _mine, _theirs in found]
