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
    return indented_json(config_db(cfg)) + "\n"


def indented_json(value, indent=""):
    """The text of ``json.dumps(value, indent=4, sort_keys=True)``, written here because the standard
    library's C encoder does no indenting and its Python one is most of the time of a switch config.
    Strings, nearly every value of a config_db, go through the C string encoder without a call of their own. A row
    of strings (str keys and values) is written once per indent and content (_ROWS): most of a config_db's rows are
    per-port rows that repeat on every port (QUEUE, BUFFER_PG, BUFFER_QUEUE, PORT_QOS_MAP, PFC_WD)."""
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        if not all(isinstance(key, str) for key in value):
            return json.dumps(value, indent=4, sort_keys=True).replace("\n", "\n" + indent)
        inner = indent + "    "
        parts = []
        for key in sorted(value):
            item = value[key]
            if isinstance(item, str):
                text = _string(item)
            elif item.__class__ is dict and item and _STR.issuperset(map(type, item)) \
                    and _STR.issuperset(map(type, item.values())):
                row = (inner,) + tuple(item.items())
                text = _ROWS.get(row)
                if text is None:
                    if len(_ROWS) >= _ROWS_MAX:
                        _ROWS.clear()
                    text = _ROWS[row] = indented_json(item, inner)
            else:
                text = indented_json(item, inner)
            parts.append("%s%s: %s" % (inner, _string(key), text))
        return "{\n%s\n%s}" % (",\n".join(parts), indent)
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = indent + "    "
        return "[\n%s\n%s]" % (",\n".join(inner + (_string(item) if isinstance(item, str) else indented_json(item, inner))
                                          for item in value), indent)
    return json.dumps(value)


_STR = frozenset((str,))
# Text of each row of strings seen, by indent and items (in their order: equal rows built alike share an entry).
# Bounded, so that a build's memory does not grow with the fabric (emptied when full).
_ROWS = {}
_ROWS_MAX = 20000


def frr_conf(cfg):
    return _frr_template().render(cfg=cfg, frr=FRR_DEFAULTS)


def render_device(cfg):
    """{file name: text} for one switch."""
    return {"config_db.json": config_db_json(cfg), "frr.conf": frr_conf(cfg)}
