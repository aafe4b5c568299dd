"""nos/sonic/deploy_read.py: the one command line a SONiC deploy sends, its answer split by section, and what the
deploy decides from it. The command is run here by a real /bin/sh over files standing in for the switch's, so the
marker lines and exit statuses are the shell's own."""
import hashlib
import json
import subprocess

import pytest

from gpufabric.nos.sonic import deploy_read

RENDERED = {"DEVICE_METADATA": {"localhost": {"hostname": "leaf01", "bgp_asn": "65001"}},
            "LOOPBACK_INTERFACE": {"Loopback0|10.0.0.1/32": {}}}


def sh(parts, bin_dir):
    """Run the read's command line with `show` and the vtysh stand-in on PATH (bin_dir)."""
    line = deploy_read.command(parts)
    out = subprocess.run(["/bin/sh", "-c", line], capture_output=True, text=True, check=False,
                         env={"PATH": "%s:/usr/bin:/bin" % bin_dir})
    return out.stdout


@pytest.fixture
def switch(tmp_path):
    running = dict(RENDERED, bgpraw="router bgp 65001\n", PORT={"Ethernet0": {"lanes": "1,2,3,4", "speed": "400000"}})
    (tmp_path / "running.json").write_text(json.dumps(running))
    show = tmp_path / "show"
    show.write_text("#!/bin/sh\ncat %s\n" % (tmp_path / "running.json"))
    vtysh = tmp_path / "vtysh"
    vtysh.write_text("#!/bin/sh\necho '{\"ipv4Unicast\": {}}'\n")
    for f in (show, vtysh):
        f.chmod(0o755)
    frr = tmp_path / "frr.conf"
    frr.write_text("hostname leaf01\nno newline at the end")
    return tmp_path


def test_a_full_read_splits_into_its_sections_with_their_statuses(switch):
    parts = deploy_read.sections(str(switch / "frr.conf"), str(switch / "vtysh"), config_db=True, full=True)
    assert [name for name, _cmd in parts] == ["record", "running", "frr", "version", "bgp_before"]
    read = deploy_read.split(parts, sh(parts, switch))
    assert read["frr"] == (0, "hostname leaf01\nno newline at the end")   # the file as it is, last newline missing
    assert read["version"][0] != 0                                          # no sonic_version.yml here
    assert deploy_read.version(read) == "" and json.loads(deploy_read.bgp_before(read)) == {"ipv4Unicast": {}}
    seen = deploy_read.compare(read, RENDERED, "hostname leaf01\nno newline at the end", config_db=True)
    assert "bgpraw" not in seen["running"] and "bgpraw" not in seen["target"]
    assert seen["target"]["PORT"] == seen["running"]["PORT"]               # a table the build has none of stays
    assert not seen["db_changed"] and not seen["frr_changed"]
    assert seen["frr_previous"] == "hostname leaf01\nno newline at the end"


def test_a_pending_read_compares_the_checksum_and_sees_a_missing_frr_conf(switch):
    parts = deploy_read.sections(str(switch / "frr.conf"), "vtysh", config_db=True, full=False)
    assert [name for name, _cmd in parts] == ["record", "running", "frr"]
    read = deploy_read.split(parts, sh(parts, switch))
    text = (switch / "frr.conf").read_text()
    assert read["frr"][1].split()[0] == hashlib.sha1(text.encode()).hexdigest()
    assert not deploy_read.compare(read, RENDERED, text, True)["frr_changed"]
    assert deploy_read.compare(read, RENDERED, text + "\n", True)["frr_changed"]
    (switch / "frr.conf").unlink()
    seen = deploy_read.compare(deploy_read.split(parts, sh(parts, switch)), RENDERED, text, True)
    assert seen["frr_changed"] and seen["frr_installed_sha1"] == "" and seen["frr_previous"] is None


def test_a_config_db_change_is_seen_and_config_db_off_reads_no_show(switch):
    parts = deploy_read.sections(str(switch / "frr.conf"), "vtysh", config_db=True, full=False)
    changed = dict(RENDERED, LOOPBACK_INTERFACE={"Loopback0|10.0.0.2/32": {}})
    seen = deploy_read.compare(deploy_read.split(parts, sh(parts, switch)), changed, "", True)
    assert seen["db_changed"] and seen["target"]["LOOPBACK_INTERFACE"] == {"Loopback0|10.0.0.2/32": {}}
    names = [n for n, _c in deploy_read.sections("/x", "vtysh", config_db=False, full=True)]
    assert names == ["record", "frr", "bgp_before"]


