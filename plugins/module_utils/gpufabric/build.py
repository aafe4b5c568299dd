"""The build: every file of build/<cluster>/ rendered in one process, written as one atomic swap.

STAGES maps a stage name (also the playbook tag that selects it) to its ``(plan, devices) ->
{relative path: text}`` renderer; adding an output is one more entry. ``devices`` None means the
whole fabric; a list renders only those devices (the fabric-wide stages then render nothing).
Renderers share one structured config per plan through ``structured``.
"""
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
from . import build_tree
from .build_tree import DIFF_FILES, FOREIGN_SUBTREES, NOT_BUILT, PREVIOUS_SUFFIX
from .day2.drain import drained_switches
from .day2.rollout import rollout_files
from .structured import BUILDERS, FabricContext, structured_configs, switch_configs
from .structured.switch import check_reader
from .structured.server import server_config_batches, server_configs


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


@allocation_heavy
def write_build(plan, build_root, check=False, devices=None, stages=None, result=None, progress=None):
    """Write build_root/<cluster>/ so that readers see the old build or the new one, never a mix: the new tree is
    written beside it and swapped in with two renames; the old one becomes <cluster>.previous/. Returns the changed
    paths (relative to build_root/<cluster>/), empty when the build is unchanged and nothing was touched. With
    ``check``, only returns what would change.

    The files are rendered and written BATCH devices at a time (stream), so memory does not grow with the fabric. A
    full build whose inputs (build_manifest.input_key) are those the current build's manifest names renders nothing.
    ``devices`` / ``stages`` select part of the build (--limit, tags): the selected files are replaced and every
    other file of the current build is kept. ``result`` (a dict) receives the old and new texts of the first changed
    files in diff order (DIFF_FILES), for diffs."""
    cluster = plan.summary["cluster"]
    target = os.path.join(build_root, cluster)
    full = devices is None and (stages is None or set(stages) == set(STAGES))
    started = time.perf_counter()
    key = build_manifest.input_key(plan) if full else None
    exists = os.path.isdir(target)
    header = build_manifest.read_header(target) if exists else None
    if result is not None:
        result.update(old={}, new={})
    if _in_place(target, key, header, full, progress or (lambda *_args: None), started):
        return []
    lock = staging = None
    if not check:
        os.makedirs(build_root, exist_ok=True)
        lock = build_tree.lock(build_root)
    try:
        if not check:
            staging = _staging(build_root, cluster, progress)
        tree = build_tree.Tree(target if exists else None, staging, DIFF_FILES if result is not None else 0)
        clock = {}
        writing = _fill(tree, plan, stages, devices, clock)
        finishing = time.perf_counter()
        if exists:
            _carry_or_drop(tree, target, full)
        for name, (count, seconds) in clock.items() if progress else ():
            progress(name, count, seconds)
        changed = sorted(tree.changed)
        if result is not None:
            result.update(tree.texts())
        if check:
            return changed
        if not changed:
            # The same files: only the manifest is brought up to date, so that the next build skips rendering.
            _manifest_only(target, staging, key, header, full, tree.entries)
            return changed
        build_manifest.write(staging, key, tree.entries)
        os.chmod(staging, 0o755)
        _swap_in(staging, target, exists)
        if progress:
            progress("write", len(changed), writing + time.perf_counter() - finishing)
        return changed
    except BaseException:
        if staging is not None:
            _discard(staging, target)
        raise
    finally:
        if lock is not None:
            os.close(lock)


def _in_place(target, key, header, full, progress, started):
    """Whether the build in place is already this one: its manifest names these inputs (``key``) and its files
    are those the manifest lists, untouched. Says ``progress`` why the build is compared or rebuilt otherwise."""
    if key is not None and header is not None and header.get("key") == key:
        if build_tree.untouched(target, build_manifest.read_entries(target)):
            progress("inputs and files unchanged since the build in place (its manifest): nothing rendered", None,
                     time.perf_counter() - started)
            return True
        progress("files of the build in place were changed since it was built: compared file by file", None,
                 time.perf_counter() - started)
    if header is None and os.path.isdir(target):
        progress("no manifest in the build in place: compared file by file", None, 0.0)
    elif header is not None and full and header.get("key") is not None and header.get("key") != key:
        progress("the build in place has other inputs (spec, tenants or collection version): rebuilt", None, 0.0)
    return False


def _carry_or_drop(tree, target, full):
    """The old build's files the new one did not make: kept (a partial build, validate.yml's reports) or dropped."""
    made = set(tree.entries)
    for rel in build_tree.list_tree(target, FOREIGN_SUBTREES):
        if rel in made:
            continue
        if not full or rel.startswith(NOT_BUILT):
            tree.carry(rel)
        else:
            tree.drop(rel)


def _swap_in(staging, target, exists):
    """The complete new tree in place with two renames; the old one becomes <cluster>.previous/ and gives the
    new one the subtrees other writers own."""
    previous = target + PREVIOUS_SUFFIX
    if exists:
        if os.path.isdir(previous):
            shutil.rmtree(previous)
        for sub in FOREIGN_SUBTREES:
            if os.path.isdir(os.path.join(target, sub)):
                os.rename(os.path.join(target, sub), os.path.join(staging, sub))
        os.rename(target, previous)
    os.rename(staging, target)


def _discard(staging, target):
    """An unfinished new tree removed, the subtrees other writers own given back first (never lost)."""
    for sub in FOREIGN_SUBTREES:
        if os.path.isdir(os.path.join(staging, sub)) and os.path.isdir(target):
            os.rename(os.path.join(staging, sub), os.path.join(target, sub))
    shutil.rmtree(staging, ignore_errors=True)


def _staging(build_root, cluster, progress):
    """A new, empty staging tree beside build_root/<cluster>/, the unfinished trees of killed runs removed first."""
    left = build_tree.remove_leftovers(build_root, cluster)
    if left and progress:
        progress("removed the unfinished tree(s) of a killed build", left, 0.0)
    return tempfile.mkdtemp(dir=build_root, prefix="." + cluster + ".new-")


def _manifest_only(target, staging, key, header, full, entries):
    """An unchanged build: the staging tree removed, the manifest in place rewritten when it is missing or names
    other inputs."""
    if (full and (header is None or header.get("key") != key)) or (not full and header is None):
        build_manifest.write(target, key, entries)
    shutil.rmtree(staging)
