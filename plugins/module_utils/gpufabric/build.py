"""The build: every file of build/<cluster>/ rendered in one process, written as one atomic swap.

STAGES maps a stage name (also the playbook tag that selects it) to its ``(plan, devices) ->
{relative path: text}`` renderer; adding an output is one more entry. ``devices`` None means the
whole fabric; a list renders only those devices (the fabric-wide stages then render nothing).
Renderers share one structured config per plan through ``structured``.
"""
import difflib
import functools
import os
import shutil
import tempfile
import time

from .docs import render_docs
from .export import plan_files
from .gc_pause import allocation_heavy
from .nos import home, nos_of
from .render import yaml_text
from .render.linux_host import render_server
from .structured import structured_configs
from .structured.switch import check_reader
from .structured.server import server_configs

# Beside build/<cluster>/, the build before the current one: --diff compares against it.
PREVIOUS_SUFFIX = ".previous"
# Subdirectories of build/<cluster>/ that other playbooks write (validate.yml's reports).
NOT_BUILT = ("validation/",)
# Files a --diff shows in full (up to DIFF_LINES lines each); the rest are counted.
DIFF_FILES = 40
DIFF_LINES = 400


@functools.lru_cache(maxsize=1)
def structured(plan):
    """The plan's structured configs, computed once however many renderers read them."""
    return structured_configs(plan)


def _structured_of(plan, devices):
    if devices is None:
        return structured(plan)
    return structured_configs(plan, names=devices)


def render_structured(plan, devices=None):
    return {"devices/%s/structured.yml" % host: yaml_text.dump(cfg)
            for host, cfg in _structured_of(plan, devices).items()}


@functools.lru_cache(maxsize=None)
def renderer(name):
    """The home of NOS ``name``, once it is known to read this collection's structured config schema."""
    nos_home = home(name)
    check_reader(name, nos_home.STRUCTURED_SCHEMA)
    return nos_home


def render_switches(plan, devices=None):
    """Every (selected) switch's configuration files, rendered by the home of the switch's NOS (nos/). A home
    renders its switches together, so that its schema gate runs over all of them before anything is written."""
    by_nos = {}
    for host, cfg in _structured_of(plan, devices).items():
        by_nos.setdefault(nos_of(cfg), {})[host] = cfg
    out = {}
    for name, cfgs in sorted(by_nos.items()):
        for host, files in renderer(name).render_switches(cfgs, plan.spec).items():
            for file_name, text in files.items():
                out["devices/%s/%s" % (host, file_name)] = text
    return out


def check_switch_configs(plan, models_dir, devices=None):
    """Every (selected) switch's rendered configuration checked by its NOS's schema gate against the models
    in ``models_dir`` (the NOS's own schema models, e.g. YANG): [] or the problems, each naming switch, table, key, field
    and rule."""
    by_nos = {}
    for host, cfg in _structured_of(plan, devices).items():
        by_nos.setdefault(nos_of(cfg), {})[host] = cfg
    problems = []
    for name, cfgs in sorted(by_nos.items()):
        problems.extend(home(name).check_configs(models_dir, cfgs))
    return problems


def _fabric_wide(renderer):
    """A renderer of the whole fabric (plan, documents): nothing to render for a device selection."""
    return lambda plan, devices=None: renderer(plan) if devices is None else {}


@functools.lru_cache(maxsize=1)
def servers(plan):
    """The GPU servers' structured configs, computed once however many renderers read them."""
    return server_configs(plan)


def render_servers(plan, devices=None):
    """Every GPU server's structured.yml and Linux host files (render/linux_host.py), or the selected ones."""
    out = {}
    for host, cfg in servers(plan).items():
        if devices is None or host in devices:
            for name, text in render_server(cfg).items():
                out["servers/%s/%s" % (host, name)] = text
    return out


STAGES = {
    "plan": _fabric_wide(plan_files),
    "structured": render_structured,
    "configs": render_switches,
    "servers": render_servers,
    "docs": _fabric_wide(render_docs),
}


@allocation_heavy
def render_all(plan, stages=None, devices=None, progress=None):
    """{relative path: text}, sorted by path: the whole build of one cluster (or the ``stages`` and
    ``devices`` selected), the same bytes on every run. ``progress(stage, count, seconds)`` hears of
    each stage as it ends."""
    files = {}
    for name in stages or STAGES:
        started = time.perf_counter()
        out = STAGES[name](plan, devices)
        files.update(out)
        if progress:
            progress(name, len(out), time.perf_counter() - started)
    return dict(sorted(files.items()))


# Subtrees of build/<cluster>/ that other writers own (the ztp playbook writes ztp/ with inputs the
# plan does not hold): the build neither compares nor drops them.
FOREIGN_SUBTREES = ("ztp",)


def _read_tree(root, skip=()):
    found = {}
    for directory, dirs, names in os.walk(root):
        if directory == root:
            dirs[:] = [d for d in dirs if d not in skip]
        for name in names:
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                found[os.path.relpath(path, root)] = f.read()
    return found


def _changes(old, new):
    return sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))


