"""Every job template of docs/awx.md run as AWX runs it (tests/awx/awx_jobs.py: project sync, inventory sync, a
private data directory per job, ansible-runner), against a twin of the lab, for both project forms of docs/awx.md:
- this repository as the project, its playbooks under playbooks/;
- a user's own project whose collections/requirements.yml installs the collection from git, its spec in inventory/
  and a one-line playbook per job.

The twin is the lab's spec with one hot spare per scalable unit (so the spare job has a spare to swap in), under
the cluster name `awx`, so that it has namespaces of its own and runs beside the system tier's lab twin. The
inventory source holds the twin's group_vars (those of inventories/lab-twin) and `tenants:` naming the project's
tenant file, as docs/awx.md says to keep it. No job is given a variable docs/awx.md does not name.

Each template runs twice from this repository, the second run changing nothing; from the user's project each runs
once (the same playbooks, imported from the installed collection), and the deploy twice. Validation sliced 4 ways (a workflow: the sliced collect
job, then the check job, facts carried by AWX's fact cache) gives the unsliced run's results, result for result.

Needs root, FRR, lldpd and nftables; skipped with the reason otherwise. Runs beside the system tier (make awx).
"""
import copy
import os
import shutil
import sys

import pytest
import yaml

from gpufabric import build, plan as planning, specfile, twin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from awx_jobs import Controller, Inventory, Project, git_repo, sliced_validation, working_tree  # noqa: E402
from twin_group_vars import copy_twin_group_vars  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight() or (None if shutil.which("nft") else "nft is missing (apt-get install nftables)")
pytestmark = pytest.mark.skipif(REASON is not None, reason="AWX jobs on the twin: %s" % REASON)
CLUSTER = "awx"
SOURCE_VARS = {"ANSIBLE_INVENTORY_UNPARSED_FAILED": True, "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": True}
# awx-gpu0002 and -gpu0004 are the units' hot spares, in no tenant until one stands in.
TENANTS = {"isolation": "acl", "tenants": {"alpha": {"servers": ["awx-gpu0001", "awx-gpu0003"]}}}
TEMPLATES = ("plan", "build", "deploy", "validate", "tenants", "drain", "undrain", "spare")


