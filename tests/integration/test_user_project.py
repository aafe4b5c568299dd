"""The collection as users run it: built and installed with ansible-galaxy into a project of their own
(own inventory folder, an ansible.cfg with Ansible's defaults but for the collections path), playbooks
called as gpucluster.fabric.<name>, outputs in the project. Also the AWX project-sync requirements file
and the execution environment definition."""
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT

BIN = os.path.dirname(sys.executable)


def run(cwd, home, *args, check=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    # A HOME of its own, so no collection installed in ~/.ansible by anyone else is picked up.
    env.update(HOME=str(home), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", PATH=BIN + os.pathsep + env["PATH"])
    proc = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), cwd=str(cwd), env=env, check=False,
                          capture_output=True, text=True, timeout=600)
    if check and proc.returncode:
        raise AssertionError("%s failed (%d): %s\n%s" % (args, proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:]))
    return proc


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A user's project with the collection installed from the tarball `ansible-galaxy collection build` makes."""
    base = tmp_path_factory.mktemp("user")
    home, dist, proj = base / "home", base / "dist", base / "project"
    for d in (home, dist, proj / "inventory"):
        d.mkdir(parents=True)
    run(ROOT, home, "ansible-galaxy", "collection", "build", "--output-path", str(dist), ROOT)
    tarballs = list(dist.iterdir())
    assert len(tarballs) == 1 and tarballs[0].name == "gpucluster-fabric-%s.tar.gz" % galaxy()["version"]
    run(proj, home, "ansible-galaxy", "collection", "install", "--no-deps", "-p", "collections", str(tarballs[0]))
    (proj / "ansible.cfg").write_text("[defaults]\ncollections_path = ./collections\n")
    shutil.copy(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml"), str(proj / "inventory"))
    return proj, home


def galaxy():
    with open(os.path.join(ROOT, "galaxy.yml")) as f:
        return yaml.safe_load(f)


def installed(proj):
    return proj / "collections" / "ansible_collections" / "gpucluster" / "fabric"


def test_tarball_leaves_out_local_state(project):
    proj, _home = project
    top = set(os.listdir(installed(proj)))
    assert {"plugins", "playbooks", "galaxy.yml", "MANIFEST.json"} - top == {"galaxy.yml"}  # galaxy.yml becomes MANIFEST.json
    assert not top & {"build", ".venv", "collections", ".pytest_cache", ".git"}


def test_plan_build_validate_write_into_the_project(project):
    proj, home = project
    graph = run(proj, home, "ansible-inventory", "-i", "inventory", "--graph").stdout
    assert "@backend_leaf:" in graph and "lab-r0-leaf01" in graph
    plan = run(proj, home, "ansible-playbook", "-i", "inventory", "gpucluster.fabric.plan").stdout
    assert "cluster lab: 32 GPUs on 4 servers" in plan and "plan spec and plan: 31 devices" in plan
    build = run(proj, home, "ansible-playbook", "-i", "inventory", "gpucluster.fabric.build").stdout
    assert "build configs: 54 files" in build
    assert (proj / "build" / "lab" / "plan.json").is_file()
    assert (proj / "build" / "lab" / "devices" / "lab-r0-leaf01" / "config_db.json").is_file()
    # Nothing on the switches answers here: validation runs, reports its errors, writes its reports.
    validate = run(proj, home, "ansible-playbook", "-i", "inventory", "gpucluster.fabric.validate",
                   "-e", "fail_on_failure=false", "-e", "max_workers=32").stdout
    assert re.search(r"validate collect: \d+ devices in [\d.]+ s", validate)
    assert re.search(r"validate checks: \d+ results in [\d.]+ s", validate)
    assert (proj / "build" / "validation" / "lab").is_dir()
    assert not (installed(proj) / "build").exists()
    again = run(proj, home, "ansible-playbook", "-i", "inventory", "gpucluster.fabric.build").stdout
    assert "changed=0" in again


def test_limit_builds_one_device_and_check_diff_shows_the_change(project):
    proj, home = project
    run(proj, home, "ansible-playbook", "-i", "inventory", "gpucluster.fabric.build")
    frr = proj / "build" / "lab" / "devices" / "lab-r0-leaf01" / "frr.conf"
    good = frr.read_text()
    frr.write_text(good.replace("router bgp", "router bgp 1 ! edited\nrouter bgp", 1))
    other = proj / "build" / "lab" / "devices" / "lab-r1-leaf01" / "frr.conf"
    other.write_text("edited\n")
    diff = run(proj, home, "ansible-playbook", "-i", "inventory", "gpucluster.fabric.build", "--limit", "lab-r0-leaf01",
               "--check", "--diff").stdout
    assert "--- a/devices/lab-r0-leaf01/frr.conf" in diff and "-router bgp 1 ! edited" in diff
    assert "lab-r1-leaf01" not in diff
    out = run(proj, home, "ansible-playbook", "-i", "inventory", "gpucluster.fabric.build", "--limit", "lab-r0-leaf01",
              "--tags", "configs").stdout
    assert "1 switches under" in out and "changed=1" in out
    assert frr.read_text() == good and other.read_text() == "edited\n"


def test_skip_tags_leaves_out_one_stage_only(project, tmp_path):
    proj, home = project
    run(proj, home, "ansible-playbook", "-i", "inventory", "gpucluster.fabric.build", "-e", "build_dir=%s" % tmp_path,
        "--skip-tags", "servers")
    built = tmp_path / "lab"
    assert (built / "devices" / "lab-r0-leaf01" / "frr.conf").is_file() and (built / "docs").is_dir()
    assert not (built / "servers").exists()


def test_bad_spec_fails_instead_of_skipping_with_default_settings(project):
    proj, home = project
    bad = proj / "bad"
    bad.mkdir()
    text = (proj / "inventory" / "lab.topology.yml").read_text().replace("count: 4", "count: four")
    (bad / "lab.topology.yml").write_text(text)
    for playbook in ("plan", "build", "validate"):
        proc = run(proj, home, "ansible-playbook", "-i", "bad", "gpucluster.fabric." + playbook, check=False)
        assert proc.returncode != 0, playbook
        assert "lab.topology.yml:9:3: servers.count: expected an integer, got a string 'four'" in proc.stdout
        assert "Traceback" not in proc.stdout + proc.stderr
    empty = proj / "empty"
    empty.mkdir()
    proc = run(proj, home, "ansible-playbook", "-i", "empty", "gpucluster.fabric.build", check=False)
    assert proc.returncode != 0 and "no cluster spec (*.topology.yml) among the inventory sources" in proc.stdout


def test_awx_project_requirements_install_this_collection(tmp_path):
    """AWX project sync runs `ansible-galaxy collection install -r collections/requirements.yml` in the
    project checkout; the file names this checkout itself."""
    home = tmp_path / "home"
    home.mkdir()
    run(ROOT, home, "ansible-galaxy", "collection", "install", "--no-deps", "--force", "-r",
        "collections/requirements.yml", "-p", str(tmp_path / "c"))
    manifest = tmp_path / "c" / "ansible_collections" / "gpucluster" / "fabric" / "MANIFEST.json"
    assert '"version": "%s"' % galaxy()["version"] in manifest.read_text()


def test_execution_environment_definition_builds_a_context(tmp_path):
    """ansible-builder turns the definition into a build context holding this collection's tarball."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "ee"
    work.mkdir()
    for name in ("execution-environment.yml", "requirements.yml", "requirements.txt", "bindep.txt"):
        shutil.copy(os.path.join(ROOT, name), str(work))
    run(ROOT, home, "ansible-galaxy", "collection", "build", "--output-path", str(work / "build" / "dist"), ROOT)
    run(work, home, "ansible-builder", "create", "--file", "execution-environment.yml", "--context", "context")
    context = work / "context"
    containerfile = next((context / n).read_text() for n in ("Containerfile", "Dockerfile") if (context / n).exists())
    with open(os.path.join(ROOT, "execution-environment.yml")) as f:
        ee = yaml.safe_load(f)
    base = ee["images"]["base_image"]["name"]
    assert not base.endswith(":latest") and 'EE_BASE_IMAGE="%s"' % base in containerfile
    assert os.listdir(context / "_build" / "collections") == ["gpucluster-fabric-%s.tar.gz" % galaxy()["version"]]
    assert "ansible-galaxy collection install --no-deps -p /usr/share/ansible/collections" in containerfile
    # The EE runs the ansible-core the collection is tested with.
    with open(os.path.join(ROOT, "requirements.txt")) as f:
        assert ee["dependencies"]["ansible_core"]["package_pip"] in f.read().split()
