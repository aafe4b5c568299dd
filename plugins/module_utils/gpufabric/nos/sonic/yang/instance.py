"""config_db tables -> YANG instance data (XML), the mapping sonic-yang-mgmt applies before validating.

XML rather than JSON because config_db holds every value as a string, and XML leaves the typing to
libyang: "100000" is checked as SONiC's speed type, not refused as a non-numeric JSON uint32.
"""
from xml.sax.saxutils import escape


class Unmapped(ValueError):
    """A row the models have no place for: ``table``, ``key``, ``field`` name it."""

    def __init__(self, table, key, field, rule):
        self.table, self.key, self.field, self.rule = table, key, field, rule
        super().__init__(rule)


# Leaf-lists that config_db keeps as one string, and their separator (sonic-yang-mgmt's own exceptions,
# LEAF_LIST_WITH_STRING_VALUE_DICT in sonic_yang_ext.py); every other leaf-list is a JSON list.
STRING_LEAF_LISTS = {("MIRROR_SESSION", "src_ip"): ",", ("NTP", "src_intf"): ";",
                     ("BGP_ALLOWED_PREFIXES", "prefixes_v4"): ",", ("BGP_ALLOWED_PREFIXES", "prefixes_v6"): ",",
                     ("BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list"): ",",
                     ("BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list"): ",",
                     ("PORT", "adv_speeds"): ",", ("PORT", "adv_interface_types"): ","}


def _element(name, value):
    return "<%s>%s</%s>" % (name, escape(str(value)), name)


def _values(table, row, field, value):
    """A config_db value as the leaf's XML (a leaf-list's values as repeated elements)."""
    name = field.rstrip("@")
    if name in row.leaf_lists:
        if not isinstance(value, list):
            separator = STRING_LEAF_LISTS.get((table, name))
            if separator is None:
                raise ValueError("%s is a leaf-list: give a list of values, not %r" % (name, value))
            value = [v.strip() for v in str(value).split(separator)]
        # An empty string is config_db's way of writing an empty leaf-list.
        return "".join(_element(name, v) for v in value if v != "")
    if isinstance(value, list):
        raise ValueError("%s takes one value, not a list" % name)
    return _element(name, value)


def _fields(table, key, row, fields):
    if row.map is not None:
        inner, inner_key, leaf = row.map
        return "".join("<%s>%s%s</%s>" % (inner, _element(inner_key, f), _element(leaf, v) if leaf else "", inner)
                       for f, v in sorted(fields.items()))
    out = []
    for field, value in sorted(fields.items()):
        if field.rstrip("@") not in row.leaves:
            raise Unmapped(table.name, key, field, "no leaf %s in %s (it has: %s)"
                           % (field, row.name, ", ".join(sorted(row.leaves)) or "none"))
        try:
            out.append(_values(table.name, row, field, value))
        except ValueError as e:
            raise Unmapped(table.name, key, field, str(e)) from e
    return "".join(out)


def _row(table, key, fields):
    if key in table.containers:
        row = table.containers[key]
        return "<%s>%s</%s>" % (key, _fields(table, key, row, fields), key)
    parts = [p.strip() for p in key.split("|")]
    shapes = [r for r in table.lists if len(r.keys) == len(parts)]
    if not shapes:
        forms = ["|".join(r.keys) for r in table.lists] + sorted(table.containers)
        raise Unmapped(table.name, key, None, "key has %d part(s); %s takes %s"
                       % (len(parts), table.name, " or ".join(forms) or "no rows"))
    # Like sonic-yang-mgmt, a row goes to the first list whose key count and leaves fit it.
    row = next((r for r in shapes if r.takes(fields)), shapes[0])
    keys = "".join(_element(k, v) for k, v in zip(row.keys, parts))
    return "<%s>%s%s</%s>" % (row.name, keys, _fields(table, key, row, fields), row.name)


def to_xml(models, config):
    """The XML instance document of a config_db dict. Raises Unmapped for a table or row with no model."""
    modules = {}
    for name in sorted(config):
        table = models.tables.get(name)
        if table is None:
            raise Unmapped(name, None, None, "no YANG model has a table %s (models: %s); the Generic Config"
                           " Updater refuses tables without one" % (name, models.directory))
        rows = config[name]
        if not isinstance(rows, dict):
            raise Unmapped(name, None, None, "a table is a mapping of keys to rows")
        body = "".join(_row(table, key, fields or {}) for key, fields in sorted(rows.items()))
        modules.setdefault((table.module, table.top), []).append("<%s>%s</%s>" % (name, body, name))
    return "".join('<%s xmlns="%s">%s</%s>' % (top, models.namespaces[module], "".join(parts), top)
                   for (module, top), parts in sorted(modules.items()))
