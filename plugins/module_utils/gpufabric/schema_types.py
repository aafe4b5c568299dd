"""A small schema language: each key declared once with its type, default and documentation.

It validates a spec into a plain dict with every default filled in, raising ``SpecError`` with the
key path on the first problem, and it renders the reference documentation (docs/spec.md).
"""
import difflib
import re

from .errors import SpecError

_MISSING = object()


def _type_name(value):
    return {bool: "a boolean", int: "an integer", str: "a string", list: "a list", dict: "a mapping",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


class Node:
    kind = "value"

    def __init__(self, doc, default=None, required=False, example=None):
        self.doc = doc
        self.default = default
        self.required = required
        self.example = example

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

    def __init__(self, doc, minimum=None, **kw):
        super().__init__(doc, **kw)
        self.minimum = minimum

    def validate(self, value, path):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise SpecError(path, "expected a number, got %s %r" % (_type_name(value), value))
        if self.minimum is not None and value < self.minimum:
            raise SpecError(path, "%s is too small: the minimum is %s" % (value, self.minimum))
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