def test_a_failed_or_cut_read_is_one_line_naming_the_command(switch):
    parts = deploy_read.sections(str(switch / "frr.conf"), "vtysh", config_db=True, full=False)
    (switch / "show").write_text("#!/bin/sh\necho 'Error: not root' >&2\nexit 1\n")
    with pytest.raises(deploy_read.ReadError, match="show runningconfiguration all. failed .status 1"):
        deploy_read.compare(deploy_read.split(parts, sh(parts, switch)), RENDERED, "", True)
    with pytest.raises(deploy_read.ReadError, match="no end marker"):
        deploy_read.split(parts, "{}\n")
    (switch / "show").write_text("#!/bin/sh\necho 'not json'\n")
    with pytest.raises(deploy_read.ReadError, match="printed no JSON"):
        deploy_read.compare(deploy_read.split(parts, sh(parts, switch)), RENDERED, "", True)


def test_the_guard_names_the_tables_changed_since_the_record_and_passes_a_switch_without_one(switch):
    record = switch / "gpufabric-deploy.json"
    parts = deploy_read.sections(str(switch / "frr.conf"), "vtysh", True, False, record_file=str(record))
    read = deploy_read.split(parts, sh(parts, switch))
    assert read["record"][0] != 0
    seen = deploy_read.compare(read, RENDERED, "", True)
    assert deploy_read.changed_by_hand(read, seen["running"]) == []          # factory state: no record, not refused
    # The record of a deploy that left the build's tables: nothing changed since.
    text = deploy_read.record_text(seen["target"], RENDERED)
    assert set(json.loads(text)["config_db"]) == set(RENDERED) and "65001" not in text    # digests, no value
    record.write_text(text)
    read = deploy_read.split(parts, sh(parts, switch))
    assert deploy_read.changed_by_hand(read, deploy_read.compare(read, RENDERED, "", True)["running"]) == []
    # By hand since: a new loopback address; a table the build does not own (PORT) is not the guard's.
    running = json.loads((switch / "running.json").read_text())
    running["LOOPBACK_INTERFACE"]["Loopback0|10.0.0.9/32"] = {}
    running["PORT"]["Ethernet0"]["mtu"] = "1500"
    (switch / "running.json").write_text(json.dumps(running))
    read = deploy_read.split(parts, sh(parts, switch))
    assert deploy_read.changed_by_hand(read, deploy_read.compare(read, RENDERED, "", True)["running"]) == [
        "LOOPBACK_INTERFACE"]
    record.write_text("not a record")
    read = deploy_read.split(parts, sh(parts, switch))
    assert deploy_read.changed_by_hand(read, {}) == ["the last deploy's record (unreadable)"]


def test_peers_are_the_planned_neighbours_once_each():
    device = {"bgp": {"neighbors": [{"peer": "spine02", "ip": "a"}, {"peer": "spine01", "ip": "b"},
                                    {"peer": "spine01", "ip": "c"}, {"ip": "d"}]}}
    assert deploy_read.peer_names(device) == ["spine01", "spine02"]
    assert deploy_read.peer_names({}) == []


def push_module():
    """plugins/action/sonic_deploy_push.py, loaded from its file (its command line is plain shell)."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "plugins", "action", "sonic_deploy_push.py")
    spec = importlib.util.spec_from_file_location("gpufabric_sonic_deploy_push", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_push_installs_the_file_then_acts_and_compare_leaves_an_equal_file_alone(tmp_path):
    push = push_module()
    part, dest, log = tmp_path / "x.part", tmp_path / "frr.conf", tmp_path / "reloads"

    def run(text, compare, then="echo reload >> %s" % log):
        part.write_text(text)
        line = push.command_line(str(part), str(dest), "0640", then, compare)
        return subprocess.run(["/bin/sh", "-c", line], capture_output=True, text=True, check=False)

    first = run("router bgp 65001\n", compare=False)
    assert first.returncode == 0 and dest.read_text() == "router bgp 65001\n" and not part.exists()
    assert oct(dest.stat().st_mode & 0o777) == "0o640" and log.read_text() == "reload\n"
    same = run("router bgp 65001\n", compare=True)
    assert push.UNCHANGED in same.stdout and log.read_text() == "reload\n" and not part.exists()
    other = run("router bgp 65002\n", compare=True)
    assert push.UNCHANGED not in other.stdout and dest.read_text() == "router bgp 65002\n"
    assert log.read_text() == "reload\nreload\n"
    failed = run("router bgp 65003\n", compare=False, then="exit 3")
    assert failed.returncode == 3 and dest.read_text() == "router bgp 65003\n"   # installed; the step's command failed
