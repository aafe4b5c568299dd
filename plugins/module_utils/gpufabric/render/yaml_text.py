"""A fast block-style YAML writer for plain data (dict, list, str, int, float, bool, None).

PyYAML's dumper, even with libyaml, spends ~6 ms per structured config; a fabric of thousands of
switches would spend most of its build there. Strings that YAML would read as something else (or
that need escaping) are written as JSON strings, which are valid YAML double-quoted scalars, so
``yaml.safe_load(dump(x)) == x`` holds (the unit tests check it).
"""
import json
import re

# Strings safe unquoted in block context: start with a letter, digit or one of ./_, no ": " or " #".
_PLAIN = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./@()+, -]*$")
# What YAML 1.1 (PyYAML's resolver) would read as a bool, null, number or timestamp.
_TYPED = re.compile(r"^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
                    r"|null|Null|NULL|~|[-+]?[0-9_.:eE]+|\.inf|\.nan|[0-9]{4}-[0-9]{2}-[0-9]{2}.*)$")


# Spelling of each string seen; hostnames and port names repeat across thousands of files. Bounded, so that a
# build's memory does not grow with the fabric (it is emptied when full).
_SPELLING = {}
_SPELLING_MAX = 100000


def _scalar(value):
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # repr is the shortest text that reads back as the same float (finite values only here)
        return repr(value)
    text = _SPELLING.get(value)
    if text is None:
        if len(_SPELLING) >= _SPELLING_MAX:
            _SPELLING.clear()
        plain = _PLAIN.match(value) and not _TYPED.match(value) and not value.endswith(" ")
        text = _SPELLING[value] = value if plain else json.dumps(value)
    return text


def _emit(value, indent, out):
    # The common cases inline (a string already spelled, an int or bool, a non-empty container): a 512-port switch's
    # structured config is ~10,000 lines, and a call per scalar was most of its time.
    pad = " " * indent
    spelled = _SPELLING.get
    if isinstance(value, dict):
        for key, item in value.items():
            key = spelled(key) or _scalar(key)
            kind = type(item)
            if kind is str:
                out.append("%s%s: %s\n" % (pad, key, spelled(item) or _scalar(item)))
            elif kind is int:
                out.append("%s%s: %d\n" % (pad, key, item))
            elif kind is bool:
                out.append("%s%s: %s\n" % (pad, key, "true" if item else "false"))
            elif item and isinstance(item, (dict, list)):
                out.append("%s%s:\n" % (pad, key))
                _emit(item, indent + (2 if isinstance(item, dict) else 0), out)
            else:
                out.append("%s%s: %s\n" % (pad, key, _empty_or_scalar(item)))
    else:
        for item in value:
            kind = type(item)
            if item and isinstance(item, dict):
                first = len(out)
                _emit(item, indent + 2, out)
                out[first] = pad + "- " + out[first][indent + 2:]
            elif kind is str:
                out.append("%s- %s\n" % (pad, spelled(item) or _scalar(item)))
            elif kind is int:
                out.append("%s- %d\n" % (pad, item))
            elif isinstance(item, list) and item:
                raise ValueError("nested lists are not used in structured configs")
            else:
                out.append("%s- %s\n" % (pad, _empty_or_scalar(item)))


def _empty_or_scalar(value):
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def dump(data):
    out = []
    _emit(data, 0, out)
    return "".join(out)
