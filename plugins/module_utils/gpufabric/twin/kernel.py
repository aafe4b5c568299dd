"""Kernel limits the twin's namespaces share with the machine, raised while a twin runs.

The ARP and IPv6 neighbour tables are one per kernel: every namespace's entries count against
net.ipv{4,6}.neigh.default.gc_thresh{1,2,3} (128/512/1024 by default, writable only from the initial
namespace). Past gc_thresh3 the kernel refuses new entries ("neighbor table overflow") and a twin of
64 servers loses reachability. ``raise_neigh_limits`` lifts them to fit the twin and records the values it
found; ``restore_neigh_limits`` puts those back when the last twin is gone.
"""
import os

PROC = "/proc/sys/net/%s/neigh/default/gc_thresh%d"
FAMILIES = ("ipv4", "ipv6")
# Entries per cable end (the peer, plus slack for a link-local IPv6 neighbour and probes).
PER_END = 4


def _read(path):
    with open(path) as f:
        return int(f.read().strip())


def _write(path, value):
    with open(path, "w") as f:
        f.write("%d\n" % value)


def current():
    return {"%s/%d" % (fam, i): _read(PROC % (fam, i)) for fam in FAMILIES for i in (1, 2, 3)}


def wanted(cable_ends):
    """Thresholds for a twin with ``cable_ends`` interfaces that have a neighbour: GC never needed below
    thresh1, and thresh3 well above what the twin can hold."""
    need = max(128, PER_END * cable_ends)
    return {1: need, 2: 2 * need, 3: 4 * need}


def raise_neigh_limits(cable_ends, saved=None):
    """Raise (never lower) the thresholds; returns (the values to restore later, [changes])."""
    found = current()
    saved = dict(saved or found)
    changes = []
    for fam in FAMILIES:
        for i, value in wanted(cable_ends).items():
            key = "%s/%d" % (fam, i)
            if found[key] < value:
                _write(PROC % (fam, i), value)
                changes.append("net.%s.neigh.default.gc_thresh%d %d -> %d" % (fam, i, found[key], value))
    return saved, changes


def restore_neigh_limits(saved):
    """Put back the values found before the first twin raised them (thresh3 first down, 1 last up is
    not needed: the kernel accepts any order)."""
    changes = []
    for key, value in sorted((saved or {}).items()):
        fam, i = key.split("/")
        path = PROC % (fam, int(i))
        if os.path.exists(path) and _read(path) != value:
            _write(path, value)
            changes.append("net.%s.neigh.default.gc_thresh%s restored to %d" % (fam, i, value))
    return changes
