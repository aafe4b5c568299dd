"""The NOS's own schema as a gate: every startup.yaml checked against NVIDIA's NVUE object model for the
chosen Cumulus Linux release, before the build writes it and again before a deploy sends it.

The models are the `nvueschema` package's Pydantic classes, generated from NVIDIA's NVUE OpenAPI
document of each release (5.0 to 5.18 in nvueschema 0.1.0). They are used strictly: no coercion (a
string "9216" is not the integer 9216, "on" is not true) and no key the model does not declare
(generated models ignore unknown keys unless told otherwise, which would let a misspelt key through).
Documents read from disk are parsed as YAML 1.2, where only true/false are booleans: NVUE's `on`/`off`
stay strings, as NVUE itself reads them. The Go validator of `nvueschema-binary` needs NVIDIA's OpenAPI
file, which it downloads (a build must not depend on the network), so it is not used here.
"""
import functools
import importlib
import json
import typing

from ... import nos_registry as _nos
from ...errors import SpecError

# The release a spec without switch_config.cumulus_release gets (declared in spec_keys.json).
DEFAULT_RELEASE = _nos.switch_config_keys()["cumulus_release"].default
PACKAGE = "nvueschema"
# Problems named in the error's message; all of them are in ``problems``.
SHOWN = 5


class NvueSchemaError(SpecError):
    """Rendered NVUE documents that NVIDIA's object model rejects: nothing is written or sent."""

    def __init__(self, problems, release):
        self.problems = list(problems)
        more = len(self.problems) - SHOWN
        super().__init__("", "%d problem(s) against the NVUE object model of Cumulus Linux %s: %s%s" % (
            len(self.problems), release, "; ".join(self.problems[:SHOWN]),
            "; and %d more" % more if more > 0 else ""))


def releases():
    """The Cumulus Linux releases whose NVUE model is installed, oldest first."""
    try:
        from nvueschema.models._versions import VERSIONS
    except ImportError:
        return ()
    return tuple(VERSIONS)


def check_release(release, key="switch_config.cumulus_release"):
    known = releases()
    if not known:
        raise SpecError(key, "the NVUE models are not installed: pip install %s==0.1.0 (requirements.txt)" % PACKAGE)
    if release not in known:
        raise SpecError(key, "no NVUE object model for Cumulus Linux %r; the installed %s covers %s: choose one of "
                        "those" % (release, PACKAGE, ", ".join(known)))


@functools.lru_cache(maxsize=None)
def _models(release):
    """(module, root model, header model) of ``release``, made strict: every class forbids keys it does not
    declare. The generated classes are changed in place, once per process (nothing else here uses them)."""
    from pydantic import BaseModel

    check_release(release)
    module = importlib.import_module("nvueschema.models.v" + release.replace(".", "_"))
    classes = [c for c in vars(module).values()
               if isinstance(c, type) and issubclass(c, BaseModel) and c.__module__ == module.__name__]
    for cls in classes:
        cls.model_config["extra"] = "forbid"
    for cls in classes:  # in the module's order: children first, so a parent is built on strict children
        cls.model_rebuild(force=True)
    return module, module.NvueConfig, module.NvueConfigHeader


def preload(release=DEFAULT_RELEASE):
    """Build ``release``'s strict models now (about 1.4 s on a 2-core machine), in a process that forks workers
    afterwards, so that each fork finds them built. False when the models are not installed."""
    if release not in releases():
        return False
    _models(release)
    return True


# --- the field type, as NVIDIA's schema states it -------------------------------------------------


def _unwrap(annotation):
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _members(annotation):
    """The non-None alternatives of a (nested) Optional/Union annotation."""
    if typing.get_origin(annotation) is typing.Union:
        out = []
        for arg in typing.get_args(annotation):
            out.extend(_members(arg))
        return out
    return [] if annotation is type(None) else [annotation]


def _bounds(annotation):
    lo = hi = pattern = None
    for meta in getattr(annotation, "__metadata__", ()):
        for item in getattr(meta, "metadata", ()) or ():
            lo = getattr(item, "ge", lo)
            hi = getattr(item, "le", hi)
            pattern = getattr(item, "pattern", pattern)
        func = getattr(meta, "func", None)
        keywords = getattr(func, "keywords", None) or {}
        if "max_length" in keywords:
            hi = keywords.get("max_length")
            lo = keywords.get("min_length", 0)
        pattern = keywords.get("pattern", pattern) or pattern
    return lo, hi, pattern


def type_text(annotation):
    """NVIDIA's type of a field in words: "integer 552..9216", "one of 'on', 'off'", "IPv4 address"..."""
    import ipaddress

    from pydantic import BaseModel

    words = []
    for member in _members(annotation):
        base = _unwrap(member)
        lo, hi, pattern = _bounds(member)
        if typing.get_origin(base) is typing.Literal:
            words.append("one of " + ", ".join(repr(v) for v in typing.get_args(base)))
        elif base is bool:
            words.append("boolean")
        elif base is int or base is float:
            name = "integer" if base is int else "number"
            words.append(name + (" %s..%s" % ("" if lo is None else lo, "" if hi is None else hi)
                                 if lo is not None or hi is not None else ""))
        elif base is str:
            text = "string"
            if hi is not None:
                text += " of %d..%d characters" % (lo or 0, hi)
            if pattern:
                text += " matching %s" % pattern
            words.append(text)
        elif base in (ipaddress.IPv4Address, ipaddress.IPv6Address):
            words.append("%s address" % base.__name__[:4])
        elif base in (ipaddress.IPv4Network, ipaddress.IPv6Network):
            words.append("%s prefix" % base.__name__[:4])
        elif typing.get_origin(base) is dict:
            words.append("map")
        elif isinstance(base, type) and issubclass(base, BaseModel):
            words.append("object")
        else:
            words.append(getattr(base, "__name__", str(base)))
    return " or ".join(dict.fromkeys(words)) or "null"


