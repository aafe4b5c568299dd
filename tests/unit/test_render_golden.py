"""Whole builds (plan, switch configs, documentation), byte for byte, against
tests/golden/<cluster>/rendered/: the lab (rail_optimized, two tiers, frontend), a three-tier
rail_planes fabric, a rail_only one, a top_of_rack one, the lab on Cumulus Linux, a mixed lab (Cumulus
backend, SONiC frontend) and the lab on Arista EOS (pyavd's startup-configs); and the build's atomic, idempotent write. A server's network files, which the
gpu_server role renders from its structured.yml for the stack the host runs, are compared as
servers/<host>/<stack>/<file>, rendered from the structured.yml the build wrote.

Regenerate after a reviewed change of output: `make golden` (GOLDEN_UPDATE=1). SVG files are left
out: their bytes depend on the Graphviz version; their DOT sources are compared.
"""
import os
import shutil

import pytest
import yaml

from conftest import ROOT, load_example
from gpufabric.build import render_all, render_structured, stream, structured, write_build
from gpufabric.build_tree import diff_order, unified_diffs
from gpufabric.plan import build_plan
from gpufabric.render.linux_host import NETWORK_STACKS, network_files

GOLDEN_BUILDS = ("lab", "planes-3tier-small", "railonly-small", "tor-lab", "th5-lab", "cumulus-lab", "mixed-lab",
                 "eos-lab")


def _tree(root):
    out = {}
    for directory, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


@pytest.mark.parametrize("name", GOLDEN_BUILDS)
def test_build_matches_the_golden_files(name):
    # rendered/ of its own: tests/golden/lab/ also holds other golden files (the inventory's).
    root = os.path.join(ROOT, "tests", "golden", name, "rendered")
    files = {rel: text for rel, text in render_all(build_plan(load_example(name))).items()
             if not rel.endswith(".svg")}
    for rel in [r for r in files if r.startswith("servers/") and r.endswith("/structured.yml")]:
        cfg = yaml.safe_load(files[rel])
        for stack in NETWORK_STACKS:
            files.update({os.path.join(os.path.dirname(rel), stack, file): text
                          for file, text in network_files(cfg, stack).items()})
    if os.environ.get("GOLDEN_UPDATE"):
        shutil.rmtree(root, ignore_errors=True)
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
    golden = _tree(root)
    assert sorted(golden) == sorted(files), "files added or missing; see the docstring to regenerate"
    for rel, text in files.items():
        assert golden[rel] == text, "%s differs from the golden file; see the docstring to regenerate" % rel


def test_render_is_deterministic_across_plans():
    first = render_all(build_plan(load_example("lab")))
    assert render_all(build_plan(load_example("lab"))) == first
    assert list(first) == sorted(first)


def test_forked_workers_render_the_files_one_process_renders():
    plan = build_plan(load_example("lab"))
    one = list(stream(plan, workers=1, batch=3))
    forked = list(stream(plan, workers=2, batch=3))
    assert len(forked) == len(one) and dict(forked) == dict(one) == render_all(plan)


def test_forked_workers_write_the_build_one_process_writes(tmp_path, monkeypatch):
    import gpufabric.build as build_module
    plan = build_plan(load_example("lab"))
    monkeypatch.setattr(build_module, "BATCH", 3)
    monkeypatch.setenv("GPUFABRIC_BUILD_WORKERS", "1")
    write_build(plan, str(tmp_path / "one"))
    monkeypatch.setenv("GPUFABRIC_BUILD_WORKERS", "2")
    result = {}
    changed = write_build(plan, str(tmp_path / "forked"), result=result)
    one, forked = _tree(str(tmp_path / "one" / "lab")), _tree(str(tmp_path / "forked" / "lab"))
    manifest = ".build-manifest"
    assert {k: v for k, v in forked.items() if k != manifest} == {k: v for k, v in one.items() if k != manifest}
    assert changed == sorted(k for k in one if k != manifest) and len(result["new"]) == build_module.DIFF_FILES
    assert write_build(plan, str(tmp_path / "forked")) == []          # the manifest the workers' entries made holds
    (tmp_path / "forked" / "lab" / "devices" / "lab-spine01" / "frr.conf").write_text("edited\n")
    assert write_build(plan, str(tmp_path / "forked")) == ["devices/lab-spine01/frr.conf"]
    monkeypatch.setenv("GPUFABRIC_BUILD_WORKERS", "two")
    with pytest.raises(ValueError, match="^GPUFABRIC_BUILD_WORKERS: 'two' is not a number of processes: give 1"):
        write_build(plan, str(tmp_path / "forked"), check=True, devices=["lab-spine01"])


