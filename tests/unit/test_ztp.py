"""Zero-touch provisioning from the plan: positions, the Kea configuration, ztp.json, iDRAC profiles,
the refusal report, and the tree's atomic write. The namespace test with real daemons is tests/ztp."""
import copy
import json
import os
import shutil
import subprocess

import pytest
import yaml

from conftest import YANG_MODELS, load_example, needs_sonic_yang
from gpufabric.build import render_all, write_build
from gpufabric.errors import SpecError
from gpufabric.ipam import fmt
from gpufabric.plan import build_plan
from gpufabric.ztp import kea, report
from gpufabric.ztp.idrac import autoconfig_option, server_profile
from gpufabric.ztp.positions import access_ports, management_positions
from gpufabric.ztp.run import provision, settings_from
from gpufabric.ztp.settings import ZtpSettings
from gpufabric.nos.sonic.ztp import ztp_json, ztp_json_problems
from gpufabric.ztp.tree import ztp_files


@pytest.fixture(scope="module")
def lab():
    return build_plan(load_example("lab"))


@pytest.fixture(scope="module")
def settings(lab):
    return ZtpSettings(lab.spec["oob"]["provisioning_host"], onie_image="images/onie.bin",
                       bios_attributes={"SysProfile": "PerfOptimized", "BootMode": "Uefi"})


@pytest.fixture(scope="module")
def tree(lab, settings):
    return ztp_files(lab, settings)


def test_every_oob_cable_is_one_position_with_its_planned_address(lab):
    positions = management_positions(lab)
    oob = [link for link in lab.links if link.network == "oob"]
    assert len(positions) == len(oob)
    assert len({p.circuit_id for p in positions}) == len({p.address for p in positions}) == len(positions)
    for pos, link in zip(positions, oob):
        dev = link.b
        assert pos.circuit_id == "%s:%s" % (link.a.name, link.a_port)
        assert pos.address == fmt(dev.bmc if pos.kind == "bmc" else dev.mgmt)
    servers = lab.by_role("gpu_server")
    assert sum(p.kind == "bmc" for p in positions) == sum(p.kind == "host" for p in positions) == len(servers)
    assert sum(p.kind == "switch" for p in positions) == sum(1 for d in lab.devices if d.role not in
                                                             ("gpu_server", "oob_switch"))


def test_the_relay_circuit_id_uses_the_port_alias_when_the_port_table_has_one(lab):
    pos = management_positions(lab, {"lab-oob-su01-r01": {"Ethernet0": "Eth1/1"}})
    assert [p.circuit_id for p in pos if p.relay == "lab-oob-su01-r01"][:2] == [
        "lab-oob-su01-r01:Eth1/1", "lab-oob-su01-r01:Ethernet1"]


def test_oob_switches_relay_to_the_provisioning_host_and_drop_foreign_option_82(lab):
    files = render_all(lab)
    for sw in lab.by_role("oob_switch"):
        db = json.loads(files["devices/%s/config_db.json" % sw.name])
        assert db["VLAN"]["Vlan10"]["dhcp_servers"] == [lab.spec["oob"]["provisioning_host"]]
        assert db["DHCPV4_RELAY"] == {"Vlan10": {"dhcpv4_servers": [lab.spec["oob"]["provisioning_host"]],
                                                 "agent_relay_mode": "discard"}}
    spec = load_example("lab")
    del spec["oob"]["provisioning_host"]
    files = render_all(build_plan(spec))
    assert "DHCPV4_RELAY" not in json.loads(files["devices/lab-oob-su01-r01/config_db.json"])


def test_relay_tables_are_valid_for_the_sonic_yang_models(lab):
    needs_sonic_yang()
    from gpufabric.nos.sonic.yang import validate_many
    db = json.loads(render_all(lab)["devices/lab-oob-su01-r01/config_db.json"])
    relay_only = {name: db[name] for name in ("VLAN", "DHCPV4_RELAY")}
    assert validate_many(YANG_MODELS, {"lab-oob-su01-r01": relay_only}) == []
    relay_only["DHCPV4_RELAY"]["Vlan10"]["agent_relay_mode"] = "drop"
    assert validate_many(YANG_MODELS, {"lab-oob-su01-r01": relay_only}) != []