def _write_tree(staging, files, old_root, old):
    """Write ``files`` under ``staging``; a file equal to the old build's is hard-linked, not rewritten
    (files are replaced, never edited, so the old build keeps its own copy)."""
    for rel, text in files.items():
        path = os.path.join(staging, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if old.get(rel) == text:
            try:
                os.link(os.path.join(old_root, rel), path)
                continue
            except OSError:
                pass
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def write_build(plan, build_root, check=False, devices=None, stages=None, result=None, progress=None):
    """Write build_root/<cluster>/ so that readers see the old build or the new one, never a mix:
    the new tree is written beside it and swapped in with two renames; the old one becomes
    <cluster>.previous/. Returns the changed paths (relative to build_root/<cluster>/), empty when the
    build is unchanged and nothing was touched. With ``check``, only returns what would change.

    ``devices`` / ``stages`` select part of the build (--limit, tags): the selected files are
    replaced and every other file of the current build is kept. ``result`` (a dict) receives the
    old and new texts of the changed files, for diffs."""
    files = render_all(plan, stages, devices=devices, progress=progress)
    target = os.path.join(build_root, plan.summary["cluster"])
    old = _read_tree(target, FOREIGN_SUBTREES) if os.path.isdir(target) else {}
    if devices is not None or (stages is not None and set(stages) != set(STAGES)):
        files = dict(sorted(dict(old, **files).items()))
    else:
        # Written into the cluster's directory by others (validation reports): carried over, not the build's.
        files = dict(sorted(dict(files, **{p: t for p, t in old.items() if p.startswith(NOT_BUILT)}).items()))
    changed = _changes(old, files)
    if result is not None:
        result.update(old=old, new=files)
    if check or not changed:
        return changed
    started = time.perf_counter()
    os.makedirs(build_root, exist_ok=True)
    staging = tempfile.mkdtemp(dir=build_root, prefix="." + plan.summary["cluster"] + ".new-")
    try:
        _write_tree(staging, files, target, old)
        os.chmod(staging, 0o755)
        previous = target + PREVIOUS_SUFFIX
        if os.path.isdir(target):
            if os.path.isdir(previous):
                shutil.rmtree(previous)
            for sub in FOREIGN_SUBTREES:
                if os.path.isdir(os.path.join(target, sub)):
                    os.rename(os.path.join(target, sub), os.path.join(staging, sub))
            os.rename(target, previous)
        os.rename(staging, target)
    except BaseException:
        for sub in FOREIGN_SUBTREES:  # never lose a tree the build does not own
            if os.path.isdir(os.path.join(staging, sub)) and os.path.isdir(target):
                os.rename(os.path.join(staging, sub), os.path.join(target, sub))
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if progress:
        progress("write", len(changed), time.perf_counter() - started)
    return changed


def write_tree(target, files, check=False):
    """Make directory ``target`` hold exactly ``files`` ({relative path: text}), swapped in with two
    renames so readers see the old tree or the new one. Returns the changed paths, empty when nothing
    changed and nothing was touched; with ``check`` only returns them."""
    old = _read_tree(target) if os.path.isdir(target) else {}
    changed = _changes(old, files)
    if check or not changed:
        return changed
    parent, name = os.path.split(os.path.normpath(target))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(dir=parent, prefix="." + name + ".new-")
    retired = None
    try:
        _write_tree(staging, files, target, old)
        os.chmod(staging, 0o755)
        if os.path.isdir(target):
            retired = tempfile.mkdtemp(dir=parent, prefix="." + name + ".old-")
            os.rename(target, os.path.join(retired, name))
        os.rename(staging, target)
    except BaseException:
        if retired and not os.path.isdir(target):
            os.rename(os.path.join(retired, name), target)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        if retired:
            shutil.rmtree(retired, ignore_errors=True)
    return changed


def previous_files(plan, build_root, paths):
    """{path: text} of ``paths`` in the build before the current one (absent files left out)."""
    previous = os.path.join(build_root, plan.summary["cluster"] + PREVIOUS_SUFFIX)
    found = {}
    for rel in paths:
        try:
            with open(os.path.join(previous, rel), encoding="utf-8", errors="replace") as f:
                found[rel] = f.read()
        except OSError:
            continue
    return found


def unified_diffs(old, new, paths, max_lines=DIFF_LINES, max_files=None):
    """Unified diffs of ``paths`` between two {path: text} trees, bounded: at most ``max_files`` files
    and ``max_lines`` lines per file, with a line saying what was left out."""
    max_files = max_files or DIFF_FILES
    out = []
    for rel in paths[:max_files]:
        lines = list(difflib.unified_diff((old.get(rel) or "").splitlines(True), (new.get(rel) or "").splitlines(True),
                                          "a/" + rel if rel in old else "/dev/null",
                                          "b/" + rel if rel in new else "/dev/null"))
        if len(lines) > max_lines:
            lines = lines[:max_lines] + ["... %d more diff lines of %s\n" % (len(lines) - max_lines, rel)]
        out.append("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                           for line in lines))
    if len(paths) > max_files:
        out.append("... and %d more changed files (diff -ru the build and its .previous copy to see all)\n"
                   % (len(paths) - max_files))
    return out


def diff_order(paths):
    """Device configurations first (what a deploy pushes), then the rest, each in path order."""
    return sorted(paths, key=lambda p: (not p.startswith("devices/"), p))
