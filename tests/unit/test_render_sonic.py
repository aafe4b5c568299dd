"""SONiC rendering of the lab: RoCE lands on a PFC priority on every backend port, both ends of every
backend link agree, config_db.json keeps to the schema, and FRR's own parser accepts every frr.conf."""
import json
import shutil
import subprocess

import pytest

from conftest import load_example
from gpufabric.build import render_all
from gpufabric.plan import build_plan
from gpufabric.nos.sonic.schema import check_config_db

ROCE_DSCP = "26"


@pytest.fixture(scope="module")
def plan():
    return build_plan(load_example("lab"))


@pytest.fixture(scope="module")
def files(plan):
    return render_all(plan)


@pytest.fixture(scope="module")
def dbs(files):
    return {path.split("/")[1]: json.loads(text) for path, text in files.items() if path.endswith("config_db.json")}


def _backend_switch_ports(plan):
    for dev in plan.devices:
        if dev.role.startswith("backend"):
            for link in dev.links:
                if link.network == "backend":
                    yield dev.name, link.a_port if link.a is dev else link.b_port


def _lossless_settings(db, port):
    """What must agree across a link: the DSCP map's verdict, PFC priorities, ECN profile, watchdog."""
    qos = db["PORT_QOS_MAP"][port]
    ecn = {q: db["WRED_PROFILE"][row["wred_profile"]] for key, row in db["QUEUE"].items()
           for q in [key.split("|")[1]] if key.split("|")[0] == port and "wred_profile" in row}
    return {"dscp_to_tc": db["DSCP_TO_TC_MAP"][qos["dscp_to_tc_map"]], "pfc_enable": qos["pfc_enable"],
            "tc_to_pg": db["TC_TO_PRIORITY_GROUP_MAP"][qos["tc_to_pg_map"]], "ecn": ecn,
            "pfc_wd": db["PFC_WD"][port]}


def test_dscp26_lands_in_a_pfc_enabled_class_on_every_backend_port(plan, dbs):
    checked = 0
    for host, port in _backend_switch_ports(plan):
        db = dbs[host]
        qos = db["PORT_QOS_MAP"][port]
        tc = db["DSCP_TO_TC_MAP"][qos["dscp_to_tc_map"]][ROCE_DSCP]
        assert tc in qos["pfc_enable"].split(","), (host, port, tc, qos["pfc_enable"])
        pg = db["TC_TO_PRIORITY_GROUP_MAP"][qos["tc_to_pg_map"]][tc]
        assert db["BUFFER_PG"]["%s|%s" % (port, pg)]["profile"].startswith("pg_lossless_"), (host, port)
        assert "wred_profile" in db["QUEUE"]["%s|%s" % (port, db["TC_TO_QUEUE_MAP"][qos["tc_to_queue_map"]][tc])]
        checked += 1
    assert checked == 32 + 2 * 32  # server ports of the leaves, both ends of every leaf-spine link


def test_pfc_and_ecn_agree_on_both_ends_of_every_backend_switch_link(plan, dbs):
    links = [l for l in plan.links if l.network == "backend" and l.tier != "server"]
    assert links
    for link in links:
        a = _lossless_settings(dbs[link.a.name], link.a_port)
        b = _lossless_settings(dbs[link.b.name], link.b_port)
        assert a == b, (link.a.name, link.a_port, link.b.name, link.b_port)


def test_frontend_and_oob_switches_carry_no_lossless_class(dbs):
    for host, db in dbs.items():
        if "-fe-" in host or "-oob-" in host:
            assert "PORT_QOS_MAP" not in db and "BUFFER_PG" not in db


def test_every_config_db_keeps_to_the_schema(dbs):
    for host, db in dbs.items():
        assert check_config_db(db) == [], host
        meta = db["DEVICE_METADATA"]["localhost"]
        assert meta["hostname"] == host and meta["docker_routing_config_mode"] == "split-unified"


def test_the_schema_check_names_what_is_wrong(dbs):
    db = json.loads(json.dumps(dbs["lab-r0-leaf01"]))
    db["INTERFACE"]["Ethernet0|10.0.0.0"] = {}
    db["PORT"]["Ethernet0"]["fec"] = "reed-solomon"
    db["NOT_A_TABLE"] = {"x": {}}
    errors = check_config_db(db)
    assert any(e.startswith("INTERFACE: 'Ethernet0|10.0.0.0' does not match") for e in errors), errors
    assert any(e.startswith("PORT/Ethernet0/fec: 'reed-solomon' does not match") for e in errors), errors
    assert any("NOT_A_TABLE" in e for e in errors), errors


def _vtysh_dryrun(path):
    return subprocess.run(["vtysh", "--dryrun", "-f", str(path)], capture_output=True, text=True, check=False)


needs_frr = pytest.mark.skipif(shutil.which("vtysh") is None,
                               reason="FRR is not installed (vtysh missing): `make setup` or apt-get install frr")


@needs_frr
def test_every_frr_conf_passes_frrs_own_parser(files, tmp_path):
    confs = {p: t for p, t in files.items() if p.endswith("frr.conf")}
    assert len(confs) == 27
    for rel, text in confs.items():
        path = tmp_path / rel.replace("/", "_")
        path.write_text(text)
        result = _vtysh_dryrun(path)
        assert result.returncode == 0, (rel, result.stdout, result.stderr)


