"""The layering of plugins/module_utils/gpufabric, checked on the source's AST.

Fails (exit 1, one line per offence) on:
- an import cycle between modules of the package (an import inside a function counts too: it only hides the
  cycle from Python's loader, not from the design). Importing a.b.c runs a and a.b first, so those are edges
  too; a module naming its own package (``from . import FILE`` in a package's submodule) is an edge to the
  package's ``__init__``. Only the loader running a module's own parents first is not counted: every
  package would be a cycle with its own modules;
- an import cycle between packages (the first directory under gpufabric/; each NOS home ``nos.<name>`` is a
  package of its own, and a module directly under gpufabric/ is one too);
- an import running up a layer: the layer table of docs/architecture.md ("Layers") is data read here, each
  module's layer is the most specific entry naming it (``plan/`` a package and all below it, ``day2/drain.py``
  one module, ``nos/<name>/`` every home), and a module no entry names is an offence too. The upward imports
  that table lists (at most ``MAX_UPWARD``, each with its reason) pass; one that no longer happens fails, so
  the list only shrinks;
- a NOS-neutral module that imports a NOS home (``nos/<name>/``): neutral code asks ``nos_registry.home(name)``;
- a module outside ``twin/`` that imports ``twin/``: validation, deploy and the rest must work the same on real
  switches; the twin hands its transport in. A NOS home has no part on the twin either;
- the product importing an emulator (``twin/emulators/<name>/``, the twin's stand-in for a NOS): a module
  outside ``twin/`` that imports one, or a module of ``twin/`` that names one rather than asking
  ``twin.emulators.plane(name)``;
- an emulator importing the product it judges: a module of ``twin/emulators/<name>/`` may import its own
  emulator's package, the twin's machinery (``twin/`` outside ``emulators/``, ``twin/emulators/__init__.py``) and
  ``netns_process`` (``EMULATOR_MAY_IMPORT``), nothing else of the package: no renderer, deploy, schema gate or
  API client of a home, and no other NOS's emulator;
- a NOS home that imports another NOS home.

Usage: python scripts/check_imports.py [root]   (root defaults to this checkout; `make lint` runs it)
"""
import ast
import os
import re
import sys

PACKAGE = ("plugins", "module_utils", "gpufabric")
# Import prefixes that name the package (collection path or relative imports resolved below).
COLLECTION_PREFIX = "ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric"
# Where the layer table is, as a path under the root and the heading of its section.
LAYERS_DOC = os.path.join("docs", "architecture.md")
LAYERS_HEADING = "## Layers"
# Upward imports the table may list, each with its reason: a few named exceptions, not a second rule.
MAX_UPWARD = 3
HOMES_PATTERN = "nos/<name>/"
EMULATORS = "twin.emulators"
# Besides its own package and the twin's machinery, what an emulator may import: not code it judges.
EMULATOR_MAY_IMPORT = ("netns_process",)


def python_files(base):
    """(path, path relative to ``base`` with '/') of every .py file below ``base``, in a stable order (the other
    checks of scripts/ walk the package with it)."""
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                yield path, os.path.relpath(path, base).replace(os.sep, "/")