def _model_in(annotation):
    """The model class or ('map', value annotation) an annotation leads to, else None."""
    from pydantic import BaseModel

    for member in _members(annotation):
        base = _unwrap(member)
        if isinstance(base, type) and issubclass(base, BaseModel):
            return base
        if typing.get_origin(base) is dict:
            return ("map", typing.get_args(base)[1])
    return None


def _schema_path(cls):
    doc = (cls.__doc__ or "").strip().splitlines()
    line = next((s.strip() for s in doc if s.strip().startswith("Path: ")), "")
    return line[len("Path: "):] or cls.__name__


def describe(root, loc):
    """(the keys of the document's path, NVIDIA's path of the object holding the field, the field's name,
    its type in words) for a pydantic error location, whose keys are the document's own (aliases, and map
    entries' names) followed, for a union, by the name of the member that failed."""
    owner, cls, field, annotation, entry = root, root, None, None, None
    path = []
    for key in (str(k) for k in loc if isinstance(k, (str, int))):
        if entry is None and cls is None:  # past a leaf: what pydantic adds names a member of a union
            break
        path.append(key)
        if entry is not None:  # the name of a map's entry; what follows is inside the entry's value
            annotation, inner, entry = entry, _model_in(entry), None
            if isinstance(inner, tuple):
                entry = inner[1]
            cls = inner if isinstance(inner, type) else None
            continue
        fields = {(f.alias or n): f for n, f in cls.model_fields.items()}
        if key not in fields:
            return path, _schema_path(cls), key, "not in the model (it has %s)" % ", ".join(sorted(fields))
        owner, field, annotation = cls, key, fields[key].annotation
        nxt = _model_in(annotation)
        cls, entry = (None, nxt[1]) if isinstance(nxt, tuple) else (nxt, None)
    return path, _schema_path(owner), field, type_text(annotation)


# --- validation ------------------------------------------------------------------------------------


def problems(documents, hostname, release=DEFAULT_RELEASE, source="startup.yaml"):
    """[] or one line per schema violation of a startup.yaml's documents (a list of {header:} / {set:}),
    each naming the switch, the path in the document and NVIDIA's field type."""
    from pydantic import ValidationError

    _module, root, header = _models(release)
    out = []
    if not isinstance(documents, list):
        return ["%s: %s: a list of `- header:` / `- set:` documents expected, got %s"
                % (hostname, source, type(documents).__name__)]
    for n, document in enumerate(documents):
        if not isinstance(document, dict) or len(document) != 1 or next(iter(document)) not in ("header", "set"):
            out.append("%s: %s document %d: one key, `header` or `set`, expected" % (hostname, source, n + 1))
            continue
        (kind, body), = document.items()
        model = header if kind == "header" else root
        try:
            model.model_validate_json(json.dumps(body), strict=True)
        except ValidationError as exc:
            found = {}  # a union's members fail one by one: one line per path, their messages joined
            for err in exc.errors():
                path, obj, field, expected = describe(model, err["loc"])
                key = tuple(path)
                if key in found:
                    found[key][-1].append(err["msg"])
                    continue
                value = err.get("input")
                shown = json.dumps(value)[:60] if not isinstance(value, (dict, list)) else "{...}"
                found[key] = [".".join([kind] + path), shown, obj, field, expected, [err["msg"]]]
            for where, shown, obj, field, expected, messages in found.values():
                out.append("%s: %s %s = %s: NVUE %s %s field %r is %s (%s)" % (
                    hostname, source, where, shown, release, obj, field, expected, "; ".join(messages)))
        except ValueError as exc:
            out.append("%s: %s %s: not JSON-compatible data (%s)" % (hostname, source, kind, exc))
    return out


def validate_many(startups, release=DEFAULT_RELEASE):
    """Every switch's startup documents ({hostname: documents}) checked; [] or the problems."""
    out = []
    for hostname, documents in startups.items():
        out.extend(problems(documents, hostname, release))
    return out


def _yaml12_loader():
    import yaml

    class Yaml12Loader(yaml.SafeLoader):
        """PyYAML's safe loader with YAML 1.2's booleans: only true/false, so NVUE's on/off/yes/no stay strings."""

    resolvers = {}
    for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items():
        resolvers[first] = [(tag, rx) for tag, rx in entries if tag != "tag:yaml.org,2002:bool"]
    Yaml12Loader.yaml_implicit_resolvers = resolvers
    import re
    Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                       list("tTfF"))
    return Yaml12Loader


@functools.lru_cache(maxsize=1)
def _loader():
    return _yaml12_loader()


def load_startup(text):
    """A startup.yaml's documents, read with YAML 1.2 booleans."""
    import yaml

    return yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader subclass
