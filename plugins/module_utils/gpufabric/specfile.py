"""Finding and reading the cluster spec that an inventory source names.

YAML is read strictly: a duplicate key is an error (PyYAML keeps the last one silently), and every
mapping remembers where its keys are, so an error names the file, line and column beside the key.
"""
import functools
import glob
import os
import re

from .day2.drain import with_drain
from .day2.spares import with_swap
from .errors import SpecError
from .inventory_keys import PLUGIN_KEYS
from .plan import build_plan

SUFFIXES = (".topology.yml", ".topology.yaml")


class _DuplicateKey(Exception):
    def __init__(self, key, where, first):
        super().__init__(key)
        self.key, self.where, self.first = key, where, first


@functools.lru_cache(maxsize=1)
def _strict_loader():
    """SafeLoader that refuses duplicate keys and records, per mapping (by id), where each key is:
    ``positions[id(mapping)][key] = (line, column)``, both 1-based. Built on first use: PyYAML is
    imported only when a spec is read."""
    import yaml

    class StrictLoader(yaml.SafeLoader):  # pylint: disable=too-many-ancestors
        def __init__(self, stream):
            super().__init__(stream)
            self.positions = {}

        def construct_mapping(self, node, deep=False):
            self.flatten_mapping(node)
            out = {}
            where_of = self.positions[id(out)] = {}
            for key_node, value_node in node.value:
                key = self.construct_object(key_node, deep=deep)
                where = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                if key in where_of:
                    raise _DuplicateKey(key, where, where_of[key])
                where_of[key] = where
                out[key] = self.construct_object(value_node, deep=deep)
            return out

    StrictLoader.add_constructor("tag:yaml.org,2002:map", StrictLoader.construct_mapping)
    return StrictLoader


# The host variable (of group all) in which the inventory plugin records the spec it read, relative to the
# directory the inventory was parsed from when the spec lies under it (plugins/inventory/topology.py). A job whose
# inventory is not the spec itself (AWX's job inventory is a script printing the JSON its last sync stored) finds
# the spec through it: AWX syncs and runs jobs from the root of the project's checkout (docs/awx.md).
RECORDED_SPEC = "fabric_spec_file"


def recorded_spec_path(path, cwd=None):
    """What the inventory plugin records of ``path``: relative to ``cwd`` (default: the current directory) when
    the spec lies under it, else absolute."""
    path = os.path.abspath(path)
    relative = os.path.relpath(path, cwd or os.getcwd())
    return path if relative.startswith(os.pardir) else relative


def _recorded_here(recorded):
    """The recorded spec as a file here: the path itself, else the longest tail of it that names a file under the
    current directory (a sync run elsewhere than the project's root records an absolute path, whose tail inside
    the project the job's copy of the project still has)."""
    if os.path.isfile(recorded):
        return recorded
    parts = [p for p in os.path.normpath(recorded).split(os.sep) if p and p != os.pardir]
    for start in range(len(parts)):
        tail = os.path.join(*parts[start:])
        if os.path.isfile(tail):
            return tail
    return None


def find_spec(sources, recorded=None):
    """The one cluster spec among inventory sources (files, or directories holding one spec); with none there, the
    spec the inventory plugin recorded at the inventory's sync (``recorded``, relative to the current directory)."""
    found = []
    for src in sources or ():
        if os.path.isdir(src):
            found.extend(sorted(p for s in SUFFIXES for p in glob.glob(os.path.join(src, "*" + s))))
        elif src.endswith(SUFFIXES) and os.path.isfile(src):
            found.append(src)
    if not found and recorded:
        located = _recorded_here(recorded)
        if located is None:
            raise SpecError(RECORDED_SPEC, "%r, the spec the inventory was synced from, is not a file under %s: run "
                            "the job from the project the inventory source reads, or set the spec option"
                            % (recorded, os.getcwd()))
        return located
    if len(found) != 1:
        raise SpecError("spec", "%s cluster spec (*.topology.yml) among the inventory sources %s: pass the file "
                        "with -i or set the spec option" % ("no" if not found else "more than one", list(sources or ())))
    return found[0]


