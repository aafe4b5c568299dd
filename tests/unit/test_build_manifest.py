"""The build streams (rendered and written in batches) and keeps a manifest of what it was built from: an
unchanged build renders and writes nothing; a build directory of other inputs (spec, tenants, collection
version), one edited by hand, or one a killed run left, is noticed and rebuilt, never mixed."""
import copy
import os

import pytest
import yaml

from conftest import ROOT, load_example
from gpufabric import build, build_manifest, build_tree
from gpufabric.plan import build_plan


def lab(drained=(), replaced=None):
    raw = copy.deepcopy(load_example("lab"))
    raw["servers"]["spares_per_unit"] = 1
    raw["maintenance"] = {"drained": list(drained), "replaced": dict(replaced or {})}
    return raw


def stamps(root):
    """{path: (mtime_ns, inode)} of every file under root."""
    out = {}
    for directory, _dirs, names in os.walk(root):
        for name in names:
            st = os.stat(os.path.join(directory, name))
            out[os.path.relpath(os.path.join(directory, name), root)] = (st.st_mtime_ns, st.st_ino)
    return out


def notes(plan, root, **kwargs):
    lines = []
    changed = build.write_build(plan, str(root), progress=lambda name, count, seconds: lines.append(name), **kwargs)
    return changed, lines


def test_batches_render_what_the_whole_fabric_renders(monkeypatch):
    # Drained switches and a swapped server touch configs across batches: a batch of 3 gives the same bytes.
    plan = build_plan(lab(drained=["lab-spine01"], replaced={"lab-gpu0001": "lab-gpu0002"}))
    whole = build.render_all(plan)
    monkeypatch.setattr(build, "BATCH", 3)
    assert build.render_all(plan) == whole
    assert "drain" in yaml.safe_load(whole["devices/lab-spine01/structured.yml"])["bgp"]