def test_kea_config_classes_pools_and_options(lab, settings, tree):
    files, _tables = tree
    conf = json.loads(files["kea-dhcp4.conf"])["Dhcp4"]
    positions = management_positions(lab)
    classes = {c["name"]: c for c in conf["client-classes"]}
    assert len(classes) == len(access_ports(lab)) + len(positions)
    pools = {p["client-class"]: p["pool"] for p in conf["subnet4"][0]["pools"]}
    for pos in positions:
        assert pools["pos:" + pos.circuit_id] == "%s - %s" % (pos.address, pos.address)
        owned = classes["pos:" + pos.circuit_id]
        options = {o.get("name", o.get("code")): o["data"] for o in owned["option-data"]}
        assert options["host-name"] == pos.device
        if pos.kind == "bmc":
            assert "== 'iDRAC'" in owned["test"] and "not" not in owned["test"]
            assert options["vendor-encapsulated-options"] == autoconfig_option(pos.device, settings)
        else:
            assert "not (option[60].text == 'iDRAC')" in owned["test"]
        if pos.kind == "switch":
            assert options["boot-file-name"] == "http://10.200.0.10/ztp/%s/ztp.json" % pos.device
            assert options[114] == "http://10.200.0.10/images/onie.bin"
    assert conf["subnet4"][0]["subnet"] == lab.spec["oob"]["pool"]


