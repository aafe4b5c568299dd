"""A small schema language: each key declared once with its type, default and documentation.

It validates a spec into a plain dict with every default filled in, raising ``SpecError`` with the
key path on the first problem, and it renders the reference documentation (docs/spec.md).
"""
import difflib
import ipaddress
import re

from .errors import SpecError

_MISSING = object()


def _type_name(value):
    return {bool: "a boolean", int: "an integer", str: "a string", list: "a list", dict: "a mapping",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


class Node:
    kind = "value"

    def __init__(self, doc, default=None, required=False, example=None, omit=False):
        self.doc = doc
        self.default = default
        self.required = required
        self.example = example
        # omit: an unset key is left out of the validated dict (readers use .get), so a key added
        # later changes nothing for a spec that does not write it (plan.json stays byte for byte).
        self.omit = omit

    def validate(self, value, path):
        raise NotImplementedError

    def default_value(self, path):
        return self.default

    def describe_default(self):
        return "required" if self.required else ("-" if self.default is None else "`%s`" % (self.default,))


class Str(Node):
    kind = "string"

    def __init__(self, doc, pattern=None, hint=None, **kw):
        super().__init__(doc, **kw)
        self.pattern = re.compile(pattern) if pattern else None
        self.hint = hint

    def validate(self, value, path):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and self.pattern is None:
            value = str(value)
        if not isinstance(value, str):
            raise SpecError(path, "expected a string, got %s %r" % (_type_name(value), value))
        if self.pattern and not self.pattern.match(value):
            raise SpecError(path, "%r is not valid: %s" % (value, self.hint or "must match %s" % self.pattern.pattern))
        return value


_PRIVATE_V4 = "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 or 100.64.0.0/10"


def _not_usable(net):
    """Why a network cannot hold device addresses, or None."""
    for attr, why in (("is_unspecified", "the unspecified address"), ("is_loopback", "loopback"),
                      ("is_multicast", "multicast"), ("is_link_local", "link-local"), ("is_reserved", "reserved")):
        if getattr(net, attr):
            return why
    return None


class Net(Str):
    """A network in CIDR form of one address family, usable for device addresses (IPv4: private)."""

    def __init__(self, doc, version=4, **kw):
        super().__init__(doc, **kw)
        self.version = version
        self.kind = "IPv%d network" % version

    def sample(self):
        return "10.0.0.0/16" if self.version == 4 else "fd00:0:0:1::/64"

    def validate(self, value, path):
        value = super().validate(value, path)
        try:
            net = ipaddress.ip_network(value, strict=False)
        except ValueError:
            raise SpecError(path, "%r is not a network in CIDR form: write ADDRESS/PREFIX, e.g. %s" % (value, self.sample()))
        if "/" not in value:
            raise SpecError(path, "%r has no prefix length: write ADDRESS/PREFIX, e.g. %s" % (value, self.sample()))
        if net.version != self.version:
            raise SpecError(path, "%r is an IPv%d network; this pool is IPv%d: write one like %s"
                            % (value, net.version, self.version, self.sample()))
        if ipaddress.ip_interface(value).ip != net.network_address:
            raise SpecError(path, "%r has host bits set: the network is %s" % (value, net))
        why = _not_usable(net)
        if why:
            raise SpecError(path, "%r is %s, not for device addresses: use %s" % (
                value, why, _PRIVATE_V4 if self.version == 4 else "a unique local (fd00::/8) or your global prefix"))
        if self.version == 4 and net.is_global:
            raise SpecError(path, "%r is a public range: use a private one (%s)" % (value, _PRIVATE_V4))
        return value


class Addr(Str):
    """An IPv4 address (a server the switches reach by address: NTP, syslog, TACACS+, DHCP)."""

    kind = "IPv4 address"

    def validate(self, value, path):
        value = super().validate(value, path)
        try:
            addr = ipaddress.ip_address(value)
        except ValueError:
            if re.match(r"^[A-Za-z0-9.-]+$", value) and re.search(r"[A-Za-z]", value):
                raise SpecError(path, "%r is a host name: an IPv4 address is needed here (the switch "
                                "configuration names servers by address)" % value)
            raise SpecError(path, "%r is not an IPv4 address: write one like 192.0.2.10" % value)
        if addr.version != 4:
            raise SpecError(path, "%r is an IPv6 address: an IPv4 address is needed here" % value)
        why = _not_usable(ipaddress.ip_network(value))
        if why:
            raise SpecError(path, "%r is %s: give the server's own address" % (value, why))
        return value


# Private-use ASNs (RFC 6996).
PRIVATE_ASNS = ((64512, 65534), (4200000000, 4294967294))


class AsnRange(Str):
    """``FIRST-LAST``: a range of private ASNs, inside one of the RFC 6996 blocks."""

    kind = "ASN range"

    def validate(self, value, path):
        value = super().validate(value, path)
        match = re.match(r"^\s*(\d+)\s*-\s*(\d+)\s*$", value)
        blocks = " or ".join("%d-%d" % b for b in PRIVATE_ASNS)
        if not match:
            raise SpecError(path, "%r: write it as FIRST-LAST, e.g. 64512-65534" % value)
        first, last = int(match.group(1)), int(match.group(2))
        if first > last:
            raise SpecError(path, "%r: FIRST is above LAST: write %d-%d" % (value, last, first))
        if not any(lo <= first and last <= hi for lo, hi in PRIVATE_ASNS):
            raise SpecError(path, "%r is not within one private ASN block: use a range inside %s (RFC 6996)"
                            % (value, blocks))
        return value


class Int(Node):
    kind = "integer"

    def __init__(self, doc, minimum=None, maximum=None, **kw):
        super().__init__(doc, **kw)
        self.minimum = minimum
        self.maximum = maximum

    def validate(self, value, path):
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(path, "expected an integer, got %s %r" % (_type_name(value), value))
        if self.minimum is not None and value < self.minimum:
            raise SpecError(path, "%d is too small: the minimum is %d" % (value, self.minimum))
        if self.maximum is not None and value > self.maximum:
            raise SpecError(path, "%d is too large: the maximum is %d" % (value, self.maximum))
        return value


class Num(Node):
    kind = "number"

    def __init__(self, doc, minimum=None, maximum=None, **kw):
        super().__init__(doc, **kw)
        self.minimum = minimum
        self.maximum = maximum

    def validate(self, value, path):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SpecError(path, "expected a number, got %s %r" % (_type_name(value), value))
        if self.minimum is not None and value < self.minimum:
            raise SpecError(path, "%s is too small: the minimum is %s" % (value, self.minimum))
        if self.maximum is not None and value > self.maximum:
            raise SpecError(path, "%s is too large: the maximum is %s" % (value, self.maximum))
        return value


class Bool(Node):
    kind = "boolean"

    def validate(self, value, path):
        if not isinstance(value, bool):
            raise SpecError(path, "expected true or false, got %s %r" % (_type_name(value), value))
        return value


class Choice(Node):
    kind = "choice"

    def __init__(self, doc, choices, **kw):
        super().__init__(doc, **kw)
        self.choices = choices

    def validate(self, value, path):
        if value not in self.choices:
            near = difflib.get_close_matches(str(value), self.choices, n=1)
            raise SpecError(path, "%r is not one of %s%s" % (
                value, ", ".join(self.choices), "; did you mean %r?" % near[0] if near else ""))
        return value

    def describe_default(self):
        return super().describe_default() + "<br>one of: " + ", ".join("`%s`" % c for c in self.choices)


class List(Node):
    kind = "list"

    def __init__(self, doc, item, **kw):
        super().__init__(doc, **kw)
        self.item = item

    def validate(self, value, path):
        if not isinstance(value, list):
            raise SpecError(path, "expected a list, got %s %r" % (_type_name(value), value))
        return [self.item.validate(v, "%s[%d]" % (path, i)) for i, v in enumerate(value)]

    def default_value(self, path):
        return list(self.default) if self.default is not None else None


class Section(Node):
    """A mapping with declared keys. Unknown keys are errors, with the closest known key suggested."""

    kind = "mapping"

    def __init__(self, doc, fields, **kw):
        super().__init__(doc, **kw)
        self.fields = fields

    def validate(self, value, path):
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise SpecError(path or "spec", "expected a mapping, got %s %r" % (_type_name(value), value))
        for key in value:
            if key not in self.fields:
                near = difflib.get_close_matches(str(key), list(self.fields), n=1)
                raise SpecError(_join(path, key), "unknown key%s; known keys here: %s" % (
                    "; did you mean %r?" % near[0] if near else "", ", ".join(self.fields)))
        out = {}
        for key, node in self.fields.items():
            sub = _join(path, key)
            if key in value and value[key] is not None:
                out[key] = node.validate(value[key], sub)
            elif node.required:
                raise SpecError(sub, "missing required key (%s)" % node.doc.split(".")[0].lower())
            elif node.omit:
                continue
            else:
                out[key] = node.default_value(sub)
        return out

    def default_value(self, path):
        if self.default is _MISSING:
            return None
        return self.validate({}, path)


class Optional(Section):
    """A section that is absent (None) unless the spec writes it; present, its keys are checked."""

    def __init__(self, doc, fields, **kw):
        super().__init__(doc, fields, default=_MISSING, **kw)

    def describe_default(self):
        return "absent"


class MapOf(Node):
    """A mapping from user-chosen names to values of one schema (custom hardware models)."""

    kind = "mapping of name to"

    def __init__(self, doc, value, **kw):
        super().__init__(doc, **kw)
        self.value = value

    def validate(self, value, path):
        if not isinstance(value, dict):
            raise SpecError(path, "expected a mapping of names, got %s %r" % (_type_name(value), value))
        return {str(k): self.value.validate(v, _join(path, k)) for k, v in value.items()}

    def default_value(self, path):
        return {}


def _join(path, key):
    return "%s.%s" % (path, key) if path else str(key)


def walk(node, path=""):
    """Yield (path, node) for every declared key, depth first, in declaration order."""
    if isinstance(node, Section):
        for key, sub in node.fields.items():
            p = _join(path, key)
            yield p, sub
            yield from walk(sub, p)
    elif isinstance(node, MapOf):
        p = _join(path, "<name>")
        yield p, node.value
        yield from walk(node.value, p)
    elif isinstance(node, List) and isinstance(node.item, Section):
        yield from walk(node.item, path + "[]")


def to_markdown(root, title, intro):
    lines = ["# %s" % title, "", intro, "",
             "| key | type | default | description |", "|---|---|---|---|"]
    for path, node in walk(root):
        kind = node.kind if not isinstance(node, List) else "list of %s" % node.item.kind
        lines.append("| `%s` | %s | %s | %s |" % (path, kind, node.describe_default(), node.doc.replace("|", "\\|")))
    return "\n".join(lines) + "\n"


_NET_PATTERN = {4: r"^\d{1,3}(\.\d{1,3}){3}/\d{1,2}$", 6: r"^[0-9a-fA-F:]+/\d{1,3}$"}


def json_schema(node):
    """The JSON Schema (draft 2020-12) of a node: what editors validate and complete with. The values
    checks it cannot express (private ranges, relations between keys) stay in ``validate``."""
    out = {"description": node.doc}
    if node.default is not None and node.default is not _MISSING and not isinstance(node, Section):
        out["default"] = node.default
    if isinstance(node, Section):
        out.update(type=["object", "null"], additionalProperties=False,
                   properties={key: json_schema(sub) for key, sub in node.fields.items()})
        required = [key for key, sub in node.fields.items() if sub.required]
        if required:
            out["required"] = required
    elif isinstance(node, MapOf):
        out.update(type="object", additionalProperties=json_schema(node.value))
    elif isinstance(node, List):
        out.update(type="array", items=json_schema(node.item))
    elif isinstance(node, Choice):
        out["enum"] = list(node.choices)
    elif isinstance(node, Bool):
        out["type"] = "boolean"
    elif isinstance(node, Int):
        out["type"] = "integer"
        if node.minimum is not None:
            out["minimum"] = node.minimum
        if node.maximum is not None:
            out["maximum"] = node.maximum
    elif isinstance(node, Num):
        out["type"] = "number"
        if node.minimum is not None:
            out["minimum"] = node.minimum
        if node.maximum is not None:
            out["maximum"] = node.maximum
    elif isinstance(node, Net):
        out.update(type="string", pattern=_NET_PATTERN[node.version])
    elif isinstance(node, Addr):
        out.update(type="string", format="ipv4")
    elif isinstance(node, AsnRange):
        out.update(type="string", pattern=r"^\s*\d+\s*-\s*\d+\s*$")
    elif isinstance(node, Str):
        out["type"] = "string"
        if node.pattern is not None:
            out["pattern"] = node.pattern.pattern
    return out
