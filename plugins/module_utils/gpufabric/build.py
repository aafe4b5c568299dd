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

from .docs import PARTS as docs_parts, render_docs, render_pages as render_docs_pages, render_part as render_docs_part
from .export import plan_files
from .gc_pause import allocation_heavy
from .nos_registry import home, nos_of
from .render import yaml_text
from .render.linux_host import render_server
from . import build_manifest
from .build_workers import run_jobs as _run_jobs, workers_for
from .day2.drain import drained_switches
from .day2.rollout import rollout_files
from .structured import BUILDERS, FabricContext, structured_configs, switch_configs
from .structured.switch import check_reader
from .structured.server import server_config_batches, server_configs

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


def _structured_texts(cfgs):
    return {"devices/%s/structured.yml" % host: yaml_text.dump(cfg) for host, cfg in cfgs.items()}


def render_structured(plan, devices=None):
    return _structured_texts(_structured_of(plan, devices))


@functools.lru_cache(maxsize=None)
def renderer(name):
    """The home of NOS ``name``, once it is known to read this collection's structured config schema."""
    nos_home = home(name)
    check_reader(name, nos_home.STRUCTURED_SCHEMA)
    return nos_home


def render_switches(plan, devices=None):
    """Every (selected) switch's configuration files, rendered by the home of the switch's NOS (nos/). A home
    renders its switches together, so that its schema gate runs over all of them before anything is written."""
    return _switch_texts(_structured_of(plan, devices), plan.spec)


def switch_files(cfg, spec):
    """{file name: text} of one switch's configuration files, rendered from its structured config ``cfg`` as the
    build renders them (its NOS's schema gate included)."""
    prefix = "devices/%s/" % cfg["hostname"]
    return {path[len(prefix):]: text for path, text in _switch_texts({cfg["hostname"]: cfg}, spec).items()}


def _switch_texts(cfgs, spec):
    by_nos = {}
    for host, cfg in cfgs.items():
        by_nos.setdefault(nos_of(cfg), {})[host] = cfg
    out = {}
    for name, group in sorted(by_nos.items()):
        for host, files in renderer(name).render_switches(group, spec).items():
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
    return _server_texts({host: cfg for host, cfg in servers(plan).items() if devices is None or host in devices})


def _server_texts(cfgs):
    return {"servers/%s/%s" % (host, name): text for host, cfg in cfgs.items() for name, text in render_server(cfg).items()}


def _plan_outputs(plan):
    return dict(plan_files(plan), **rollout_files(plan))


STAGES = {
    "plan": _fabric_wide(_plan_outputs),
    "structured": render_structured,
    "configs": render_switches,
    "servers": render_servers,
    "docs": _fabric_wide(render_docs),
}
# Switches or servers rendered at once: the build holds one batch of texts, never the fabric's.
BATCH = 256
# Device pages (docs/devices/) rendered at once; a fabric of at most this many devices renders its documents as one
# job.
DOCS_BATCH = 2048


