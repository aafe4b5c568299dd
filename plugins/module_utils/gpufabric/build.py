"""The build: every file of build/<cluster>/ rendered in one process, written as one atomic swap.

RENDERERS is the list of ``(plan) -> {relative path: text}`` functions; adding an output (docs,
cabling) is one more entry. Renderers share one structured config per plan through ``structured``.
"""
import functools
import os
import shutil
import tempfile

from .docs import render_docs
from .export import plan_files
from .render import yaml_text
from .render.sonic import render_device
from .structured import structured_configs


@functools.lru_cache(maxsize=1)
def structured(plan):
    """The plan's structured configs, computed once however many renderers read them."""
    return structured_configs(plan)


def render_structured(plan):
    return {"devices/%s/structured.yml" % host: yaml_text.dump(cfg) for host, cfg in structured(plan).items()}


def render_sonic(plan):
    out = {}
    for host, cfg in structured(plan).items():
        for name, text in render_device(cfg).items():
            out["devices/%s/%s" % (host, name)] = text
    return out


RENDERERS = [plan_files, render_structured, render_sonic, render_docs]


def render_all(plan, renderers=None):
    """{relative path: text}, sorted by path: the whole build of one cluster, the same bytes on every run."""
    files = {}
    for renderer in renderers or RENDERERS:
        files.update(renderer(plan))
    return dict(sorted(files.items()))


def _read_tree(root):
    found = {}
    for directory, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                found[os.path.relpath(path, root)] = f.read()
    return found


def _changes(old, new):
    return sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))


def write_build(plan, build_root, renderers=None, check=False):
    """Write build_root/<cluster>/ so that readers see the old build or the new one, never a mix:
    the new tree is written beside it and swapped in with two renames. Returns the changed paths
    (relative to build_root/<cluster>/), empty when the build is unchanged and nothing was touched.
    With ``check``, only returns what would change."""
    files = render_all(plan, renderers)
    target = os.path.join(build_root, plan.summary["cluster"])
    changed = _changes(_read_tree(target) if os.path.isdir(target) else {}, files)
    if check or not changed:
        return changed
    os.makedirs(build_root, exist_ok=True)
    staging = tempfile.mkdtemp(dir=build_root, prefix="." + plan.summary["cluster"] + ".new-")
    try:
        for rel, text in files.items():
            path = os.path.join(staging, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        os.chmod(staging, 0o755)
        old = None
        if os.path.isdir(target):
            old = tempfile.mkdtemp(dir=build_root, prefix="." + plan.summary["cluster"] + ".old-")
            os.rename(target, os.path.join(old, "tree"))
        os.rename(staging, target)
        if old:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return changed
