"""playbooks/ztp.yml on the lab against localhost (no root needed)
with every path in a temporary directory: the tree
is rendered and checked, installed, and a second run changes nothing; check mode writes nothing; a file changed
by hand is put back, a file added by hand (an image) is left alone."""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.skipif(shutil.which("kea-dhcp4") is None, reason="kea-dhcp4 not installed (make setup)")


def play(tmp, *extra):
    argv = ["ansible-playbook", "-i", "inventories/lab", "playbooks/ztp.yml", "-e", "ztp_host=localhost",
            "-e", "ztp_gather_facts=false", "-e", "ansible_connection=local", "-e", "build_dir=%s/build" % tmp,
            "-e", "ztp_server_install_packages=false", "-e", "ztp_server_manage_services=false",
            "-e", "ztp_server_kea_config=%s/etc/kea/kea-dhcp4.conf" % tmp, "-e", "ztp_server_www=%s/www" % tmp,
            "-e", "ztp_server_http_unit=%s/systemd/gpufabric-ztp-http.service" % tmp,
            "-e", "ztp_onie_image=images/sonic-broadcom.bin"] + list(extra)
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    ok, changed = re.search(r"localhost\s+: ok=(\d+)\s+changed=(\d+)", proc.stdout).groups()
    return {"ok": int(ok), "changed": int(changed)}


def test_ztp_playbook_installs_and_second_run_changes_nothing(tmp_path):
    tmp = str(tmp_path)
    checked = play(tmp, "--check", "--diff")
    assert checked["changed"] > 0 and not os.path.exists(os.path.join(tmp, "www"))
    assert not os.path.exists(os.path.join(tmp, "etc", "kea", "kea-dhcp4.conf"))
    assert play(tmp)["changed"] > 0
    assert os.path.isfile(os.path.join(tmp, "www", "ztp", "lab-r0-leaf01", "ztp.json"))
    assert os.path.isfile(os.path.join(tmp, "www", "idrac", "lab-gpu0001.json"))
    with open(os.path.join(tmp, "etc", "kea", "kea-dhcp4.conf")) as f:
        assert "pos:lab-oob-su01-r01:Ethernet0" in f.read()
    assert play(tmp)["changed"] == 0

    # A file changed by hand is put back; an image an operator put under www/ stays.
    profile = os.path.join(tmp, "www", "idrac", "lab-gpu0001.json")
    with open(profile) as f:
        good = f.read()
    with open(profile, "w") as f:
        f.write("{}\n")
    os.makedirs(os.path.join(tmp, "www", "images"))
    with open(os.path.join(tmp, "www", "images", "sonic-broadcom.bin"), "w") as f:
        f.write("image\n")
    assert play(tmp, "--check")["changed"] == 1
    assert play(tmp)["changed"] == 1
    with open(profile) as f:
        assert f.read() == good
    assert os.path.isfile(os.path.join(tmp, "www", "images", "sonic-broadcom.bin"))
    assert play(tmp)["changed"] == 0
