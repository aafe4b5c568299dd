"""SONiC's YANG models as a table index: which module, container, list and leaves hold each config_db table.

SONiC models every config_db table TABLE as ``container sonic-xxx { container TABLE { list TABLE_LIST
{...} } }`` (sonic-yang-models' own convention, read by sonic-yang-mgmt's sonic_yang_ext.py): a table is
a container under the module's top container; its rows are the entries of one of its lists (a table
can have several, told apart by the number of key parts) or, for singleton rows such as
DEVICE_METADATA|localhost, a container named like the key. A list nested in a list is a map whose
field names are its keys (DSCP_TO_TC_MAP, CABLE_LENGTH).
"""
import functools
import os

try:
    import libyang
except ImportError:  # Ansible's import sanity test loads module_utils without third-party packages.
    libyang = None


class ModelsError(ValueError):
    """The models directory is missing, unreadable or not SONiC's."""


class Row:
    """One shape a config_db row can take: a list (``keys`` non-empty) or a singleton container."""

    def __init__(self, node):
        self.name = node.name()
        self.keys = [k.name() for k in node.keys()] if node.nodetype() == libyang.SNode.LIST else []
        self.leaves, self.leaf_lists, self.map = {}, set(), None
        for child in node.children():
            if child.nodetype() == libyang.SNode.LEAF:
                self.leaves[child.name()] = child
            elif child.nodetype() == libyang.SNode.LEAFLIST:
                self.leaves[child.name()] = child
                self.leaf_lists.add(child.name())
            elif child.nodetype() == libyang.SNode.LIST:
                # A map (sonic-yang-mgmt's "Type 1" list): field names are the inner list's key.
                inner_key = [k.name() for k in child.keys()][0]
                value = [c.name() for c in child.children() if c.name() != inner_key]
                self.map = (child.name(), inner_key, value[0] if value else None)

    def takes(self, fields):
        return self.map is not None or all(f.rstrip("@") in self.leaves for f in fields)


class Table:
    def __init__(self, module, top, node):
        self.module, self.top, self.name = module, top, node.name()
        self.lists, self.containers = [], {}
        for child in node.children():
            if child.nodetype() == libyang.SNode.LIST:
                self.lists.append(Row(child))
            elif child.nodetype() == libyang.SNode.CONTAINER:
                self.containers[child.name()] = Row(child)


class Models:
    """One libyang context with every model of a directory loaded, and the table index over it.

    Building it takes a fraction of a second; validating one switch's config reuses it."""

    def __init__(self, directory):
        if libyang is None:
            raise ModelsError("YANG validation needs the Python package libyang (pip install -r requirements.txt)"
                              " and Debian's libyang2")
        names = sorted(f[:-5] for f in os.listdir(directory) if f.endswith(".yang")) \
            if os.path.isdir(directory) else []
        if not any(n.startswith("sonic-") for n in names):
            raise ModelsError("%s: no sonic-*.yang models there; copy /usr/local/yang-models from a switch"
                              " of your SONiC release" % directory)
        self.directory = directory
        self.context = libyang.Context(directory)
        self.tables, self.namespaces = {}, {}
        for name in names:
            try:
                module = self.context.load_module(name)
            except libyang.LibyangError as e:
                raise ModelsError("%s/%s.yang: %s" % (directory, name, e)) from e
            self.namespaces[name] = libyang.util.c2str(module.cdata.ns)
            for top in module.children():
                if top.nodetype() != libyang.SNode.CONTAINER:
                    continue
                for table in top.children():
                    if table.nodetype() == libyang.SNode.CONTAINER:
                        self.tables[table.name()] = Table(name, top.name(), table)


@functools.lru_cache(maxsize=4)
def load(directory):
    """The Models of a directory, built once per process."""
    return Models(os.path.realpath(directory))
