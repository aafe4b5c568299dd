"""SONiC rendering: config_db.json and frr.conf (split-unified mode) for every switch."""
import functools
import json
import os
from json.encoder import encode_basestring_ascii as _string

from .config_db import config_db

TEMPLATES = os.path.join(os.path.dirname(__file__), "templates")
# What FRR 8.4 uses when a line is absent, and so leaves out of `show running-config` (frr.conf.j2 must
# leave it out too). `frr defaults datacenter` (bgpd/bgp_vty.c: FRR_CFG_DEFAULT_* with profile
# "datacenter") turns on log-neighbor-changes, turns off ebgp-requires-policy and sets timers 3/9.
FRR_DEFAULTS = {"bgp_timers": {"keepalive": 3, "hold": 9}}


@functools.lru_cache(maxsize=1)
def _frr_template():
    # Compiled once per process: a fabric of thousands of switches renders it thousands of times.
    # Imported here, not at the top: Ansible's import sanity test loads module_utils without Jinja2.
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True, undefined=jinja2.StrictUndefined, autoescape=False)
    return env.get_template("frr.conf.j2")


def config_db_json(cfg):
    # The layout `config save` writes, so a diff against a saved device config stays readable.
    return _tables_text(config_db(cfg)) + "\n"


def _tables_text(tables):
    """indented_json(tables) of one config_db, a table equal to the one of that name this process wrote last taking
    that one's text: a fabric's switches of one kind share their per-port QoS tables (QUEUE, BUFFER_PG,
    BUFFER_QUEUE, PORT_QOS_MAP, PFC_WD), two thirds of a 512-port switch's config_db, and comparing two tables
    costs a fraction of writing one. Equal tables write the same text because a config_db's values are strings
    and lists of strings (config_db.py), where Python's equality is JSON's."""
    if not tables or not all(isinstance(name, str) for name in tables):
        return indented_json(tables)
    parts = []
    for name in sorted(tables):
        rows = tables[name]
        last = _LAST_TABLES.get(name)
        if last is None or last[0] != rows:
            last = _LAST_TABLES[name] = rows, indented_json(rows, "    ")
        parts.append("    %s: %s" % (_string(name), last[1]))
    return "{\n%s\n}" % ",\n".join(parts)


# The rows and text of the last table of each name _tables_text wrote (the rows are config_db's own, which nothing
# else holds: they cannot change after their text was written).
_LAST_TABLES = {}


def indented_json(value, indent=""):
    """The text of ``json.dumps(value, indent=4, sort_keys=True)``, written here because the standard
    library's C encoder does no indenting and its Python one is most of the time of a switch config.
    Strings, nearly every value of a config_db, go through the C string encoder without a call of their own, and a
    table of rows of strings (most config_db tables) is written by the C encoder in one call (_rows_text)."""
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        if not all(isinstance(key, str) for key in value):
            return json.dumps(value, indent=4, sort_keys=True).replace("\n", "\n" + indent)
        if all(row.__class__ is dict and _STR.issuperset(map(type, row)) and _STR.issuperset(map(type, row.values()))
               for row in value.values()):
            return _rows_text(value, indent)
        inner = indent + "    "
        return "{\n%s\n%s}" % (",\n".join("%s%s: %s" % (inner, _string(key), indented_json(value[key], inner))
                                          for key in sorted(value)), indent)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = indent + "    "
        return "[\n%s\n%s]" % (",\n".join(inner + (_string(item) if isinstance(item, str) else indented_json(item, inner))
                                          for item in value), indent)
    return json.dumps(value)


def _rows_text(table, indent):
    """indented_json(table, indent) of a non-empty dict (str keys) of dicts of strings. The C encoder writes the rows
    as one list, its item separator carrying the newline and indent of a row's fields; the rows are then cut apart
    where one ends and the next begins: "}", that separator, "{" (no string holds a raw newline: JSON escapes it)."""
    inner, fields = indent + "    ", indent + "        "
    keys = sorted(table)
    separator = ",\n" + fields
    text = json.dumps([table[key] for key in keys], sort_keys=True, separators=(separator, ": "))
    rows = text[2:-2].split("}" + separator + "{")
    return "{\n%s\n%s}" % (",\n".join("%s%s: {\n%s%s\n%s}" % (inner, _string(key), fields, row, inner) if row
                                      else "%s%s: {}" % (inner, _string(key)) for key, row in zip(keys, rows)), indent)


_STR = frozenset((str,))


def frr_conf(cfg):
    return _frr_template().render(cfg=cfg, frr=FRR_DEFAULTS)


def render_device(cfg):
    """{file name: text} for one switch."""
    return {"config_db.json": config_db_json(cfg), "frr.conf": frr_conf(cfg)}
