"""Small rooms: every module of plugins/module_utils/gpufabric at or under MAX_MODULE_LINES lines and every function
at or under MAX_FUNCTION_LINES, unless docs/architecture.md ("Small rooms") names it with the reason.

That section's table is data read here: a row names a module (``build.py``) or a function (``build.py:write_build``),
its lines, and why it is larger. A module or function over its limit that the table does not name fails, one line
each; so does one that grew past the lines its row says, and a row naming one that is no longer over (the list only
shrinks) or that does not exist.

Usage: python scripts/check_sizes.py [root]   (root defaults to this checkout; `make lint` runs it)
"""
import ast
import os
import re
import sys

import check_imports  # the same report format and exit code (scripts/ is first on sys.path when run as a script)

PACKAGE = "plugins/module_utils/gpufabric/"
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60
HEADING = "## Small rooms"


def sizes(root):
    """{"path": lines, "path:function": lines} of what is over its limit (a method is ``path:Class.method``)."""
    base = os.path.join(root, PACKAGE)
    out = {}
    for path, rel in check_imports.python_files(base):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            out[rel] = lines
        out.update(_functions(ast.parse(text, filename=path), rel))
    return out


def _functions(tree, rel, prefix=""):
    out = {}
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                out["%s:%s%s" % (rel, prefix, node.name)] = length
            out.update(_functions(node, rel, prefix + node.name + "."))
        elif isinstance(node, ast.ClassDef):
            out.update(_functions(node, rel, prefix + node.name + "."))
    return out


def allowed(root):
    """{entry: (lines, why)} of the "Small rooms" table of docs/architecture.md."""
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as handle:
        text = handle.read()
    if HEADING + "\n" not in text:
        return {}
    section = text.split(HEADING + "\n", 1)[1].split("\n## ", 1)[0]
    out = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
        names = re.findall(r"`([^`]+)`", cells[0]) if cells else []
        if len(names) == 1 and len(cells) >= 3 and cells[1].isdigit() and cells[-1]:
            out[names[0]] = (int(cells[1]), cells[-1])
    return out


def offences(root):
    found, listed = sizes(root), allowed(root)
    lines = []
    for entry, length in sorted(found.items()):
        if entry in listed and length > listed[entry][0]:
            lines.append("%s%s: grew to %d lines, past the %d docs/architecture.md (\"Small rooms\") allows"
                         % (PACKAGE, entry, length, listed[entry][0]))
        if entry not in listed:
            limit = MAX_FUNCTION_LINES if ":" in entry else MAX_MODULE_LINES
            kind = "function" if ":" in entry else "module"
            lines.append("%s%s: %s of %d lines (at most %d): split it, or say why in docs/architecture.md "
                         "(\"Small rooms\")" % (PACKAGE, entry, kind, length, limit))
    for entry in sorted(set(listed) - set(found)):
        lines.append("docs/architecture.md (\"Small rooms\"): %s is not over its limit (or gone): remove it" % entry)
    return lines


def main(argv):
    return check_imports.report(argv, offences, "check_sizes: %d offence(s)")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