def _modules(pkg_root):
    """{dotted name relative to the package ('' for the package itself): path}."""
    found = {}
    for path, rel in python_files(pkg_root):
        parts = rel[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_package(path):
    return os.path.basename(path) == "__init__.py"


def _resolve(module, path, node, modules):
    """The package-relative module names one import statement loads (only this package's)."""
    names = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == COLLECTION_PREFIX or alias.name.startswith(COLLECTION_PREFIX + "."):
                names.append(alias.name[len(COLLECTION_PREFIX) + 1:])
        return [_nearest(n, modules) for n in names]
    # ImportFrom
    if node.level:
        base = module.split(".") if module else []
        if not _is_package(path):
            base = base[:-1]
        up = node.level - 1
        if up > len(base):
            return []
        base = base[:len(base) - up] if up else base
        target = ".".join(base + ([node.module] if node.module else []))
    elif node.module and (node.module == COLLECTION_PREFIX or node.module.startswith(COLLECTION_PREFIX + ".")):
        target = node.module[len(COLLECTION_PREFIX) + 1:]
    else:
        return []
    out = []
    for alias in node.names:
        sub = (target + "." + alias.name) if target else alias.name
        # `from . import x` loads the submodule x when there is one, else the package.
        out.append(sub if sub in modules else _nearest(target, modules))
    return out


def _nearest(name, modules):
    parts = name.split(".") if name else []
    while parts and ".".join(parts) not in modules:
        parts.pop()
    return ".".join(parts)


def _parents(name):
    """Importing a.b.c runs a/__init__ and a/b/__init__ first: those are edges too."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _own_ancestor(module, name):
    return module.startswith(name + ".")


def import_graph(pkg_root):
    """(modules, graph, direct): graph[m] = {module m loads: line}, counting the packages Python runs on the
    way (importing a.b.c runs a and a.b) and a package m names itself; direct[m] only the modules m's imports
    name."""
    modules = _modules(pkg_root)
    graph, direct = {}, {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), filename=path)
        edges, named = {}, {}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _resolve(module, path, node, modules):
                for name in _parents(target):
                    if name in modules and name != module and not _own_ancestor(module, name):
                        edges.setdefault(name, node.lineno)
                if target and target != module:
                    edges.setdefault(target, node.lineno)
                    named.setdefault(target, node.lineno)
        graph[module], direct[module] = edges, named
    return modules, graph, direct


def _home(module):
    """The NOS home a module lives in ('sonic' for nos.sonic.render), '' for the homes' package, None if neutral."""
    parts = module.split(".")
    if parts[0] != "nos":
        return None
    return parts[1] if len(parts) > 1 else ""


def _twin_side(module):
    """Only the twin itself (its emulators included) may import twin/."""
    return module.split(".")[0] == "twin"


def emulator_of(module):
    """The NOS whose emulator a module is part of ('sonic' for twin.emulators.sonic.gcu), None otherwise (the
    emulators' package itself, twin/emulators/__init__.py, is the twin's: it finds an emulator by name)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and ".".join(parts[:2]) == EMULATORS else None


def emulator_offence(module, target):
    """Why ``module`` may not import ``target`` under the emulator rule, or None."""
    own, other = emulator_of(module), emulator_of(target)
    if own is None:
        if other is not None and not _twin_side(module):
            return "product module %s imports the emulator %s: the product imports nothing of what judges it" \
                % (module or "gpufabric", target)
        if other is not None:
            return "%s names the emulator %s; ask twin.emulators.plane(name)" % (module, target)
        return None
    if other == own or target in EMULATOR_MAY_IMPORT:
        return None
    if other is None and _twin_side(target):
        return None
    what = "another NOS's emulator" if other else "product code it judges"
    return "emulator %s imports %s (%s): an emulator imports none of the product; write its own" \
        % (module, target, what)


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return sorted(out)


def package_of(module):
    """The package a module belongs to for the package-level check: its first component, ``nos.<name>`` in
    a NOS home; a module directly under gpufabric/ that is not a package is a package of its own."""
    parts = module.split(".")
    if parts[0] == "nos" and len(parts) > 1:
        return "nos." + parts[1]
    return parts[0]


def package_graph(graph, direct):
    """{package: {package it imports: (module, line, target) of the first such import, a module the import names
    before a package it runs on the way}}."""
    packages = {}
    for module, targets in graph.items():
        source = package_of(module)
        packages.setdefault(source, {})
        for target, lineno in sorted(direct[module].items()) + sorted(targets.items()):
            other = package_of(target)
            if other and other != source:
                packages[source].setdefault(other, (module, lineno, target))
    return packages


# The layer table ---------------------------------------------------------------------------------------------

class LayerTable:
    """The layers of docs/architecture.md: ``layers`` [(number, title, [pattern])], ``upward`` {(from, to): why}.

    A pattern is a path under gpufabric/ as the table writes it: ``errors`` (a module, or a package and all
    below it), ``plan/`` (a package and all below it), ``day2/drain.py`` (one module), ``tenants/__init__.py`` (the
    package's own module only), ``nos/<name>/`` (every NOS home, and the homes' package)."""

    def __init__(self, layers, upward):
        self.layers, self.upward = layers, upward
        self._patterns = [(self._dotted(p), number) for number, _title, patterns in layers for p in patterns]

    @staticmethod
    def _dotted(pattern):
        if pattern == HOMES_PATTERN:
            return ("prefix", "nos")
        if pattern.endswith("/__init__.py"):
            return ("exact", pattern[:-len("/__init__.py")].replace("/", "."))
        if pattern.endswith(".py"):
            return ("exact", pattern[:-3].replace("/", "."))
        return ("prefix", pattern.rstrip("/").replace("/", "."))

    @staticmethod
    def _matches(kind, name, module):
        if kind == "exact":
            return module == name
        return module == name or module.startswith(name + ".")

    def layer_of(self, module):
        """The number of the most specific entry naming ``module`` (an exact module before a package, a deeper
        package before its parent), or None."""
        best = None
        for (kind, name), number in self._patterns:
            if self._matches(kind, name, module):
                rank = (kind == "exact", name.count(".") + 1)
                if best is None or rank > best[0]:
                    best = (rank, number)
        return best[1] if best else None

    def upward_reason(self, module, target):
        for (source, dest), why in self.upward.items():
            if self._matches(*self._dotted(source), module) and self._matches(*self._dotted(dest), target):
                return (source, dest)
        return None


def _cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _tables(lines):
    """Each markdown table in ``lines`` as its rows of cells, header and rule left out."""
    tables, current = [], None
    for line in lines + [""]:
        if line.lstrip().startswith("|"):
            if current is None:
                current = []
            current.append(_cells(line))
        elif current is not None:
            tables.append(current[2:])
            current = None
    return tables


def read_layer_table(root):
    """The LayerTable of ``root``'s docs/architecture.md: the first table of its "Layers" section (layer, modules,
    may import) and the second (from, to, why: the upward imports allowed)."""
    path = os.path.join(root, LAYERS_DOC)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if LAYERS_HEADING + "\n" not in text:
        raise ValueError("%s has no %r section" % (LAYERS_DOC, LAYERS_HEADING))
    section = text.split(LAYERS_HEADING + "\n", 1)[1].split("\n## ", 1)[0]
    tables = _tables(section.splitlines())
    if not tables:
        raise ValueError("%s: no layer table under %r" % (LAYERS_DOC, LAYERS_HEADING))
    layers = []
    for row in tables[0]:
        match = re.match(r"(\d+)\s*(.*)", row[0])
        if not match:
            raise ValueError("%s: a layer row must start with its number: %r" % (LAYERS_DOC, row[0]))
        layers.append((int(match.group(1)), match.group(2), re.findall(r"`([^`]+)`", row[1])))
    upward = {}
    for row in (tables[1] if len(tables) > 1 else []):
        names = [re.findall(r"`([^`]+)`", cell) for cell in row[:2]]
        if len(row) < 3 or [len(n) for n in names] != [1, 1] or not row[2]:
            raise ValueError("%s: an upward import is `from` | `to` | why: %r" % (LAYERS_DOC, row))
        upward[(names[0][0], names[1][0])] = row[2]
    return LayerTable(layers, upward)


def layer_offences(modules, graph, table, rel):
    lines = []
    numbers = [layer[0] for layer in table.layers]
    if numbers != list(range(1, len(numbers) + 1)):
        lines.append("%s: the layers must be numbered 1, 2, ... from the bottom, not %s" % (LAYERS_DOC, numbers))
    if len(table.upward) > MAX_UPWARD:
        lines.append("%s: %d upward imports listed; at most %d" % (LAYERS_DOC, len(table.upward), MAX_UPWARD))
    used = set()
    for module in sorted(modules):
        if emulator_of(module):
            continue  # held by the emulator rule, which is stricter
        own = table.layer_of(module) if module else 1  # gpufabric/__init__.py: a docstring, at the bottom
        if own is None:
            lines.append("%s: module %s has no layer in %s (\"Layers\")"
                         % (rel[module], module or "gpufabric", LAYERS_DOC))
            continue
        for target, lineno in sorted(graph[module].items()):
            other = table.layer_of(target)
            if other is None or other <= own:
                continue
            if _home(target) and _home(module) is None:
                continue  # reported as a neutral module importing a home
            listed = table.upward_reason(module, target)
            if listed:
                used.add(listed)
                continue
            lines.append("%s:%d: %s (layer %d) imports %s (layer %d): an import up a layer"
                         % (rel[module], lineno, module or "gpufabric", own, target, other))
    for source, dest in sorted(set(table.upward) - used):
        lines.append("%s: the upward import %s -> %s no longer happens: remove it from the table"
                     % (LAYERS_DOC, source, dest))
    return lines


def offences(root):
    pkg_root = os.path.join(root, *PACKAGE)
    modules, graph, direct = import_graph(pkg_root)
    rel = {m: os.path.relpath(p, root) for m, p in modules.items()}
    lines = []
    packages = package_graph(graph, direct)
    module_cycles = _cycles(graph)
    # A module cycle is reported below; the package cycle it makes is the same offence, not a second one.
    explained = {tuple(sorted({package_of(m) for m in component})) for component in module_cycles}
    for component in _cycles(packages):
        if tuple(component) in explained:
            continue
        members = set(component)
        pairs = ["%s:%d -> %s" % (rel[m], n, t) for p in component
                 for q, (m, n, t) in sorted(packages[p].items()) if q in members]
        lines.append("package cycle between %s (%s)" % (", ".join(component), "; ".join(pairs)))
    for component in module_cycles:
        members = set(component)
        pairs = ["%s:%d -> %s" % (rel[m], graph[m][t], t) for m in component for t in sorted(graph[m])
                 if t in members]
        lines.append("import cycle between %s (%s)" % (", ".join(component), "; ".join(pairs)))
    if os.path.exists(os.path.join(root, LAYERS_DOC)):
        lines += layer_offences(modules, graph, read_layer_table(root), rel)
    for module in sorted(direct):
        own_home = _home(module)
        for target, lineno in sorted(direct[module].items()):
            where = "%s:%d" % (rel[module], lineno)
            target_home = _home(target)
            emulated = emulator_offence(module, target)
            if emulated:
                lines.append("%s: %s" % (where, emulated))
            if emulator_of(module) or emulator_of(target):
                continue
            if target_home and own_home is None:
                lines.append("%s: neutral module %s imports the NOS home %s; go through nos_registry.home()"
                             % (where, module or "gpufabric", target))
            elif target_home and own_home and own_home != target_home:
                lines.append("%s: NOS home %s imports another NOS home %s" % (where, module, target))
            if target.split(".")[0] == "twin" and not _twin_side(module):
                lines.append("%s: %s imports the twin (%s); pass the twin's transport in instead"
                             % (where, module or "gpufabric", target))
    return lines


def report(argv, find, summary):
    """Print each offence ``find(root)`` returns (root from argv or this checkout); 1 with ``summary % count`` when any."""
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    lines = find(root)
    for line in lines:
        print(line)
    if lines:
        print(summary % len(lines), file=sys.stderr)
        return 1
    return 0


def main(argv):
    return report(argv, offences, "check_imports: %d offence(s)")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
