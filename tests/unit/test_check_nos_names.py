"""scripts/check_nos_names.py: no NOS is named outside its home in plugins/, roles/ and playbooks/, and the
checker finds what it must (a neutral file naming a NOS, a home naming another NOS, a stale allow-list entry)
and leaves alone what it must (a home's own Ansible surface, a word that merely contains a NOS name)."""
import os
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_nos_names  # noqa: E402

REGISTRY = 'HOMES = {"sonic": "sonic", "cumulus": "cumulus"}\n'


def _tree(tmp_path, files):
    for rel, text in dict({check_nos_names.REGISTRY: REGISTRY}, **files).items():
        path = tmp_path.joinpath(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


def test_the_collection_has_no_offence():
    assert check_nos_names.offences(ROOT) == []


def test_the_script_exits_0_on_the_collection():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_nos_names.py")], capture_output=True,
                          text=True, check=False)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_the_names_are_the_registered_homes():
    assert check_nos_names.nos_names(ROOT) == ["cumulus", "eos", "sonic"]


def test_offences_in_neutral_files_and_other_homes(tmp_path, monkeypatch):
    monkeypatch.setattr(check_nos_names, "ALLOWED", {check_nos_names.REGISTRY: "registry",
                                                     "playbooks/deploy.yml": "dispatch"})
    root = _tree(tmp_path, {
        "plugins/module_utils/gpufabric/build.py": "x = 1\n# reads SONiC's config_db\n",
        "plugins/module_utils/gpufabric/nos/cumulus/render.py": "# as on sonic\n",
        "plugins/module_utils/gpufabric/nos/sonic/render.py": "# SONiC, its own home\n",
        "plugins/filter/sonic_target_config.py": "def sonic_target_config(): pass\n",
        "roles/sonic_deploy/tasks/main.yml": "- name: SONiC\n",
        "roles/gpu_server/tasks/main.yml": "- name: Cumulus Linux\n",
        "playbooks/deploy.yml": "- role: gpucluster.fabric.sonic_deploy\n",
        "plugins/module_utils/gpufabric/plan/naming.py": "# dplane_fpm_sonic is a word, supersonic is not\n",
    })
    lines = check_nos_names.offences(root)
    assert lines == [
        "plugins/module_utils/gpufabric/build.py:2: a NOS-neutral file names the NOS sonic; move that into nos/sonic/"
        " (or roles/sonic_*, plugins/*/sonic_*) or word it without the NOS",
        "plugins/module_utils/gpufabric/nos/cumulus/render.py:1: the home of cumulus names the NOS sonic; move that"
        " into nos/sonic/ (or roles/sonic_*, plugins/*/sonic_*) or word it without the NOS",
        "plugins/module_utils/gpufabric/plan/naming.py:1: a NOS-neutral file names the NOS sonic; move that into"
        " nos/sonic/ (or roles/sonic_*, plugins/*/sonic_*) or word it without the NOS",
        "roles/gpu_server/tasks/main.yml:1: a NOS-neutral file names the NOS cumulus; move that into nos/cumulus/"
        " (or roles/cumulus_*, plugins/*/cumulus_*) or word it without the NOS",
    ]
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_nos_names.py"), root],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and proc.stdout.splitlines() != []


def test_an_allowed_file_that_names_no_nos_is_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(check_nos_names, "ALLOWED", {check_nos_names.REGISTRY: "registry",
                                                     "roles/traffic_shift/": "frr defaults"})
    root = _tree(tmp_path, {"roles/traffic_shift/defaults/main.yml": "traffic_shift_vtysh_command: vtysh\n"})
    assert check_nos_names.offences(root) == [
        "roles/traffic_shift/: allowed to name a NOS but names none; remove it from ALLOWED in"
        " scripts/check_nos_names.py"]
