"""How the SONiC emulator holds a CONFIG_DB to SONiC's YANG models, as a switch's sonic-yang-mgmt does before GCU
writes anything: the emulator's own, on libyang and the models directly (not the deploy's YANG gate).

SONiC models a CONFIG_DB table T as ``container T`` inside a module's top container; its rows are entries of a
list inside it (a table may have several lists, told apart by how many parts a key has; the first whose leaves
take the row's fields holds it) or, for a row such as DEVICE_METADATA|localhost, a container of the key's name; a
list inside a row's list is a map whose keys are the row's field names (DSCP_TO_TC_MAP). Each field is written
into a libyang data tree by its path with CONFIG_DB's string value, so libyang reads it as the leaf's type does;
then the tree is validated whole (leafrefs, must, mandatory, unique).
"""
import functools
import os

try:
    import libyang
except ImportError:  # Ansible's import sanity test loads module_utils without third-party packages.
    libyang = None

# Leaf-lists CONFIG_DB keeps as one string, with their separator (sonic-yang-mgmt's LEAF_LIST_WITH_STRING_VALUE
# exceptions); every other leaf-list is a list of strings.
JOINED = {("MIRROR_SESSION", "src_ip"): ",", ("NTP", "src_intf"): ";", ("BGP_ALLOWED_PREFIXES", "prefixes_v4"): ",",
          ("BGP_ALLOWED_PREFIXES", "prefixes_v6"): ",", ("BUFFER_PORT_EGRESS_PROFILE_LIST", "profile_list"): ",",
          ("BUFFER_PORT_INGRESS_PROFILE_LIST", "profile_list"): ",", ("PORT", "adv_speeds"): ",",
          ("PORT", "adv_interface_types"): ","}


class YangError(ValueError):
    """The models cannot be read, or a CONFIG_DB has no place in them."""


class _Shape:
    """One form a row takes: a list (its key leaves) or a singleton container; its leaves and leaf-lists; a map."""

    def __init__(self, node):
        self.name = node.name()
        self.keys = [k.name() for k in node.keys()] if node.nodetype() == libyang.SNode.LIST else []
        self.leaves, self.lists, self.map = set(), set(), None
        for child in node.children():
            kind = child.nodetype()
            if kind == libyang.SNode.LEAF:
                self.leaves.add(child.name())
            elif kind == libyang.SNode.LEAFLIST:
                self.lists.add(child.name())
            elif kind == libyang.SNode.LIST:
                values = [c.name() for c in child.children() if c.nodetype() == libyang.SNode.LEAF
                          and c.name() not in [k.name() for k in child.keys()]]
                self.map = (child.name(), [k.name() for k in child.keys()][0], values[0] if values else None)

    def fits(self, fields):
        return self.map is not None or all(f.rstrip("@") in self.leaves | self.lists for f in fields)


class Models:
    """Every model of a directory in one libyang context, and where each CONFIG_DB table lives in them."""

    def __init__(self, directory):
        if libyang is None:
            raise YangError("the SONiC twin needs the Python package libyang and Debian's libyang2 (requirements.txt)")
        names = sorted(n[:-len(".yang")] for n in os.listdir(directory) if n.endswith(".yang")) \
            if os.path.isdir(directory) else []
        if not [n for n in names if n.startswith("sonic-")]:
            raise YangError("%s holds no sonic-*.yang: the twin needs SONiC's YANG models" % directory)
        self.directory = directory
        self.context = libyang.Context(directory)
        self.tables = {}   # table -> (module, top container, [list shapes], {container name: shape})
        for name in names:
            try:
                module = self.context.load_module(name)
            except libyang.LibyangError as exc:
                raise YangError("%s/%s.yang: %s" % (directory, name, exc)) from exc
            for top in module.children():
                if top.nodetype() != libyang.SNode.CONTAINER:
                    continue
                for table in top.children():
                    if table.nodetype() != libyang.SNode.CONTAINER:
                        continue
                    lists = [_Shape(c) for c in table.children() if c.nodetype() == libyang.SNode.LIST]
                    singles = {c.name(): _Shape(c) for c in table.children()
                               if c.nodetype() == libyang.SNode.CONTAINER}
                    self.tables[table.name()] = (name, top.name(), lists, singles)


@functools.lru_cache(maxsize=4)
def load(directory):
    """The Models of ``directory``, read once per process."""
    return Models(os.path.realpath(directory))


def _quoted(value):
    text = str(value)
    return "'%s'" % text if "'" not in text else '"%s"' % text


def _row_paths(models, table, key, fields):
    """[(path, value or None)] that write one row into the data tree."""
    module, top, lists, singles = models.tables[table]
    base = "/%s:%s/%s" % (module, top, table)
    if key in singles:
        shape, row = singles[key], "%s/%s" % (base, key)
    else:
        parts = [p.strip() for p in str(key).split("|")]
        fitting = [s for s in lists if len(s.keys) == len(parts)]
        if not fitting:
            raise YangError("%s|%s: a key of %d part(s) has no place in %s (it takes %s)" % (
                table, key, len(parts), table, " or ".join(["|".join(s.keys) for s in lists] + sorted(singles))))
        shape = next((s for s in fitting if s.fits(fields)), fitting[0])
        row = "%s/%s%s" % (base, shape.name, "".join("[%s=%s]" % (k, _quoted(v)) for k, v in zip(shape.keys, parts)))
    if shape.map is not None:
        inner, inner_key, leaf = shape.map
        out = [(row, None)] if not fields else []
        for field, value in sorted(fields.items()):
            entry = "%s/%s[%s=%s]" % (row, inner, inner_key, _quoted(field))
            out.append(("%s/%s" % (entry, leaf), value) if leaf else (entry, None))
        return out
    out = [(row, None)]
    for field, value in sorted(fields.items()):
        name = field.rstrip("@")
        if name in shape.lists:
            if not isinstance(value, list):
                separator = JOINED.get((table, name))
                if separator is None:
                    raise YangError("%s|%s: %s is a leaf-list, given %r rather than a list" % (table, key, name, value))
                value = [v.strip() for v in str(value).split(separator)]
            out += [("%s/%s[.=%s]" % (row, name, _quoted(v)), None) for v in value if v != ""]
        elif name in shape.leaves:
            if isinstance(value, list):
                raise YangError("%s|%s: %s takes one value, given a list" % (table, key, name))
            out.append(("%s/%s" % (row, name), value))
        else:
            raise YangError("%s|%s: %s has no leaf %s" % (table, key, shape.name, field))
    return out


def problems(models, config):
    """[] when ``config`` ({table: {key: {field: value}}}) is valid against ``models``, else [one line saying where
    and why] (the first problem: libyang stops there, as SONiC's validation does)."""
    root = None
    try:
        for table in sorted(config):
            if table not in models.tables:
                return ["%s: no YANG model has this table" % table]
            rows = config[table]
            if not isinstance(rows, dict):
                return ["%s: a table maps keys to rows" % table]
            for key in sorted(rows):
                for path, value in _row_paths(models, table, key, rows[key] or {}):
                    try:
                        node = models.context.create_data_path(path, parent=root, value=value,
                                                               no_parent_ret=root is not None)
                    except libyang.LibyangError as exc:
                        return ["%s|%s: %s" % (table, key, str(exc).replace("cannot create data path: ", ""))]
                    if root is None:
                        root = node
        if root is None:
            return []
        try:
            root.first_sibling().validate(no_state=True)
        except libyang.LibyangError as exc:
            return [str(exc)]
        return []
    except YangError as exc:
        return [str(exc)]
    finally:
        if root is not None:
            root.first_sibling().free()