def test_kea_accepts_the_lab_config(tmp_path, tree):
    if shutil.which("kea-dhcp4") is None:
        pytest.skip("kea-dhcp4 not installed (make setup)")
    path = tmp_path / "kea-dhcp4.conf"
    path.write_text(tree[0]["kea-dhcp4.conf"])
    proc = subprocess.run(["kea-dhcp4", "-t", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = json.loads(tree[0]["kea-dhcp4.conf"])
    broken["Dhcp4"]["client-classes"][0]["test"] = "relay4[1].hex =="
    path.write_text(json.dumps(broken))
    assert subprocess.run(["kea-dhcp4", "-t", str(path)], capture_output=True, check=False).returncode != 0


def test_a_quote_in_a_name_is_refused_with_one_line(lab):
    pos = management_positions(lab)[0]._replace(circuit_id="o'brien:Ethernet0")
    with pytest.raises(SpecError, match="single quote"):
        kea.position_class(pos, [])


def test_every_ztp_json_has_the_design_document_format(tree):
    files, tables = tree
    docs = {path: json.loads(text) for path, text in files.items() if path.endswith("/ztp.json")}
    assert len(docs) == len(tables)
    for path, doc in docs.items():
        assert ztp_json_problems(doc) == [], path
        host = path.split("/")[2]
        assert doc["ztp"]["02-configdb-json"]["url"]["source"] == "http://10.200.0.10/ztp/%s/config_db.json" % host


def test_the_format_check_names_what_is_wrong():
    assert ztp_json_problems({"ztp": {}, "extra": 1}) == ["the document must be one object with the single key 'ztp'"]
    problems = ztp_json_problems({"ztp": {"01-firmwar": {}, "02-configdb-json": {"url": "config_db.json"},
                                          "03-provisioning-script": {"plugin": "x", "halt-on-failure": "yes"}}})
    assert problems == [
        "ztp.01-firmwar: not a section of a known plugin (configdb-json, connectivity-check, firmware, "
        "provisioning-script, snmp)",
        "ztp.02-configdb-json.url.source: 'config_db.json' is not a URL",
        "ztp.03-provisioning-script.halt-on-failure: 'yes' has the wrong type",
        "ztp.03-provisioning-script.plugin: needs a url object"]


def test_served_config_db_is_the_build_config_db(lab, tree):
    built = render_all(lab)
    for path, text in tree[0].items():
        if path.endswith("/config_db.json"):
            assert text == built["devices/%s/config_db.json" % path.split("/")[2]]


def test_served_config_db_passes_yang_validation(lab, tree):
    needs_sonic_yang()
    from gpufabric.nos.sonic.yang import validate_many
    assert validate_many(YANG_MODELS, tree[1]) == []


def test_frr_script_only_in_split_unified_mode(settings):
    assert "03-provisioning-script" not in ztp_json("sw", "split", settings)["ztp"]
    doc = ztp_json("sw", "split-unified", settings)
    assert doc["ztp"]["03-provisioning-script"]["plugin"]["url"] == "http://10.200.0.10/ztp/sw/frr.sh"
    assert ztp_json_problems(doc) == []


def test_firmware_section_when_an_image_is_given(lab):
    s = ZtpSettings("10.0.0.1", nos_images={"sonic": "http://img/sonic.bin"})
    fw = ztp_json("sw", "split", s)["ztp"]["01-firmware"]
    assert fw["install"] == {"url": "http://img/sonic.bin", "set-default": True} and fw["reboot-on-success"]
    # An image for another NOS is not this switch's firmware.
    other = ZtpSettings("10.0.0.1", nos_images={"cumulus": "http://img/cumulus.bin"})
    assert "01-firmware" not in ztp_json("sw", "split", other)["ztp"]


def test_nos_images_must_be_a_mapping():
    with pytest.raises(SpecError, match="nos_images: 'x.bin' is not a mapping of NOS name to image"):
        ZtpSettings("10.0.0.1", nos_images="x.bin")


def test_idrac_profile_carries_the_gpu_server_bios_baseline_and_pxe(settings, tree):
    files = tree[0]
    profile = json.loads(files["www/idrac/lab-gpu0001.json"])
    attrs = {a["Name"]: a["Value"] for a in profile["SystemConfiguration"]["Components"][0]["Attributes"]}
    assert attrs["SysProfile"] == "PerfOptimized"
    assert attrs["PxeDev1Interface"] == settings.pxe_interface and attrs["PxeDev1EnDis"] == "Enabled"
    own = server_profile("XE9680", ZtpSettings("10.0.0.1", bios_attributes={"BootMode": "Bios"}))
    assert {"Name": "BootMode", "Value": "Bios"} in own["SystemConfiguration"]["Components"][0]["Attributes"]


def test_option_43_is_limited_to_255_characters():
    with pytest.raises(SpecError, match="option 43 holds 255"):
        autoconfig_option("x" * 250, ZtpSettings("10.0.0.1"))


def test_missing_provisioning_host_is_one_line(lab):
    spec = copy.deepcopy(load_example("lab"))
    del spec["oob"]["provisioning_host"]
    with pytest.raises(SpecError) as err:
        settings_from(build_plan(spec), {})
    assert str(err.value).startswith("oob.provisioning_host: missing:") and "\n" not in str(err.value)


KEA_LINE = ("2026-11-23 04:42:25.1 WARN  [kea-dhcp4.alloc-engine/1.2] ALLOC_ENGINE_V4_ALLOC_FAIL_CLASSES "
            "[hwtype=1 %s], cid=[no info], tid=0x1: Failed to allocate an IPv4 address for client with classes: %s\n")


def test_report_names_refusals_by_position_and_pairs_a_swap(lab):
    positions = management_positions(lab)
    bmc, host = positions[[p.kind for p in positions].index("bmc")], positions[[p.kind for p in positions].index("host")]
    log = [KEA_LINE % ("aa:aa:aa:aa:aa:01", "ALL, VENDOR_CLASS_iDRAC, at:%s, UNKNOWN" % host.circuit_id),
           KEA_LINE % ("aa:aa:aa:aa:aa:02", "ALL, at:%s, UNKNOWN" % bmc.circuit_id),
           KEA_LINE % ("aa:aa:aa:aa:aa:03", "ALL, at:%s:Ethernet47, UNKNOWN" % bmc.relay),
           "2026-11-23 INFO DHCP4_LEASE_ALLOC unrelated\n"]
    found = report.findings(log, positions, access_ports(lab))
    by_port = {f["port"]: f for f in found}
    assert set(by_port) == {bmc.port, host.port, "Ethernet47"}
    assert by_port[bmc.port]["swapped_with"] == host.port and by_port[host.port]["swapped_with"] == bmc.port
    expected = "%s %s: planned %s idrac (bmc), but a device that is not an iDRAC asked (MAC aa:aa:aa:aa:aa:02)" % (
        bmc.relay, bmc.port, bmc.device)
    assert by_port[bmc.port]["message"].startswith(expected)
    assert by_port["Ethernet47"]["planned"] is None and by_port["Ethernet47"]["swapped_with"] is None
    # An iDRAC at its own kind of position is no swap partner.
    lone = report.findings(log[:1], positions, access_ports(lab))
    assert [f["swapped_with"] for f in lone] == [None]


def test_provision_writes_atomically_and_the_build_keeps_the_tree(lab, tmp_path):
    result = provision(lab, str(tmp_path), {"onie_image": "images/onie.bin"})
    assert result["changed"] and result["positions"] == 30 and not result.get("failed")
    again = provision(lab, str(tmp_path), {"onie_image": "images/onie.bin"})
    assert not again["changed"] and again["changed_count"] == 0
    ztp_root = os.path.join(str(tmp_path), "lab", "ztp")
    write_build(lab, str(tmp_path))
    assert os.path.isfile(os.path.join(ztp_root, "kea-dhcp4.conf"))
    assert write_build(lab, str(tmp_path)) == []
    check = provision(lab, str(tmp_path), {"onie_image": "images/other.bin"}, check=True)
    assert check["changed"] and "images/onie.bin" in open(os.path.join(ztp_root, "kea-dhcp4.conf")).read()


# --- Cumulus Linux switches (nos/cumulus/ztp.py) ---------------------------------------------------------------

@pytest.fixture(scope="module")
def mixed():
    plan = build_plan(load_example("mixed-lab"))
    return plan, ztp_files(plan, ZtpSettings(plan.spec["oob"]["provisioning_host"]))


def test_a_cumulus_switch_gets_option_239_with_its_script_and_a_sonic_one_option_67(mixed):
    """Each switch's position carries the ZTP option of its NOS: Cumulus' 239 (cumulus-provision-url, defined for Kea,
    which has no name for it) with the URL of the switch's own script; SONiC's 67 with its ztp.json."""
    plan, (files, _native) = mixed
    conf = json.loads(files["kea-dhcp4.conf"])["Dhcp4"]
    assert conf["option-def"] == [{"name": "cumulus-provision-url", "code": 239, "type": "string", "space": "dhcp4"}]
    classes = {c["name"]: c for c in conf["client-classes"]}
    seen = set()
    for pos in management_positions(plan):
        if pos.kind != "switch":
            continue
        options = {o["name"]: o["data"] for o in classes["pos:" + pos.circuit_id]["option-data"] if "name" in o}
        base = "http://%s/ztp/%s/" % (plan.spec["oob"]["provisioning_host"], pos.device)
        nos = plan.device(pos.device).nos
        seen.add(nos)
        if nos == "cumulus":
            assert options["cumulus-provision-url"] == base + "cumulus-ztp.sh" and "boot-file-name" not in options
            assert "www/ztp/%s/cumulus-ztp.sh" % pos.device in files
        else:
            assert options["boot-file-name"] == base + "ztp.json" and "cumulus-provision-url" not in options
    assert seen == {"cumulus", "sonic"}


def test_kea_accepts_the_mixed_config(tmp_path, mixed):
    if shutil.which("kea-dhcp4") is None:
        pytest.skip("kea-dhcp4 not installed (make setup)")
    path = tmp_path / "kea-dhcp4.conf"
    path.write_text(mixed[1][0]["kea-dhcp4.conf"])
    proc = subprocess.run(["kea-dhcp4", "-t", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_served_startup_yaml_is_the_builds(mixed):
    plan, (files, _native) = mixed
    built = render_all(plan, stages=["configs"])
    served = {k.split("/")[2]: v for k, v in files.items() if k.endswith("/startup.yaml")}
    assert served and all(v == built["devices/%s/startup.yaml" % host] for host, v in served.items())


def _run_script(tmp_path, script, served_text):
    """Run a Cumulus ZTP script with curl and nv replaced by stubs: curl writes ``served_text`` where -o says, nv
    records its arguments. Returns (exit code, nv calls, stderr)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (tmp_path / "served.yaml").write_text(served_text)
    (bin_dir / "curl").write_text('#!/bin/bash\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && { cp %s "$2"; shift; }; shift; '
                                  'done\n' % (tmp_path / "served.yaml"))
    # nv: `config show -o json` answers a switch fresh from the factory (its default account), `config replace` keeps
    # the file it is given.
    (tmp_path / "running.json").write_text(json.dumps(
        [{"header": {"rev-id": 1.0}}, {"set": {"system": {"hostname": "cumulus", "timezone": "Etc/UTC", "aaa": {
            "user": {"cumulus": {"role": "system-admin"}}}}, "interface": {"eth0": {"type": "eth", "ip": {
                "address": {"dhcp": {}}, "vrf": "mgmt"}}}}}]))
    (bin_dir / "nv").write_text('#!/bin/bash\necho "$*" >> %s\n[ "$1 $2" = "config show" ] && cat %s\n'
                                '[ "$1 $2" = "config replace" ] && cp "$3" %s\ntrue\n'
                                % (tmp_path / "nv.log", tmp_path / "running.json", tmp_path / "replaced.json"))
    for stub in ("curl", "nv"):
        (bin_dir / stub).chmod(0o755)
    (tmp_path / "ztp.sh").write_text(script)
    proc = subprocess.run(["bash", str(tmp_path / "ztp.sh")], env=dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"])),
                          capture_output=True, text=True, check=False)
    calls = (tmp_path / "nv.log").read_text().splitlines() if (tmp_path / "nv.log").exists() else []
    return proc.returncode, calls, proc.stderr


def test_the_cumulus_script_is_one_ztp_runs_and_applies_only_its_own_switch(tmp_path, mixed):
    """The marker ZTP requires, the switch's own startup.yaml fetched, put in place of what runs as a deploy would
    (`nv config replace` of the file plus the switch's default accounts: the factory configuration's rest, eth0's DHCP,
    the time zone, goes), applied answering the prompt and saved; a file of another switch (a cabling mix-up on the
    web server side) stops the script with a non-zero exit, which ZTP reports as failed, before nv runs."""
    plan, (files, _native) = mixed
    host = "mixedlab-spine01"
    script = files["www/ztp/%s/cumulus-ztp.sh" % host]
    assert script.startswith("#!/bin/bash\n") and "CUMULUS-AUTOPROVISIONING" in script
    assert "http://%s/ztp/%s/startup.yaml" % (plan.spec["oob"]["provisioning_host"], host) in script
    assert subprocess.run(["bash", "-n"], input=script, text=True, check=False).returncode == 0
    (tmp_path / "own").mkdir()
    code, calls, err = _run_script(tmp_path / "own", script, files["www/ztp/%s/startup.yaml" % host])
    assert code == 0, err
    assert [c.split()[:2] for c in calls] == [["config", "show"], ["config", "replace"], ["config", "apply"],
                                              ["config", "save"]]
    assert calls[0] == "config show -o json" and calls[2] == "config apply -y"
    replaced = json.loads((tmp_path / "own" / "replaced.json").read_text())
    served = yaml.safe_load(files["www/ztp/%s/startup.yaml" % host])
    want = dict(served[-1]["set"])
    want["system"] = dict(want["system"], aaa={"user": {"cumulus": {"role": "system-admin"}}})
    assert replaced[-1]["set"] == want and replaced[0]["header"] == served[0]["header"]
    (tmp_path / "other").mkdir()
    code, calls, err = _run_script(tmp_path / "other", script, files["www/ztp/mixedlab-spine02/startup.yaml"])
    assert code != 0 and calls == [] and "is not %s's" % host in err
