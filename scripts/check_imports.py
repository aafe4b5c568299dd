"""The layering rules of plugins/module_utils/gpufabric, checked on the source's AST.

Fails (exit 1, one line per offence) on:
- an import cycle between modules of the package (an import inside a function counts too: it only
  hides the cycle from Python's loader, not from the design);
- a NOS-neutral module that imports a NOS home (``nos/<name>/``); only ``nos/__init__.py``, the
  registry that maps a NOS name to its home, may name them;
- a module outside ``twin/`` (and a NOS home's twin stand-in, ``nos/<name>/twin/``) that imports ``twin/``:
  validation, deploy and the rest must work the same on real switches; the twin hands its transport in;
- a NOS home that imports another NOS home;
- an import cycle between packages (the first directory under gpufabric/, or a NOS home ``nos.<name>``),
  other than those in ``KNOWN_PACKAGE_CYCLES``; an entry there that is no longer a cycle fails too, so the
  list only shrinks.

Usage: python scripts/check_imports.py [root]   (root defaults to this checkout; `make lint` runs it)
"""
import ast
import os
import sys

PACKAGE = ("plugins", "module_utils", "gpufabric")
# Import prefixes that name the package (collection path or relative imports resolved below).
COLLECTION_PREFIX = "ansible_collections.gpucluster.fabric.plugins.module_utils.gpufabric"
# Package cycles still to be split, each with why it exists (docs/architecture.md, "Layers").
KNOWN_PACKAGE_CYCLES = {
    ("structured", "tenants"): "tenants/ holds both the assignment structured/ reads (layer 2) and the change "
                               "and phases that read structured/ (layer 5)",
}


def _modules(pkg_root):
    """{dotted name relative to the package ('' for the package itself): path}."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(pkg_root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), pkg_root)[:-3].split(os.sep)
            if rel[-1] == "__init__":
                rel = rel[:-1]
            found[".".join(rel)] = os.path.join(dirpath, name)
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


def import_graph(pkg_root):
    """(modules, graph, direct): graph[m] = {module m loads: line}, counting the packages Python runs
    on the way (importing a.b.c runs a and a.b); direct[m] only the modules m's imports name."""
    modules = _modules(pkg_root)
    graph, direct = {}, {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), filename=path)
        edges, named = {}, {}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _resolve(module, path, node, modules):
                    for name in _parents(target) + [target]:
                        if name in modules and name != module and not module.startswith(name + ".") \
                                and name != "":
                            edges.setdefault(name, node.lineno)
                    if target and target != module:
                        named.setdefault(target, node.lineno)
        graph[module], direct[module] = edges, named
    return modules, graph, direct


def _home(module):
    """The NOS home a module lives in ('sonic' for nos.sonic.render), '' for the registry, None if neutral."""
    parts = module.split(".")
    if parts[0] != "nos":
        return None
    return parts[1] if len(parts) > 1 else ""


def _twin_side(module):
    """The twin itself, and a NOS home's stand-in for the twin (nos/<name>/twin/), may import twin/."""
    parts = module.split(".")
    return parts[0] == "twin" or (len(parts) > 2 and parts[0] == "nos" and parts[2] == "twin")


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
    a NOS home; '' for a module directly under gpufabric/ that is not a package (a package of its own then)."""
    parts = module.split(".")
    if parts[0] == "nos" and len(parts) > 1:
        return "nos." + parts[1]
    return parts[0]


def package_graph(direct):
    """{package: {package it imports: (module, line, target) of the first such import}}."""
    graph = {}
    for module, targets in direct.items():
        source = package_of(module)
        graph.setdefault(source, {})
        for target, lineno in sorted(targets.items()):
            other = package_of(target)
            if other and other != source:
                graph[source].setdefault(other, (module, lineno, target))
    return graph


def offences(root):
    pkg_root = os.path.join(root, *PACKAGE)
    modules, graph, direct = import_graph(pkg_root)
    rel = {m: os.path.relpath(p, root) for m, p in modules.items()}
    lines = []
    packages = package_graph(direct)
    module_cycles = _cycles(graph)
    # A module cycle is reported below; the package cycle it makes is the same offence, not a second one.
    explained = {tuple(sorted({package_of(m) for m in component})) for component in module_cycles}
    found = set()
    for component in _cycles(packages):
        found.add(tuple(component))
        if tuple(component) in KNOWN_PACKAGE_CYCLES or tuple(component) in explained:
            continue
        members = set(component)
        pairs = ["%s:%d -> %s" % (rel[m], n, t) for p in component
                 for q, (m, n, t) in sorted(packages[p].items()) if q in members]
        lines.append("package cycle between %s (%s)" % (", ".join(component), "; ".join(pairs)))
    for known in sorted(set(KNOWN_PACKAGE_CYCLES) - found):
        if not set(known) <= set(packages):
            continue  # another tree (a test's) without those packages
        lines.append("package cycle %s is gone: remove it from KNOWN_PACKAGE_CYCLES in scripts/check_imports.py"
                     % ", ".join(known))
    for component in module_cycles:
        members = set(component)
        pairs = ["%s:%d -> %s" % (rel[m], graph[m][t], t) for m in component for t in sorted(graph[m])
                 if t in members]
        lines.append("import cycle between %s (%s)" % (", ".join(component), "; ".join(pairs)))
    for module in sorted(direct):
        own_home = _home(module)
        for target, lineno in sorted(direct[module].items()):
            where = "%s:%d" % (rel[module], lineno)
            target_home = _home(target)
            if target_home and own_home is None:
                lines.append("%s: neutral module %s imports the NOS home %s; go through nos.home()"
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
