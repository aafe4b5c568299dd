"""Neutral code runs and parses no NOS's commands: the string constants of plugins/module_utils/gpufabric checked.

A NOS's commands, and those of the routing stack it runs, are its home's (``nos/<name>/``: its collectors, BGP gate
reader, drain lines, tenancy read-back); a switch or server running Linux with FRR, lldpd and iproute2 is read
through the shared helper ``frr_linux/``, which a home chooses to use; the twin (``twin/``) stands in for the
devices and so runs them. Anywhere else in the package, a string constant that is a command to a device
(``COMMAND_WORDS`` below: vtysh, ``ip -j``, lldpcli, a NOS's CLI) is an offence, one line each. Docstrings and
comments are prose, not commands, and are not read. A module in ``ALLOWED`` may, with its reason; an entry that
no longer holds such a string fails too, so the list only shrinks.

Usage: python scripts/check_neutral_commands.py [root]   (root defaults to this checkout; `make lint` runs it)
"""
import ast
import os
import re
import sys

import check_imports  # the same report format and exit code (scripts/ is first on sys.path when run as a script)

PACKAGE = "plugins/module_utils/gpufabric/"
# Where device commands belong (a path under the package, a directory ending in "/").
HOMES = ("nos/", "twin/", "frr_linux/")
COMMAND_WORDS = re.compile(r"(?<![\w-])(vtysh|lldpcli|ip -j|ip netns|sonic-cfggen|config_db|nv (?:config|show|set)|"
                           r"show (?:bgp|ip|running|runningconfiguration|interfaces?|qos)\b|mlnx_qos)(?![\w-])")
# module path under the package -> why it may.
ALLOWED = {
    "server/": "a GPU server's own modules (ansible modules run them on the server, which runs Linux by design: "
               "render/linux_host*): the RoCE, routing and firmware steps read the host itself",
    "render/linux_host.py": "a GPU server's boot-time RoCE unit (the server runs Linux by design): it sets the NIC's "
                            "trust and PFC with the NIC's own tool",
}


def _docstrings(tree):
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def commands_in(path):
    """[(line, word)] of the device commands in the string constants of the Python file ``path``."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), filename=path)
    prose = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            match = COMMAND_WORDS.search(node.value)
            if match:
                found.append((node.lineno, node.col_offset, match.group(1)))
    return [(line, word) for line, _col, word in sorted(found)]


def _allowed(rel):
    return next((entry for entry in ALLOWED if rel == entry or (entry.endswith("/") and rel.startswith(entry))), None)


def offences(root):
    base = os.path.join(root, PACKAGE)
    lines, used = [], set()
    for path, rel in check_imports.python_files(base):
        if rel.startswith(HOMES):
            continue
        found = commands_in(path)
        allowed = _allowed(rel)
        if allowed and found:
            used.add(allowed)
            continue
        for lineno, word in found:
            lines.append("%s%s:%d: neutral code names the device command %r; it belongs to a NOS home (or "
                         "frr_linux/, which homes choose to use)" % (PACKAGE, rel, lineno, word))
    if os.path.isdir(base):
        for entry in sorted(set(ALLOWED) - used):
            lines.append("scripts/check_neutral_commands.py: ALLOWED entry %s names no device command any more: "
                         "remove it" % entry)
    return lines


def main(argv):
    return check_imports.report(argv, offences, "check_neutral_commands: %d offence(s)")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
