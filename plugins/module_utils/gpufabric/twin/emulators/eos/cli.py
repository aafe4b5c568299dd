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


class CliError(ValueError):
    """A line EOS would refuse: ``message`` as EOS prints it (``Invalid input (at token N: 'x')``)."""


# mode -> [(pattern, number of leading words naming the setting (None: the whole line), mode the line enters)]
_ANY = r".+"
GRAMMAR = {
    "global": [
        (r"hostname \S+", 1, None),
        (r"service routing protocols model (multi-agent|ribd)", 4, None),
        (r"(no )?ip routing", 2, None),
        (r"(no )?ip routing vrf \S+", None, None),
        (r"ip route( vrf \S+)? \S+ \S+( \d+)?", None, None),
        (r"ip name-server( vrf \S+)? \S+", None, None),
        (r"dns domain \S+", 2, None),
        (r"ip domain lookup( vrf \S+)? source-interface \S+", None, None),
        (r"clock timezone \S+", 2, None),
        (r"lldp (timer|hold-time) \d+", 2, None),
        (r"lldp management-address( vrf)? \S+", None, None),
        (r"(no )?lldp run", 2, None),
        (r"snmp-server " + _ANY, None, None),
        (r"ntp " + _ANY, None, None),
        (r"logging " + _ANY, None, None),
        (r"tacacs-server " + _ANY, None, None),
        (r"ip tacacs( vrf \S+)? source-interface \S+", None, None),
        (r"aaa " + _ANY, None, None),
        (r"username \S+ " + _ANY, 2, None),
        (r"enable password " + _ANY, 2, None),
        (r"spanning-tree mode \S+", 2, None),
        (r"no aaa root", 3, None),
        (r"(no )?zerotouch (cancel|enable)", None, None),
        (r"transceiver qsfp default-mode \S+", 3, None),
        (r"qos map dscp [\d ]+ to traffic-class \d+", None, None),
        (r"qos map traffic-class [\d ]+ to tx-queue \d+", None, None),
        (r"priority-flow-control pause watchdog " + _ANY, None, None),
        (r"platform " + _ANY, None, None),
        (r"ip community-list( standard)? \S+ (permit|deny) .+", None, None),
        (r"ip prefix-list \S+ seq \d+ (permit|deny) \S+( (ge|le) \d+)*", 5, None),
        (r"ip prefix-list \S+", None, "prefix-list"),
        (r"ip access-list standard \S+", None, "acl-std"),
        (r"ip access-list \S+", None, "acl"),
        (r"route-map \S+ (permit|deny) \d+", None, "route-map"),
        (r"route-map \S+", None, "route-map"),
        (r"interface (Ethernet\d+(/\d+)*|Loopback\d+|Management\d+|Vlan\d+|Port-Channel\d+)", None, "interface"),
        (r"vrf instance \S+", None, "vrf"),
        (r"qos profile \S+", None, "qos-profile"),
        (r"router bgp \d+(\.\d+)?", None, "bgp"),
        (r"router general", None, "router-general"),
        (r"management ssh", None, "mgmt-ssh"),
        (r"management api http-commands", None, "mgmt-api"),
        (r"management (console|telnet|security|api gnmi|api models|api netconf)", None, "other"),
        (r"banner (login|motd)", None, "other"),
    ],
    "interface": [
        (r"description .+", 1, None),
        (r"(no )?shutdown", 1, None),
        (r"mtu \d+", 1, None),
        (r"speed( forced)? \S+", 1, None),
        (r"error-correction encoding \S+", 2, None),
        (r"(no )?switchport", 1, None),
        (r"ip address (\S+/\d+|dhcp)", 2, None),
        (r"vrf \S+", 1, None),
        (r"service-profile \S+", 1, None),
        (r"qos trust \S+", 2, None),
        (r"priority-flow-control on", 1, None),
        (r"priority-flow-control priority \d+ (no-)?drop", 3, None),
        (r"ip access-group \S+ (in|out)", None, None),
        (r"(no )?lldp (transmit|receive)", 2, None),
        (r"bfd " + _ANY, None, None),
    ],
    "bgp": [
        (r"router-id \S+", 1, None),
        (r"(no )?bgp default ipv4-unicast", 3, None),
        (r"maximum-paths \d+( ecmp \d+)?", 1, None),
        (r"bgp bestpath as-path multipath-relax", None, None),
        (r"bgp asn notation \S+", 3, None),
        (r"timers bgp \d+ \d+", 2, None),
        (r"distance bgp \d+ \d+ \d+", 2, None),
        (r"graceful-restart( restart-time \d+)?", 1, None),
        (r"bgp log-neighbor-changes", None, None),
        (r"neighbor \S+ peer group", None, None),
        (r"neighbor \S+ peer group \S+", 4, None),
        (r"neighbor \S+ remote-as \d+", 3, None),
        (r"neighbor \S+ description .+", 3, None),
        (r"neighbor \S+ bfd", None, None),
        (r"neighbor \S+ bfd interval \d+ min-rx \d+ multiplier \d+", 4, None),
        (r"neighbor \S+ timers \d+ \d+", 3, None),
        (r"neighbor \S+ send-community( standard| extended| large)*", 3, None),
        (r"neighbor \S+ allowas-in( \d+)?", 3, None),
        (r"neighbor \S+ route-map \S+ (in|out)", None, None),
        (r"neighbor \S+ maximum-routes \d+( warning-limit \d+ percent)?", 3, None),
        (r"neighbor \S+ (password|update-source|ebgp-multihop|next-hop-self|shutdown)( .+)?", 3, None),
        (r"aggregate-address \S+( summary-only)?", 2, None),
        (r"redistribute (connected|static)( include leaked)?( route-map \S+)?", 2, None),
        (r"network \S+( route-map \S+)?", 2, None),
        (r"address-family ipv4", None, "bgp-af"),
        (r"address-family ipv6", None, "bgp-af6"),
        (r"vrf \S+", None, "bgp-vrf"),
    ],
    "bgp-af": [
        (r"(no )?neighbor \S+ activate", 3, None),
        (r"network \S+( route-map \S+)?", 2, None),
        (r"neighbor \S+ route-map \S+ (in|out)", None, None),
    ],
    "bgp-af6": [
        (r"(no )?neighbor \S+ activate", 3, None),
    ],
    "bgp-vrf": [
        (r"router-id \S+", 1, None),
        (r"rd \S+", 1, None),
        (r"route-target (import|export) .+", None, None),
        (r"maximum-paths \d+( ecmp \d+)?", 1, None),
        (r"redistribute (connected|static)( include leaked)?( route-map \S+)?", 2, None),
    ],
    "route-map": [
        (r"description .+", 1, None),
        (r"match ip address prefix-list \S+", 4, None),
        (r"match community \S+", 2, None),
        (r"set as-path prepend( \d+)+", 3, None),
        (r"set community .+", 2, None),
        (r"set local-preference \d+", 2, None),
        (r"continue( \d+)?", 1, None),
    ],
    "prefix-list": [
        (r"seq \d+ (permit|deny) \S+( (ge|le) \d+)*", 2, None),
    ],
    "acl-std": [
        (r"(\d+ )?(permit|deny) \S+", None, None),
        (r"(\d+ )?remark .+", None, None),
    ],
    "acl": [
        (r"(\d+ )?(permit|deny) .+", None, None),
        (r"(\d+ )?remark .+", None, None),
    ],
    "vrf": [(r"description .+", 1, None)],
    "qos-profile": [
        (r"qos trust \S+", 2, None),
        (r"tx-queue \d+", None, "tx-queue"),
    ],
    "tx-queue": [
        (r"(no )?priority( strict)?", 1, None),
        (r"bandwidth (percent|guaranteed) .+", 1, None),
        (r"random-detect ecn .+", 2, None),
        (r"shape rate .+", 2, None),
    ],
    "router-general": [(r"vrf \S+", None, "router-general-vrf")],
    "router-general-vrf": [(r"leak routes source-vrf \S+ subscribe-policy \S+", None, None)],
    "mgmt-ssh": [
        (r"(no )?shutdown", 1, None),
        (r"ip access-group \S+( vrf \S+)? in", None, None),
        (r"idle-timeout \d+", 1, None),
        (r"vrf \S+", None, "mgmt-vrf"),
    ],
    "mgmt-api": [
        (r"(no )?shutdown", 1, None),
        (r"protocol (https|http|unix-socket)( port \d+)?", 2, None),
        (r"vrf \S+", None, "mgmt-vrf"),
    ],
    "mgmt-vrf": [(r"(no )?shutdown", 1, None)],
    "other": [(_ANY, None, None)],
}
PARENT_EXIT = ("exit",)
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
                lines.append("   " * depth + child.line)
                if child.children:
                    lines += walk(child, depth + 1)
                    if depth:
                        lines.append("   " * depth + "!")
            return lines

        for child in self.root.children:
            out.append(child.line)
            if child.children:
                out += walk(child, 1)
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
