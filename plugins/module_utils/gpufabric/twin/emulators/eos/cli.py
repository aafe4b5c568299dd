"""EOS's configuration CLI as the twin's EOS emulator takes it: the modes, which lines each mode accepts, and the
configuration as a tree of lines (what ``show running-config`` prints, what a configuration session edits).

EOS reads a configuration line in the current mode; a line the mode does not know is tried in the enclosing mode,
and so on up to global configuration, where it may enter a mode of its own (EOS user manual, "Command-Line
Interface", command modes). So napalm's eos driver, which strips the indentation of a startup-config before sending
it (napalm/eos/eos.py ``_load_config``), and a startup-config read from its indented text end in the same tree. A
line no mode on the way up knows is refused as EOS refuses it (``Invalid input``).

Only the subset of EOS's configuration this collection renders (pyavd's eos_cli_config_gen for the 7060X6, docs/eos.md)
and what the factory configuration holds is known here; every known line is kept and shown, and ``translate.py``
says which of them take effect on the twin.
"""
import difflib
import re

from .grammar import GRAMMAR


class CliError(ValueError):
    """A line EOS would refuse: ``message`` as EOS prints it (``Invalid input (at token N: 'x')``)."""


_COMPILED = {mode: [(re.compile(pat + r"\Z"), key, child) for pat, key, child in rules] for mode, rules in GRAMMAR.items()}


class Node:
    """One configuration line and the lines of the mode it enters (``children``, in order)."""
    __slots__ = ("line", "mode", "children")

    def __init__(self, line, mode=None):
        self.line = line
        self.mode = mode
        self.children = []

    def copy(self):
        other = Node(self.line, self.mode)
        other.children = [c.copy() for c in self.children]
        return other


def _rule(mode, line):
    for pattern, key, child in _COMPILED[mode]:
        if pattern.match(line):
            words = (line[3:] if line.startswith("no ") else line).split()
            return (" ".join(words[:key]) if key else line), child
    return None


def _key_of(mode, line):
    found = _rule(mode, line)
    return found[0] if found else None


def _no_form(mode, rest):
    """The key a ``no <rest>`` line removes in ``mode``: the setting ``rest`` names (its words, or a prefix of a
    known line's), or None when the mode knows no such line."""
    found = _rule(mode, rest)
    if found:
        return found[0], found[1]
    for pattern, key, child in _COMPILED[mode]:
        if key and len(rest.split()) == key:
            # "no mtu", "no description": the setting without its value
            probe = rest
            for tail in (" 1", " x", " 1 1", " x x"):
                if pattern.match(probe + tail) or pattern.match(probe + tail.replace("1", "1/1")):
                    return rest, None
    return None


class Config:
    """A whole configuration: the global mode's lines, each with its mode's lines."""

    def __init__(self, root=None):
        self.root = root or Node(None, "global")

    def copy(self):
        return Config(self.root.copy())

    @classmethod
    def parse(cls, text):
        """The configuration of a startup-config or running-config text (indentation ignored: modes decide)."""
        config = cls()
        editor = Editor(config)
        for number, raw in enumerate(text.splitlines(), 1):
            try:
                editor.feed(raw)
            except CliError as exc:
                raise CliError("line %d %r: %s" % (number, raw.strip(), exc))
        return config

    def text(self):
        """``show running-config`` as EOS prints it: each mode's lines indented three spaces more, ``!`` between
        top-level blocks."""
        out = ["! Command: show running-config", "! device: twin (EOS emulator)", "!"]

        def walk(node, depth):
            lines = []
            for child in node.children:
                if child.children:
                    lines.append("   " * depth + "!")    # EOS opens each sub-mode's block with a bang
                lines.append("   " * depth + child.line)
                lines += walk(child, depth + 1)
            return lines

        top = self.root.children
        for index, child in enumerate(top):
            out.append(child.line)
            out += walk(child, 1)
            after = top[index + 1] if index + 1 < len(top) else None
            # one-line settings of the same kind stay together, as EOS prints them (qos map, lldp, ntp ...)
            if after is None or child.children or after.children or after.line.split()[0] != child.line.split()[0]:
                out.append("!")
        out.append("end")
        return "\n".join(out) + "\n"

    def cmds_json(self):
        """``show running-config | json``: EOS's ``cmds`` tree of the lines."""
        def walk(node):
            return {child.line: ({"cmds": walk(child)} if child.children else None) for child in node.children}
        return {"cmds": walk(self.root), "header": ["! device: twin (EOS emulator)"]}

    def find(self, *path):
        """The node at ``path`` (its lines from the global mode down), or None."""
        node = self.root
        for line in path:
            node = next((c for c in node.children if c.line == line), None)
            if node is None:
                return None
        return node

    def blocks(self, prefix):
        return [c for c in self.root.children if c.line.startswith(prefix)]