def test_a_job_that_fails_in_a_worker_fails_the_build_with_its_own_error(monkeypatch):
    import gpufabric.build as build_module

    def broken(_cfg):
        raise ValueError("servers: broken on purpose")

    monkeypatch.setattr(build_module, "render_server", broken)
    with pytest.raises(ValueError, match="^servers: broken on purpose$"):
        list(stream(build_plan(load_example("lab")), workers=2, batch=3))


def test_structured_yaml_reads_back_as_the_structured_config():
    plan = build_plan(load_example("lab"))
    for rel, text in render_structured(plan).items():
        assert yaml.safe_load(text) == structured(plan)[rel.split("/")[1]], rel


def test_write_build_swaps_atomically_and_reports_no_change_when_unchanged(tmp_path):
    plan = build_plan(load_example("lab"))
    assert write_build(plan, str(tmp_path), check=True) and not os.listdir(tmp_path)
    changed = write_build(plan, str(tmp_path))
    assert "devices/lab-r0-leaf01/frr.conf" in changed and len(changed) == len(render_all(plan))
    stale = tmp_path / "lab" / "devices" / "stale.txt"
    stale.write_text("left over from an older build")
    assert write_build(plan, str(tmp_path)) == ["devices/stale.txt"]
    assert not stale.exists()
    # The build before is kept aside for --diff, with the stale file it had.
    assert (tmp_path / "lab.previous" / "devices" / "stale.txt").exists()
    assert write_build(plan, str(tmp_path)) == []
    assert sorted(os.listdir(tmp_path)) == ["lab", "lab.previous"]  # no staging trees left behind


def test_write_build_of_one_device_replaces_its_files_and_keeps_the_rest(tmp_path):
    plan = build_plan(load_example("lab"))
    write_build(plan, str(tmp_path))
    leaf, other = tmp_path / "lab" / "devices" / "lab-r0-leaf01", tmp_path / "lab" / "devices" / "lab-r1-leaf01"
    (leaf / "frr.conf").write_text("edited by hand\n")
    (other / "frr.conf").write_text("edited by hand too\n")
    texts = {}
    changed = write_build(plan, str(tmp_path), devices=["lab-r0-leaf01"], stages=["configs"], result=texts)
    assert changed == ["devices/lab-r0-leaf01/frr.conf"]
    assert (leaf / "frr.conf").read_text() == render_all(plan)["devices/lab-r0-leaf01/frr.conf"]
    assert (other / "frr.conf").read_text() == "edited by hand too\n"  # outside the selection: kept
    assert (tmp_path / "lab" / "docs" / "bom.md").exists()
    assert texts["old"]["devices/lab-r0-leaf01/frr.conf"] == "edited by hand\n"


def test_diffs_are_bounded_and_configs_come_first():
    old = {"docs/a.md": "x\n", "devices/s1/frr.conf": "".join("line %d\n" % i for i in range(1000))}
    new = {"docs/a.md": "y\n", "devices/s1/frr.conf": ""}
    paths = diff_order(sorted(new))
    assert paths == ["devices/s1/frr.conf", "docs/a.md"]
    diffs = unified_diffs(old, new, paths, max_lines=50, max_files=1)
    assert diffs[0].startswith("--- a/devices/s1/frr.conf\n+++ b/devices/s1/frr.conf\n")
    assert len(diffs[0].splitlines()) == 51 and "more diff lines of devices/s1/frr.conf" in diffs[0]
    assert diffs[1] == "... and 1 more changed files (diff -ru the build and its .previous copy to see all)\n"


def test_validation_reports_survive_a_build(tmp_path):
    plan = build_plan(load_example("lab"))
    write_build(plan, str(tmp_path))
    report = tmp_path / "lab" / "validation" / "report.md"
    report.parent.mkdir()
    report.write_text("validated\n")
    assert write_build(plan, str(tmp_path)) == []  # not the build's file: no change, kept
    (tmp_path / "lab" / "plan.json").write_text("{}\n")
    assert write_build(plan, str(tmp_path)) == ["plan.json"]
    assert report.read_text() == "validated\n"