def _batches(items, size=BATCH):
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _jobs(plan, stages, devices, batch):
    """[(weight, job)] of one build: each job a function returning ([(relative path, text)], {stage: [files,
    seconds]}), together the whole build (or the ``stages`` and ``devices`` selected), BATCH switches or servers a
    job; ``weight`` orders them, heaviest first, for workers."""
    wanted = None if devices is None else set(devices)
    jobs = []

    def job(stage, render, *args):
        def run():
            started = time.perf_counter()
            out = render(*args)
            return list(out.items()), {stage: [len(out), time.perf_counter() - started]}
        return run

    if "plan" in stages and devices is None:
        jobs.append((1, job("plan", plan_files, plan)))
        # Its own job: the waves of a 100k-GPU fabric take seconds, beside the switches' rendering.
        jobs.append((len(plan.links) // 64, job("plan", rollout_files, plan)))
    if "structured" in stages or "configs" in stages:
        ctx, drained = FabricContext(plan), drained_switches(plan)
        switches = [dev for dev in plan.devices if dev.role in BUILDERS and (wanted is None or dev.name in wanted)]

        def switch_job(group):
            def run():
                clock, out = {}, []
                started = time.perf_counter()
                cfgs = switch_configs(ctx, group, drained)
                first = "structured" if "structured" in stages else "configs"
                for stage, render, args in (("structured", _structured_texts, (cfgs,)),
                                            ("configs", _switch_texts, (cfgs, plan.spec))):
                    if stage in stages:
                        texts = render(*args)
                        out += texts.items()
                        elapsed = time.perf_counter() - started
                        files, seconds = clock.get(stage, [0, 0.0])
                        clock[stage] = [files + len(texts), seconds + elapsed]
                        started = time.perf_counter()
                clock.setdefault(first, [0, 0.0])
                return out, clock
            return run

        jobs += [(len(group), switch_job(group)) for group in _batches(switches, batch)]
    if "servers" in stages:
        def server_job(hosts):
            def run():
                started = time.perf_counter()
                cfgs = next(server_config_batches(plan, None, hosts), {})
                out = _server_texts(cfgs)
                return list(out.items()), {"servers": [len(out), time.perf_counter() - started]}
            return run

        hosts = [dev.name for dev in plan.devices if dev.role == "gpu_server" and (wanted is None or dev.name in wanted)]
        jobs += [(len(group) // 4, server_job(set(group))) for group in _batches(hosts, batch)]
    if "docs" in stages and devices is None:
        jobs += _docs_jobs(plan, job)
    return jobs


def _docs_jobs(plan, job):
    """[(weight, job)] of the documents: one job, or for a large fabric jobs of their own, so that no worker holds
    all of them (a 131k-GPU fabric's are ~0.9 GB of text) and they render side by side: each part that reads every
    cable, the device pages by batch."""
    if len(plan.devices) <= DOCS_BATCH:
        return [(len(plan.devices), job("docs", render_docs, plan))]
    jobs = [(len(plan.links) // 64, job("docs", render_docs_part, plan, part)) for part in docs_parts]
    for group in _batches(plan.devices, DOCS_BATCH):
        jobs.append((sum(len(dev.links) for dev in group) // 64, job("docs", render_docs_pages, plan, group)))
    return jobs


def stream(plan, stages=None, devices=None, clock=None, workers=None, batch=BATCH):
    """Yield (relative path, text) of every file of the build (or of the ``stages`` and ``devices``
    selected), the same files and bytes as the STAGES renderers, switches and servers rendered ``batch``
    at a time, so that memory holds a few batches and not the fabric. With more than one worker
    (``workers``, default workers_for), forked processes render the batches, yielded in the order they end (the
    files are the same, their order is not). ``clock`` ({stage: [files, seconds]}) receives each stage's rendering
    time, summed over the workers."""
    stages = list(stages or STAGES)
    clock = {} if clock is None else clock
    for name in stages:
        clock.setdefault(name, [0, 0.0])
    jobs = _jobs(plan, stages, devices, batch)
    workers = workers_for(jobs) if workers is None else workers

    for out, times in _run_jobs(jobs, workers, lambda out: out):
        _count(clock, times)
        yield from out


def _count(clock, times):
    for stage, (files, seconds) in times.items():
        files_before, seconds_before = clock.get(stage, [0, 0.0])
        clock[stage] = [files_before + files, seconds_before + seconds]


def _fill(tree, plan, stages, devices, clock, workers=None, batch=BATCH):
    """Add every file of the build (as ``stream``) to ``tree``; with more than one worker, each forked worker
    compares and writes the files of its jobs itself (into the same staging tree) and this process merges what
    they report. Returns the seconds spent comparing and writing, summed over the processes."""
    stages = list(stages or STAGES)
    for name in stages:
        clock.setdefault(name, [0, 0.0])
    jobs = _jobs(plan, stages, devices, batch)
    workers = workers_for(jobs) if workers is None else workers
    writing = 0.0
    if workers <= 1:
        for out, times in _run_jobs(jobs, 1, lambda out: out):
            _count(clock, times)
            began = time.perf_counter()
            for rel, text in out:
                tree.add(rel, text)
            writing += time.perf_counter() - began
        return writing

    def finish(out):
        began = time.perf_counter()
        part = tree.part()
        for rel, text in out:
            part.add(rel, text)
        return part.report(), time.perf_counter() - began

    for ((entries, changed), seconds), times in _run_jobs(jobs, workers, finish):
        _count(clock, times)
        tree.merge(entries, changed)
        writing += seconds
    return writing


@allocation_heavy
def render_all(plan, stages=None, devices=None, progress=None):
    """{relative path: text}, sorted by path: the whole build of one cluster (or the ``stages`` and
    ``devices`` selected), the same bytes on every run. ``progress(stage, count, seconds)`` hears of
    each stage at the end."""
    clock = {}
    files = dict(sorted(stream(plan, stages, devices, clock)))
    if progress:
        for name, (count, seconds) in clock.items():
            progress(name, count, seconds)
    return files


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


def _list_tree(root, skip=()):
    """Relative paths of the files under ``root`` (not its subtrees ``skip`` nor its manifest)."""
    found = []
    for directory, dirs, names in os.walk(root):
        rel = os.path.relpath(directory, root)
        if directory == root:
            dirs[:] = [d for d in dirs if d not in skip]
            names = [n for n in names if n != build_manifest.NAME]
        found.extend(n if rel == "." else rel + "/" + n for n in names)
    return found


def _untouched(root, entries):
    """Whether the files under ``root`` (but its foreign subtrees and the reports of NOT_BUILT) are exactly
    those of the manifest ``entries``, each with the size and mtime it was written with: no file added,
    removed or edited since."""
    seen = 0
    pending = [(root, "")]
    while pending:
        directory, prefix = pending.pop()
        with os.scandir(directory) as it:
            for entry in it:
                rel = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    if not prefix and (entry.name in FOREIGN_SUBTREES or rel + "/" in NOT_BUILT):
                        continue
                    pending.append((entry.path, rel + "/"))
                    continue
                if not prefix and entry.name == build_manifest.NAME:
                    continue
                known = entries.get(rel)
                if known is None:
                    return False
                st = entry.stat(follow_symlinks=False)
                if st.st_size != known[1] or st.st_mtime_ns != known[2]:
                    return False
                seen += 1
    return seen == sum(1 for rel in entries if not rel.startswith(NOT_BUILT))


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


class _Tree:
    """The new build, file by file: compared with the old one (by its manifest's hashes, or by reading the old
    file where the manifest cannot vouch for it), written into ``staging`` (None: only compared), a file
    equal to the old one hard-linked rather than written, so that its mtime stays."""

    def __init__(self, old_root, staging, shown=0):
        self.old_root, self.staging = old_root, staging
        self.old = build_manifest.read_entries(old_root) if old_root else {}
        self.entries = {}     # the new manifest
        self.changed = []
        self.made = set()     # directories made under staging
        self.shown = shown    # how many changed files' texts to keep, the first in diff order (--diff)
        self.new_texts = {}

    def _old_hash(self, rel):
        """(hash, stat) of the old build's file ``rel``, (None, None) if it has none."""
        if not self.old_root:
            return None, None
        path = os.path.join(self.old_root, rel)
        try:
            st = os.stat(path)
        except OSError:
            return None, None
        entry = self.old.get(rel)
        if entry and entry[1] == st.st_size and entry[2] == st.st_mtime_ns:
            return entry[0], st
        with open(path, "rb") as f:
            return build_manifest.content_hash(f.read()), st

    def part(self):
        """A tree for one job's files, in a forked worker: the same old build and staging tree, its own results."""
        part = _Tree.__new__(_Tree)
        part.old_root, part.staging, part.old, part.shown = self.old_root, self.staging, self.old, self.shown
        part.entries, part.changed, part.made, part.new_texts = {}, [], set(self.made), {}
        return part

    def report(self):
        """(manifest entries, [(changed path, its text when --diff shows texts)]) of a part."""
        return self.entries, [(rel, self.new_texts.get(rel)) for rel in self.changed]

    def merge(self, entries, changed):
        """A part's report, made in a worker, into this tree."""
        self.entries.update(entries)
        for rel, text in changed:
            self._changed(rel, text)

    def _changed(self, rel, text):
        self.changed.append(rel)
        if self.shown:
            self.new_texts[rel] = text
            if len(self.new_texts) > 2 * self.shown:
                for path in diff_order(self.new_texts)[self.shown:]:
                    del self.new_texts[path]

    def texts(self):
        """{"old": {path: text}, "new": {path: text}} of the first changed files in diff order."""
        new = {rel: text for rel, text in self.new_texts.items() if rel in diff_order(self.new_texts)[:self.shown]}
        old = {}
        for rel in new:
            try:
                with open(os.path.join(self.old_root or "", rel), encoding="utf-8", errors="replace") as f:
                    old[rel] = f.read()
            except OSError:
                continue
        return {"old": old, "new": {rel: text for rel, text in new.items() if text is not None}}

    def _dir(self, rel):
        directory = os.path.dirname(os.path.join(self.staging, rel))
        if directory not in self.made:
            os.makedirs(directory, exist_ok=True)
            self.made.add(directory)

    def add(self, rel, text):
        data = text.encode("utf-8")
        digest = build_manifest.content_hash(data)
        old_digest, st = self._old_hash(rel)
        if old_digest != digest:
            self._changed(rel, text)
        if self.staging is None:
            self.entries[rel] = (digest, 0, 0)
            return
        self._dir(rel)
        path = os.path.join(self.staging, rel)
        if old_digest == digest:
            try:
                os.link(os.path.join(self.old_root, rel), path)
                self.entries[rel] = (digest, st.st_size, st.st_mtime_ns)
                return
            except OSError:
                pass
        with open(path, "wb", buffering=0) as f:
            f.write(data)
            st = os.fstat(f.fileno())
        self.entries[rel] = (digest, st.st_size, st.st_mtime_ns)

    def carry(self, rel):
        """Keep the old build's file ``rel`` as it is (not the build's to write, or outside a partial build)."""
        digest, st = self._old_hash(rel)
        if self.staging is None:
            self.entries[rel] = (digest, 0, 0)
            return
        self._dir(rel)
        os.link(os.path.join(self.old_root, rel), os.path.join(self.staging, rel))
        self.entries[rel] = (digest, st.st_size, st.st_mtime_ns)

    def drop(self, rel):
        self._changed(rel, None)


def _lock(build_root):
    """An exclusive lock on builds into ``build_root`` (flock on the directory itself: no file left behind),
    held until the returned descriptor is closed."""
    import fcntl
    fd = os.open(build_root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _remove_leftovers(build_root, cluster):
    """Remove the unfinished trees of runs killed while they wrote (never seen as the build: a tree is only
    renamed into place once complete). Returns how many there were."""
    prefix = "." + cluster + ".new-"
    left = [name for name in os.listdir(build_root) if name.startswith(prefix)]
    for name in left:
        shutil.rmtree(os.path.join(build_root, name), ignore_errors=True)
    return len(left)


@allocation_heavy
def write_build(plan, build_root, check=False, devices=None, stages=None, result=None, progress=None):
    """Write build_root/<cluster>/ so that readers see the old build or the new one, never a mix:
    the new tree is written beside it and swapped in with two renames; the old one becomes
    <cluster>.previous/. Returns the changed paths (relative to build_root/<cluster>/), empty when the
    build is unchanged and nothing was touched. With ``check``, only returns what would change.

    The files are rendered and written BATCH devices at a time (stream), so memory does not grow with the
    fabric. A full build whose inputs (build_manifest.input_key) are those the current build's manifest
    names renders nothing: the build is unchanged.

    ``devices`` / ``stages`` select part of the build (--limit, tags): the selected files are
    replaced and every other file of the current build is kept. ``result`` (a dict) receives the
    old and new texts of the first changed files in diff order (DIFF_FILES), for diffs."""
    cluster = plan.summary["cluster"]
    target = os.path.join(build_root, cluster)
    full = devices is None and (stages is None or set(stages) == set(STAGES))
    started = time.perf_counter()
    key = build_manifest.input_key(plan) if full else None
    exists = os.path.isdir(target)
    header = build_manifest.read_header(target) if exists else None
    if result is not None:
        result.update(old={}, new={})
    if key is not None and header is not None and header.get("key") == key:
        if _untouched(target, build_manifest.read_entries(target)):
            if progress:
                progress("inputs and files unchanged since the build in place (its manifest): nothing rendered",
                         None, time.perf_counter() - started)
            return []
        if progress:
            progress("files of the build in place were changed since it was built: compared file by file", None,
                     time.perf_counter() - started)
    if exists and progress:
        if header is None:
            progress("no manifest in the build in place: compared file by file", None, 0.0)
        elif full and header.get("key") is not None:
            progress("the build in place has other inputs (spec, tenants or collection version): rebuilt", None, 0.0)
    lock = staging = None
    if not check:
        os.makedirs(build_root, exist_ok=True)
        lock = _lock(build_root)
    try:
        if not check:
            left = _remove_leftovers(build_root, cluster)
            if left and progress:
                progress("removed the unfinished tree(s) of a killed build", left, 0.0)
            staging = tempfile.mkdtemp(dir=build_root, prefix="." + cluster + ".new-")
        tree = _Tree(target if exists else None, staging, DIFF_FILES if result is not None else 0)
        clock = {}
        writing = _fill(tree, plan, stages, devices, clock)
        finishing = time.perf_counter()
        made = set(tree.entries)
        for rel in _list_tree(target, FOREIGN_SUBTREES) if exists else ():
            if rel in made:
                continue
            if not full or rel.startswith(NOT_BUILT):
                tree.carry(rel)
            else:
                tree.drop(rel)
        del made
        if progress:
            for name, (count, seconds) in clock.items():
                progress(name, count, seconds)
        changed = sorted(tree.changed)
        if result is not None:
            result.update(tree.texts())
        if check:
            return changed
        if not changed:
            # The same files: only the manifest is brought up to date, so that the next build skips rendering.
            if (full and (header is None or header.get("key") != key)) or (not full and header is None):
                build_manifest.write(target, key, tree.entries)
            shutil.rmtree(staging)
            return changed
        build_manifest.write(staging, key, tree.entries)
        os.chmod(staging, 0o755)
        previous = target + PREVIOUS_SUFFIX
        if exists:
            if os.path.isdir(previous):
                shutil.rmtree(previous)
            for sub in FOREIGN_SUBTREES:
                if os.path.isdir(os.path.join(target, sub)):
                    os.rename(os.path.join(target, sub), os.path.join(staging, sub))
            os.rename(target, previous)
        os.rename(staging, target)
        if progress:
            progress("write", len(changed), writing + time.perf_counter() - finishing)
        return changed
    except BaseException:
        if staging is not None:
            for sub in FOREIGN_SUBTREES:  # never lose a tree the build does not own
                if os.path.isdir(os.path.join(staging, sub)) and os.path.isdir(target):
                    os.rename(os.path.join(staging, sub), os.path.join(target, sub))
            shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        if lock is not None:
            os.close(lock)


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