@needs_frr
def test_the_frr_check_rejects_a_broken_config(files, tmp_path):
    path = tmp_path / "broken.conf"
    path.write_text(files["devices/lab-r0-leaf01/frr.conf"].replace("maximum-paths", "maximum-pathz"))
    assert _vtysh_dryrun(path).returncode != 0


def test_deploy_target_keeps_platform_fields_and_replaces_our_tables(dbs):
    from gpufabric.nos.sonic.deploy import target_config
    running = {"PORT": {"Ethernet0": {"lanes": "33,34,35,36,37,38,39,40", "alias": "fourHundredGigE1/1", "mtu": "1500"}},
               "BUFFER_PROFILE": {"pg_lossless_100000_5m_profile": {"pool": "ingress_lossless_pool", "size": "2540"}},
               "BGP_NEIGHBOR": {"192.0.2.1": {"asn": "65000"}},
               "VLAN": {"Vlan1000": {"vlanid": "1000"}}}
    target = target_config(running, dbs["lab-r0-leaf01"])
    port = target["PORT"]["Ethernet0"]
    assert port["alias"] == "fourHundredGigE1/1" and port["mtu"] == "9216" and port["lanes"] == "33,34,35,36,37,38,39,40"
    # Profiles are merged: the platform's (or buffermgrd's) stay beside ours.
    assert "pg_lossless_100000_5m_profile" in target["BUFFER_PROFILE"] and "ingress_lossy_profile" in target["BUFFER_PROFILE"]
    assert "BGP_NEIGHBOR" not in target  # ours, with no rows in split-unified mode: removed
    assert "VLAN" not in target  # ours, and this leaf has none: removed
    assert target_config(target, dbs["lab-r0-leaf01"]) == target  # a second deploy changes nothing


def test_deploy_target_leaves_out_what_show_runningconfiguration_adds(dbs):
    # `show runningconfiguration all` adds FRR's running config as "bgpraw" (sonic-utilities show/main.py); GCU reads
    # CONFIG_DB without it, so a target holding it would be a change to a table without a YANG model.
    from gpufabric.nos.sonic.deploy import running_config_db, target_config
    config_db = target_config({}, dbs["lab-r0-leaf01"])
    running = dict(config_db, bgpraw="Building configuration...\n!\nrouter bgp 65101\n!\nend\n")
    target = target_config(running, dbs["lab-r0-leaf01"])
    assert "bgpraw" not in target and target == config_db
    assert running_config_db(running) == config_db and "bgpraw" in running      # the input is not changed
    assert target != running and target == running_config_db(running)          # what the role compares: no change


def test_deploy_keeps_the_qos_of_a_switch_whose_build_has_none(dbs):
    # A frontend or OOB switch renders no QoS: its factory QoS stays; a backend leaf's is replaced whole.
    from gpufabric.nos.sonic.deploy import target_config
    factory = {"DSCP_TO_TC_MAP": {"AZURE": {"0": "1"}}, "PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE"}},
               "BUFFER_PG": {"Ethernet0|0": {"profile": "ingress_lossy_profile"}},
               "SNMP_COMMUNITY": {"operators-own": {"TYPE": "RO"}}}
    frontend = next(name for name, db in dbs.items() if "VLAN" in db and "PORT_QOS_MAP" not in db)
    kept = target_config(factory, dbs[frontend])
    assert {t: kept[t] for t in factory} == factory
    leaf = target_config(factory, dbs["lab-r0-leaf01"])
    assert leaf["DSCP_TO_TC_MAP"] == dbs["lab-r0-leaf01"]["DSCP_TO_TC_MAP"] and "AZURE" not in leaf["DSCP_TO_TC_MAP"]
    assert leaf["PORT_QOS_MAP"] == dbs["lab-r0-leaf01"]["PORT_QOS_MAP"]
    # Communities are secrets the build never renders: the switch keeps the operator's.
    assert leaf["SNMP_COMMUNITY"] == factory["SNMP_COMMUNITY"]


def test_frr_conf_leaves_out_frrs_defaults_and_writes_other_values(files):
    # frr-reload deletes and re-adds every line FRR's running config lacks, and FRR shows no defaults.
    import yaml
    from gpufabric.nos.sonic.render import frr_conf
    cfg = yaml.safe_load(files["devices/lab-r0-leaf01/structured.yml"])
    default = frr_conf(cfg)
    assert "timers bgp" not in default
    cfg["bgp"]["timers"] = {"keepalive": 1, "hold": 3}
    assert " timers bgp 1 3\n" in frr_conf(cfg)


def test_frr_conf_is_what_the_bgp_container_keeps_in_split_unified_mode(files):
    # docker_init.sh (split-unified) appends the two zebra FPM lines unless present, and starts bfdd only
    # with frr_mgmt_framework_config "true": the file has both lines and no BFD.
    text = files["devices/lab-r0-leaf01/frr.conf"]
    assert "\nno fpm use-next-hop-groups\nfpm address 127.0.0.1\n" in text
    assert "bfd" not in text