class Located:
    """A spec file's data and where each of its keys is."""

    __slots__ = ("path", "data", "positions")

    def __init__(self, path, data, positions):
        self.path, self.data, self.positions = path, data, positions

    def cluster_spec(self):
        """The spec without the inventory plugin's own options (cache, compose, ...)."""
        return {k: v for k, v in self.data.items() if k not in PLUGIN_KEYS}

    def position(self, key_path):
        """(line, column) of a dotted key path such as ``backend.leaf.model`` or ``x.y[2].z``; the
        deepest key found on the way when the path goes further than the file."""
        found, node = None, self.data
        for part in key_path.split(".") if key_path else ():
            index = None
            match = _INDEX.match(part)
            if match:
                part, index = match.group(1), int(match.group(2))
            if not isinstance(node, dict) or part not in node:
                break
            found = self.positions.get(id(node), {}).get(part, found)
            node = node[part]
            if index is not None:
                if not isinstance(node, list) or index >= len(node):
                    break
                node = node[index]
        return found

    def error(self, exc):
        """The SpecError ``exc`` with the spec file, line and column of its key in front."""
        if exc.where:
            return exc
        where = self.position(exc.path)
        return SpecError(exc.path, exc.message, where=os.path.basename(self.path) + (":%d:%d" % where if where else ""))


def parse_yaml(text, name="spec"):
    """(data, positions) of a YAML document; a syntax error or duplicate key is one SpecError with line
    and column."""
    import yaml
    loader = _strict_loader()(text)
    try:
        return loader.get_single_data(), loader.positions
    except _DuplicateKey as dup:
        raise SpecError("", "duplicate key %r (first at line %d): YAML keeps only the last one; keep one"
                        % (dup.key, dup.first[0]), where="%s:%d:%d" % ((name,) + dup.where))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = "%s:%d:%d" % (name, mark.line + 1, mark.column + 1) if mark else name
        raise SpecError("", "YAML syntax error: %s%s" % (
            exc.problem or exc.context, " (%s)" % exc.context if exc.context and exc.problem else ""), where=where)
    except yaml.YAMLError as exc:
        raise SpecError("", "%s: YAML error: %s" % (name, str(exc).splitlines()[0]))
    finally:
        loader.dispose()


def read_spec(path):
    """The spec file as a Located, plugin options included (the inventory plugin needs them)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise SpecError("", "cannot read the cluster spec %s: %s" % (path, exc.strerror or exc))
    raw, positions = parse_yaml(text, os.path.basename(path))
    if not isinstance(raw, dict):
        raise SpecError("", "a cluster spec is a YAML mapping (plugin: gpucluster.fabric.topology, cluster: ..., "
                        "servers: ..., backend: ...)", where=os.path.basename(path))
    return Located(path, raw, positions)


def load_spec(path):
    """The spec as plain data, without the inventory plugin's own options."""
    return read_spec(path).cluster_spec()


_INDEX = re.compile(r"^(.*)\[(\d+)\]$")


# The last plan made in this process, by (real path, mtime, size) of its spec and the drain options.
# Ansible runs actions in forks of the process whose inventory plugin planned the same file, so a playbook
# plans once.
_LAST_PLAN = {}


def plan_spec_file(path, drain=(), undrain=(), replace=None, restore=()):
    """The plan of a spec file; a spec error names the file, line and column of its key. ``drain`` and
    ``undrain`` change maintenance.drained for this plan only (playbooks/drain.yml), ``replace``
    ({failed: spare}) and ``restore`` (failed servers) maintenance.replaced (playbooks/spare.yml)."""
    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_mtime_ns, stat.st_size, tuple(drain), tuple(undrain),
           tuple(sorted((replace or {}).items())), tuple(restore))
    if key in _LAST_PLAN:
        return _LAST_PLAN[key]
    spec = read_spec(path)
    try:
        raw = spec.cluster_spec()
        if drain or undrain:
            raw = with_drain(raw, drain, undrain)
        if replace or restore:
            raw = with_swap(raw, replace, restore)
        plan = build_plan(raw)
    except SpecError as exc:
        raise spec.error(exc)
    _LAST_PLAN.clear()
    _LAST_PLAN[key] = plan
    return plan


def default_build_dir():
    """build/ in the directory the command runs in: the user's project, never the installed collection."""
    return os.path.join(os.getcwd(), "build")


def plan_for_task(args, task_vars):
    """(spec path, plan, build dir) for an action: the `spec` option or the inventory's spec, and the
    `build_dir` option or build/ in the current directory. The `drain` and `undrain` options (lists of
    switches) change the spec's maintenance.drained for this task only (playbooks/drain.yml); `replace`
    ({failed: spare}) and `restore` (failed servers) its maintenance.replaced (playbooks/spare.yml)."""
    task_vars = task_vars or {}
    path = args.get("spec") or find_spec(task_vars.get("ansible_inventory_sources"), task_vars.get(RECORDED_SPEC))
    build_dir = os.path.normpath(args.get("build_dir") or default_build_dir())
    return path, plan_spec_file(path, args.get("drain") or (), args.get("undrain") or (), args.get("replace") or None,
                                args.get("restore") or ()), build_dir