def test_a_large_fabrics_documents_render_in_parts_as_one_job_renders_them(monkeypatch):
    # Above DOCS_BATCH devices the documents are several jobs (each part, the device pages by batch): the same files.
    plan = build_plan(load_example("planes-lab"))
    whole = build.render_all(plan, stages=["docs"])
    monkeypatch.setattr(build, "DOCS_BATCH", 7)
    jobs = build._jobs(plan, ["docs"], None, build.BATCH)
    assert len(jobs) == len(build.docs_parts) + -(-len(plan.devices) // 7)
    assert build.render_all(plan, stages=["docs"]) == whole


def test_unchanged_build_renders_nothing_and_touches_no_file(tmp_path, monkeypatch):
    plan = build_plan(load_example("lab"))
    assert build.write_build(plan, str(tmp_path))
    before = stamps(tmp_path)
    assert ".build-manifest" in os.listdir(tmp_path / "lab")

    def no_render(*_args, **_kwargs):
        raise AssertionError("an unchanged build rendered")
    monkeypatch.setattr(build, "_jobs", no_render)
    changed, lines = notes(build_plan(load_example("lab")), tmp_path)
    assert changed == [] and stamps(tmp_path) == before
    assert any("unchanged" in line for line in lines)


def test_the_manifest_lists_every_file_with_its_hash(tmp_path):
    plan = build_plan(load_example("lab"))
    build.write_build(plan, str(tmp_path))
    root = tmp_path / "lab"
    entries = build_manifest.read_entries(str(root))
    assert sorted(entries) == sorted(build.render_all(plan))
    digest, size, _mtime = entries["devices/lab-r0-leaf01/frr.conf"]
    data = (root / "devices/lab-r0-leaf01/frr.conf").read_bytes()
    assert digest == build_manifest.content_hash(data) and size == len(data)
    assert build_manifest.read_header(str(root))["key"] == build_manifest.input_key(plan)


def test_a_build_of_another_spec_is_rebuilt_not_mixed(tmp_path):
    build.write_build(build_plan(load_example("lab")), str(tmp_path))
    other = load_example("lab")
    other.setdefault("switch_config", {})["ntp_servers"] = ["192.0.2.123"]
    plan = build_plan(other)
    changed, lines = notes(plan, tmp_path)
    assert "devices/lab-r0-leaf01/structured.yml" in changed
    assert any("other inputs" in line for line in lines)
    # The tree is now the other spec's build, file for file.
    tree = {rel: (tmp_path / "lab" / rel).read_text() for rel in build_manifest.read_entries(str(tmp_path / "lab"))}
    assert tree == build.render_all(plan)


def test_another_collection_version_renders_again(tmp_path, monkeypatch):
    plan = build_plan(load_example("lab"))
    build.write_build(plan, str(tmp_path))
    before = stamps(tmp_path / "lab")
    monkeypatch.setattr(build_manifest, "COLLECTION_VERSION", "9.9.9")
    rendered = []
    real = build._jobs
    monkeypatch.setattr(build, "_jobs", lambda *a, **k: rendered.append(1) or real(*a, **k))
    changed, lines = notes(plan, tmp_path)
    # Rendered again and compared: the same bytes, so no file is written; the manifest names the new version.
    assert rendered and changed == [] and any("other inputs" in line for line in lines)
    after = stamps(tmp_path / "lab")
    assert {p: s for p, s in after.items() if p != ".build-manifest"} == \
        {p: s for p, s in before.items() if p != ".build-manifest"}
    assert build_manifest.read_header(str(tmp_path / "lab"))["collection"] == "9.9.9"


def test_a_file_edited_or_added_by_hand_is_noticed_by_an_unchanged_build(tmp_path):
    plan = build_plan(load_example("lab"))
    build.write_build(plan, str(tmp_path))
    frr = tmp_path / "lab" / "devices" / "lab-r0-leaf01" / "frr.conf"
    text = frr.read_text()
    frr.write_text(text + "! edited\n")
    assert build.write_build(plan, str(tmp_path)) == ["devices/lab-r0-leaf01/frr.conf"]
    assert frr.read_text() == text
    (tmp_path / "lab" / "devices" / "extra.txt").write_text("x")
    assert build.write_build(plan, str(tmp_path)) == ["devices/extra.txt"]
    assert build.write_build(plan, str(tmp_path)) == []


def test_a_killed_build_leaves_the_old_build_whole_and_the_next_one_cleans_up(tmp_path, monkeypatch):
    plan = build_plan(load_example("lab"))
    build.write_build(plan, str(tmp_path))
    before = stamps(tmp_path / "lab")
    other = load_example("lab")
    other.setdefault("switch_config", {})["ntp_servers"] = ["192.0.2.123"]
    other_plan = build_plan(other)
    written = []
    real_add = build_tree.Tree.add

    def killed(self, rel, text):
        if len(written) == 20:
            raise KeyboardInterrupt  # the run is stopped half-way through writing
        written.append(rel)
        return real_add(self, rel, text)
    monkeypatch.setattr(build_tree.Tree, "add", killed)
    with pytest.raises(KeyboardInterrupt):
        build.write_build(other_plan, str(tmp_path))
    assert stamps(tmp_path / "lab") == before and sorted(os.listdir(tmp_path)) == ["lab"]
    monkeypatch.setattr(build_tree.Tree, "add", real_add)
    # A run killed hard (no cleanup at all) leaves its unfinished tree: never read, removed by the next build.
    (tmp_path / ".lab.new-killed" / "devices").mkdir(parents=True)
    (tmp_path / ".lab.new-killed" / "devices" / "half.txt").write_text("half")
    changed, lines = notes(other_plan, tmp_path)
    assert "devices/lab-r0-leaf01/structured.yml" in changed and "devices/half.txt" not in changed
    assert sorted(os.listdir(tmp_path)) == ["lab", "lab.previous"]
    assert any("killed" in line for line in lines)


def test_a_partial_build_is_never_taken_for_a_full_one(tmp_path):
    plan = build_plan(load_example("lab"))
    build.write_build(plan, str(tmp_path))
    other = load_example("lab")
    other.setdefault("switch_config", {})["ntp_servers"] = ["192.0.2.123"]
    other_plan = build_plan(other)
    changed = build.write_build(other_plan, str(tmp_path), devices=["lab-r0-leaf01"])
    assert "devices/lab-r0-leaf01/structured.yml" in changed
    assert all(p.startswith("devices/lab-r0-leaf01/") for p in changed)
    # The tree mixes two specs now: its manifest says so, and a full build of either spec renders.
    assert build_manifest.read_header(str(tmp_path / "lab"))["key"] is None
    assert "devices/lab-r1-leaf01/structured.yml" in build.write_build(other_plan, str(tmp_path))
    assert build.write_build(other_plan, str(tmp_path)) == []


def test_a_build_without_manifest_is_compared_file_by_file_and_gains_one(tmp_path):
    plan = build_plan(load_example("lab"))
    build.write_build(plan, str(tmp_path))
    os.unlink(tmp_path / "lab" / ".build-manifest")  # as the builds before the manifest left it
    before = stamps(tmp_path / "lab")
    changed, lines = notes(plan, tmp_path)
    assert changed == [] and stamps(tmp_path / "lab") == dict(before, **{".build-manifest": stamps(tmp_path / "lab")[
        ".build-manifest"]})
    assert any("no manifest" in line for line in lines)


def test_check_mode_writes_nothing(tmp_path):
    plan = build_plan(load_example("lab"))
    build.write_build(plan, str(tmp_path))
    before = stamps(tmp_path)
    other = load_example("lab")
    other.setdefault("switch_config", {})["ntp_servers"] = ["192.0.2.123"]
    texts = {}
    changed = build.write_build(build_plan(other), str(tmp_path), check=True, result=texts)
    assert "devices/lab-r0-leaf01/structured.yml" in changed and stamps(tmp_path) == before
    assert len(texts["new"]) == build_tree.DIFF_FILES
    assert sorted(texts["new"]) == build_tree.diff_order(changed)[:build_tree.DIFF_FILES]
    assert set(texts["old"]) <= set(texts["new"])


def test_the_collection_version_is_galaxys():
    with open(os.path.join(ROOT, "galaxy.yml")) as f:
        assert yaml.safe_load(f)["version"] == build_manifest.COLLECTION_VERSION