class Editor:
    """Lines fed one by one into a Config, from global configuration mode, as a CLI session."""

    def __init__(self, config):
        self.config = config
        self.stack = [config.root]

    def feed(self, raw):
        line = " ".join(raw.split())
        if not line or line.startswith("!"):
            return None
        if line in ("exit",):
            if len(self.stack) > 1:
                self.stack.pop()
            return None
        if line == "end":
            self.stack = [self.config.root]
            return "end"
        depth = len(self.stack)
        while depth:
            parent = self.stack[depth - 1]
            if self._apply(parent, line):
                return None
            depth -= 1
        words = line.split()
        raise CliError("Invalid input (at token %d: '%s')" % (self._bad_token(words), words[0] if words else ""))

    @staticmethod
    def _bad_token(words):
        return 0

    def _apply(self, parent, line):
        mode = parent.mode
        found = _rule(mode, line)
        negate = None
        if not found and (line.startswith("no ") or line.startswith("default ")):
            negate = _no_form(mode, line.split(" ", 1)[1])
            if negate is None:
                return False
        elif not found:
            return False
        # the line's mode is the deepest open: close the ones below its parent
        while self.stack[-1] is not parent:
            self.stack.pop()
        if negate:
            key, child = negate
            rest = line.split(" ", 1)[1]
            parent.children = [c for c in parent.children
                               if not (c.line == rest or _key_of(mode, c.line) == key or
                                       (child is None and c.line.startswith(rest + " ")))]
            return True
        key, child = found
        if child:
            node = next((c for c in parent.children if c.line == line), None)
            if node is None:
                node = Node(line, child)
                parent.children.append(node)
            self.stack.append(node)
            return True
        for index, existing in enumerate(parent.children):
            if existing.line == line or (key != line and _key_of(mode, existing.line) == key):
                parent.children[index] = Node(line)
                return True
        parent.children.append(Node(line))
        return True


def diff(before, after, before_name="system:/running-config", after_name="session-config"):
    """``show session-config diffs``: a unified diff of the two configurations' text, as EOS prints it (the file
    names first; the hunks)."""
    lines = list(difflib.unified_diff(before.text().splitlines()[3:], after.text().splitlines()[3:],
                                      before_name, after_name, lineterm="", n=3))
    return "\n".join(lines) + ("\n" if lines else "")


# EOS's factory configuration of a fixed system, as a switch first boots it from the factory (no startup-config:
# EOS loads its defaults and Zero Touch Provisioning runs; the management port takes its address by DHCP): no host
# name (the prompt is "localhost"), the multi-agent routing model of EOS 4.3x, no IP routing, every port a switchport.
FACTORY_CONFIG = """\
! device: localhost (factory default)
!
no aaa root
!
transceiver qsfp default-mode 4x10G
!
service routing protocols model multi-agent
!
spanning-tree mode mstp
!
interface Management1
   ip address dhcp
!
no ip routing
!
end
"""
