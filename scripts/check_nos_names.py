"""No network OS is named outside its home: the text of plugins/, roles/ and playbooks/ checked.

A NOS is a key of ``HOMES`` in plugins/module_utils/gpufabric/nos_registry.py (read from its AST, so a new
home is checked the moment it is registered). The home of NOS ``x`` is
- ``plugins/module_utils/gpufabric/nos/x/`` (its Python home: renderer, schema gate, deploy, collectors, ZTP),
- the twin's emulator of it, ``plugins/module_utils/gpufabric/twin/emulators/x/`` (not the home, but x's alone), and
- its Ansible surface, named after it: a role ``roles/x_*/`` and plugins ``plugins/<type>/x_*``.

Anywhere else, a NOS name (case-insensitive, not preceded by a letter: "sonic", "/etc/sonic", "SONiC's") is an
offence unless the file is in ``ALLOWED`` below, each entry with the reason it may. A home naming another NOS
is an offence too. An ``ALLOWED`` entry that no longer names any NOS is reported as stale, so the list only
shrinks. Neutral code that needs a NOS asks ``nos_registry.home(name)``; neutral text says "the NOS" or points at
docs/architecture.md.

Usage: python scripts/check_nos_names.py [root]   (root defaults to this checkout; `make lint` runs it)
"""
import ast
import os
import re
import sys

import check_imports  # the same report format and exit code (scripts/ is first on sys.path when run as a script)

SCANNED = ("plugins", "roles", "playbooks")
NOS_PACKAGE = "plugins/module_utils/gpufabric/nos/"
# The twin's emulator of NOS x (twin/emulators/x/) is that NOS's too: it may name it (and no other).
EMULATORS = "plugins/module_utils/gpufabric/twin/emulators/"
REGISTRY = "plugins/module_utils/gpufabric/nos_registry.py"

# path (a file, or a directory ending in "/") -> why it may name a NOS. Keep it short: each entry is a
# place where neutral code still knows a NOS by name.
ALLOWED = {
    REGISTRY: "the one place that maps a NOS name to its home (HOMES, DEFAULT_NOS)",
    "plugins/module_utils/gpufabric/data/platforms.yml": "the platform facts, keyed by NOS",
    "plugins/module_utils/gpufabric/data/hardware.yml": "which NOSes a switch model runs (`nos:` lists) and "
                                                        "whose platform files its port names follow",
}


def nos_names(root):
    """The keys of HOMES in the registry."""
    path = os.path.join(root, REGISTRY)
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), filename=path)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "HOMES" for t in node.targets):
            return sorted(ast.literal_eval(node.value))
    raise SystemExit("check_nos_names: no HOMES = {...} in %s" % REGISTRY)


def home_of(rel, names):
    """The NOS whose home ``rel`` (a path relative to the root, with /) is in, or None."""
    parts = rel.split("/")
    for name in names:
        if rel.startswith(NOS_PACKAGE + name + "/") or rel.startswith(EMULATORS + name + "/"):
            return name
        if parts[0] == "roles" and len(parts) > 1 and parts[1].startswith(name + "_"):
            return name
        if parts[0] == "plugins" and len(parts) == 3 and parts[2].startswith(name + "_"):
            return name
    return None


def _allowed(rel):
    return next((entry for entry in ALLOWED if rel == entry or (entry.endswith("/") and rel.startswith(entry))),
                None)


def _files(root):
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
            for name in sorted(filenames):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(dirpath, name)
                yield os.path.relpath(path, root).replace(os.sep, "/"), path


def offences(root):
    names = nos_names(root)
    pattern = re.compile(r"(?<![a-z])(%s)" % "|".join(re.escape(n) for n in names), re.IGNORECASE)
    lines, used = [], set()
    for rel, path in _files(root):
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (UnicodeDecodeError, OSError):
            continue
        own = home_of(rel, names)
        entry = None if own else _allowed(rel)
        for number, line in enumerate(text.splitlines(), 1):
            found = {m.group(1).lower() for m in pattern.finditer(line)} - {own}
            if not found:
                continue
            if entry:
                used.add(entry)
                break
            name = sorted(found)[0]
            where = "the home of %s" % own if own else "a NOS-neutral file"
            lines.append("%s:%d: %s names the NOS %s; move that into nos/%s/ (or roles/%s_*, plugins/*/%s_*) "
                         "or word it without the NOS" % (rel, number, where, name, name, name, name))
            break
    for entry in sorted(set(ALLOWED) - used):
        if os.path.exists(os.path.join(root, entry)):
            lines.append("%s: allowed to name a NOS but names none; remove it from ALLOWED in "
                         "scripts/check_nos_names.py" % entry)
    return lines


def main(argv):
    return check_imports.report(argv, offences, "check_nos_names: %d file(s) name a NOS outside its home")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