def spec():
    raw = copy.deepcopy(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    raw["cluster"]["name"] = CLUSTER
    raw["servers"]["spares_per_unit"] = 1
    return dict(raw, plugin="gpucluster.fabric.topology")


def write_inventory(folder, tenants_path):
    """The twin's inventory source: spec, the lab twin's group_vars, and the tenant file named in group_vars."""
    os.makedirs(folder)
    with open(os.path.join(folder, CLUSTER + ".topology.yml"), "w") as f:
        yaml.safe_dump(spec(), f, sort_keys=False)
    copy_twin_group_vars(folder, CLUSTER)
    with open(os.path.join(folder, "group_vars", "all.yml"), "a") as f:
        f.write("# The project's tenant file (docs/awx.md): build, deploy, validate and spare render its isolation.\n"
                "tenants: %s\n" % tenants_path)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return str(tmp_path_factory.mktemp("awx"))


@pytest.fixture(scope="module")
def repo_form(base):
    """This repository as the project, with the twin's inventory source and tenant file added to it."""
    tree = os.path.join(base, "checkout")
    working_tree(tree, ROOT)
    tenants = os.path.join("examples", "tenants", "awx.tenants.yml")
    write_inventory(os.path.join(tree, "inventories", "awx-twin"), tenants)
    with open(os.path.join(tree, tenants), "w") as f:
        yaml.safe_dump(TENANTS, f, sort_keys=False)
    project = Project(tree, os.path.join(base, "repo-form")).sync()
    return project, Inventory(project, "inventories/awx-twin", SOURCE_VARS).sync(), "playbooks/%s.yml"


@pytest.fixture(scope="module")
def user_form(base):
    """A user's project: the collection from git (collections/requirements.yml), one-line playbooks, inventory/."""
    collection = os.path.join(base, "collection-git")
    working_tree(collection, ROOT)
    git_repo(collection)
    tree = os.path.join(base, "user-checkout")
    os.makedirs(os.path.join(tree, "collections"))
    with open(os.path.join(tree, "collections", "requirements.yml"), "w") as f:
        yaml.safe_dump({"collections": [{"name": "git+file://" + collection, "type": "git", "version": "main"}]}, f)
    for name in TEMPLATES:
        with open(os.path.join(tree, name + ".yml"), "w") as f:
            f.write("---\n- name: %s\n  ansible.builtin.import_playbook: gpucluster.fabric.%s\n" % (name, name))
    write_inventory(os.path.join(tree, "inventory"), "tenants/awx.tenants.yml")
    os.makedirs(os.path.join(tree, "tenants"))
    with open(os.path.join(tree, "tenants", "awx.tenants.yml"), "w") as f:
        yaml.safe_dump(TENANTS, f, sort_keys=False)
    project = Project(tree, os.path.join(base, "user-form")).sync()
    installed = os.path.join(project.collections, "ansible_collections", "gpucluster", "fabric", "MANIFEST.json")
    assert os.path.isfile(installed), "the project sync did not install the collection from git"
    return project, Inventory(project, "inventory/", SOURCE_VARS).sync(), "%s.yml"


@pytest.fixture(scope="module")
def fabric(repo_form):
    """The twin, each switch booting its rendered configuration without tenants (the tenants job isolates)."""
    _project, inventory, _pattern = repo_form
    plan = planning.build_plan(spec())
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    twin.up(wanted, timeout=90)
    yield plan, inventory
    twin.down(wanted.cluster, wanted.namespaces)
    assert twin.leftovers(CLUSTER, set(wanted.namespaces)) == []


def twice(controller, form, template, **options):
    """Run ``template`` twice with ``options``; both pass, the second changes nothing. Returns the first job."""
    project, inventory, pattern = form
    first = controller.run(project, inventory, pattern % template, **options)
    assert first.rc == 0, "%s: %s" % (template, first.tail())
    again = controller.run(project, inventory, pattern % template, **options)
    assert again.rc == 0, "%s again: %s" % (template, again.tail())
    assert again.changed() == [], "%s changed %s on its second run" % (template, again.changed())
    return first


def once(controller, form, template, **options):
    """Run ``template`` once with ``options``; it passes. Returns the job."""
    project, inventory, pattern = form
    job = controller.run(project, inventory, pattern % template, **options)
    assert job.rc == 0, "%s: %s" % (template, job.tail())
    return job


def run_every_template(controller, form, build_dir, first_form):
    """docs/awx.md's templates with the options it gives: each twice from the first form (the second run changes
    nothing). The other form runs the same playbooks, found through the installed collection: once each, the deploy
    twice, until the validation; its day-2 templates (drain, undrain, spare) are the first form's playbooks by the
    same names, which its validation job already showed resolve from the collection."""
    run = twice if first_form else once
    servers = [h for h in form[1].hosts() if h.startswith(CLUSTER + "-gpu")]
    spares = form[1].data.get("spare_servers", {}).get("hosts", [])
    assert spares, "the synced inventory has no spare_servers group"
    persistent = {"build_dir": build_dir}
    run(controller, form, "plan", extra_vars=persistent)
    run(controller, form, "build", extra_vars=persistent)
    review = controller.run(form[0], form[1], form[2] % "build", extra_vars=persistent, check=True, diff=True)
    assert review.rc == 0 and review.changed() == [], review.tail()
    first = run(controller, form, "tenants")
    if first_form:   # the twin booted open: the first tenants job isolates the rail leaves
        assert any("-leaf" in h for h in first.changed()), first.tail()
    review = controller.run(form[0], form[1], form[2] % "deploy", check=True, diff=True)
    assert review.rc == 0, review.tail()   # shows what the deploy will do; the twin's OOB switches boot unstaged
    twice(controller, form, "deploy")   # from both forms: a deploy of an unchanged fabric reports no change
    run(controller, form, "deploy", limit=CLUSTER + "-spine01")
    job = run(controller, form, "validate")
    assert "0 FAIL" in job.stdout or "FAIL 0" in job.stdout or '"FAIL": 0' in job.stdout, job.tail()
    run(controller, form, "validate", tags="bgp_sessions,cabling")
    if not first_form:
        return
    run(controller, form, "drain", extra_vars={"switch": CLUSTER + "-spine01"})
    run(controller, form, "undrain", extra_vars={"switch": CLUSTER + "-spine01"})
    failed = next(s for s in servers if s not in spares)
    spare = next(s for s in spares if s.split("-gpu")[0] == failed.split("-gpu")[0])
    run(controller, form, "spare", extra_vars={"failed": failed, "spare": spare})
    run(controller, form, "spare", extra_vars={"failed": failed, "spare": spare, "spare_state": "restored"})


def test_inventory_sync_records_the_spec_and_keeps_the_twins_group_overrides(repo_form):
    _project, inventory, _pattern = repo_form
    assert inventory.data["all"]["vars"]["fabric_spec_file"] == "inventories/awx-twin/awx.topology.yml"
    # The twin's FRR settings are in group_vars/nos_sonic.yml, so they beat the plugin's nos_sonic values in export.
    assert inventory.data["nos_sonic"]["vars"]["fabric_vtysh_command"] == "vtysh"


def test_every_template_from_this_repository(fabric, repo_form, base):
    run_every_template(Controller(base), repo_form, os.path.join(base, "node-build-repo"), first_form=True)


def test_every_template_from_a_users_project(fabric, user_form, base):
    run_every_template(Controller(base), user_form, os.path.join(base, "node-build-user"), first_form=False)


def test_validation_sliced_four_ways_gives_the_unsliced_results(fabric, repo_form, base):
    project, inventory, pattern = repo_form
    controller = Controller(base)
    # The isolation the inventory's tenant file asks for (the twin boots open; a no-op after the tests above).
    isolate = controller.run(project, inventory, pattern % "tenants")
    assert isolate.rc == 0, isolate.tail()
    run = sliced_validation(controller, project, inventory, pattern % "validate", CLUSTER, slices=4)
    # A check job whose collect jobs kept nothing (Enable Fact Storage off: AWX drops their facts) fails, each
    # device an ERROR naming the missing fact, never a PASS.
    blind = Controller(base).run(project, inventory, pattern % "validate", extra_vars={"validate_phase": "check"},
                                 use_fact_cache=True)
    assert blind.rc != 0 and "PASS 0" in blind.stdout and "fabric_observation" in blind.stdout, blind.tail()
    planned = {d.name for d in fabric[0].devices}
    assert run["collected"] and run["collected"] <= planned
    assert run["sliced"] == run["whole"], "sliced and unsliced validation differ"
    assert run["counts"]["FAIL"] == 0 and run["counts"]["ERROR"] == 0, run["counts"]
