"""YANG validation of SONiC config_db documents, as the Generic Config Updater does before `config replace`.

    models = load("/usr/local/yang-models")       # once per process; a copy of a switch's models dir
    problems = validate(models, config_db, "leaf-1")  # [] when valid, else messages naming table/key/field

One libyang context serves every switch: the per-switch cost is building and parsing one document.
"""
import logging
import re

from .instance import Unmapped, to_xml
from .models import ModelsError, libyang, load

__all__ = ["ModelsError", "load", "validate", "validate_many"]

_LOCATION = re.compile(r'(?:Data|Schema) location "([^"]+)"')
_STEP = re.compile(r"([^/\[]+)((?:\[[^\]]*\])*)")
_PREDICATE = re.compile(r"\[[^=\]]+='([^']*)'\]")
_configured = []


def _route_errors_with_paths():
    # libyang stores the data path of an error only when its log callback asks for paths.
    if not _configured:
        libyang.configure_logging(True, logging.ERROR)
        _configured.append(True)


def _where(path):
    """'/sonic-port:sonic-port/PORT/PORT_LIST[name='Ethernet0']/speed' -> ('PORT', 'Ethernet0', 'speed')."""
    steps = [(name, _PREDICATE.findall(predicates)) for name, predicates in _STEP.findall(path.split(":", 1)[-1])]
    steps = steps[1:]  # the module's top container
    table = steps[0][0] if steps else None
    key = ("|".join(steps[1][1]) or steps[1][0]) if len(steps) > 1 else None
    field = "/".join("%s[%s]" % (name, "|".join(values)) if values else name for name, values in steps[2:])
    return table, key, field or None


def _expectation(models, path):
    """What a leafref leaf must name, from its schema node: the part of the rule libyang leaves out."""
    schema_path = re.sub(r"\[[^\]]*\]", "", path)
    try:
        node = next(iter(models.context.find_path(schema_path)), None)
    except libyang.LibyangError:
        return ""
    if node is None or node.nodetype() not in (libyang.SNode.LEAF, libyang.SNode.LEAFLIST):
        return ""
    kind = node.type()
    targets = [kind] if kind.basename() == "leafref" else \
        [t for t in kind.union_types() if t.basename() == "leafref"] if kind.basename() == "union" else []
    paths = [t.leafref_path() for t in targets if t.leafref_path()]
    return " (must name an existing %s)" % " or ".join(paths) if paths else ""


def _message(device, table, key, field, rule):
    where = "/".join(p for p in (table, key, field) if p)
    return "%s: %s: %s" % (device, where or "config_db", rule)


def _libyang_message(models, device, error):
    text = str(error).replace("failed to parse data tree: ", "")
    match = _LOCATION.search(text)
    rule = _LOCATION.sub("", re.sub(r",? ?line number \d+", "", text)).strip(" :.")
    if not match:
        return _message(device, None, None, None, rule)
    if "no target instance" not in rule:
        rule += _expectation(models, match.group(1))
    return _message(device, *_where(match.group(1)), rule=rule)


def validate(models, config, device="config_db"):
    """Problems of one config_db dict against the models, each naming device, table, key, field and rule.

    libyang stops at the first invalid node, so a broken document gives one message; fix it and rerun."""
    try:
        document = to_xml(models, config)
    except Unmapped as e:
        return [_message(device, e.table, e.key, e.field, e.rule)]
    _route_errors_with_paths()
    try:
        tree = models.context.parse_data_mem(document, "xml", strict=True, no_state=True)
    except libyang.LibyangError as e:
        return [_libyang_message(models, device, e)]
    if tree is not None:
        tree.free()
    return []


def validate_many(models_dir, configs):
    """{device: config_db} -> sorted problems of all devices, one libyang context for the lot."""
    models = load(models_dir)
    problems = []
    for device in sorted(configs):
        problems.extend(validate(models, configs[device], device))
    return problems
