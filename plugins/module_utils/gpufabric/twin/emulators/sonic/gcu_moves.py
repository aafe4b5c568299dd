"""The order in which the twin's Generic Config Updater writes a change, for what a user sees of GCU's patch sorter
(sonic-utilities generic_config_updater/patch_sorter.py, branches 202505 and 202511; its lists are facts in
gcu_releases.yml, ``sorter``):

- a row whose create-only field changes (PORT ``lanes``, BGP_NEIGHBOR ``asn``, ...) is not edited: GCU deletes it,
  with every row that refers to it (a YANG leafref; a reference held in a field, as ACL_TABLE ``ports``, loses just
  that value), and adds it back, then them (its unit tests: "Replacing create only field", "Adding loopback vrf
  name deletes loopback0 and the ips");
- a change to a port's rows of BUFFER_PG, BUFFER_QUEUE, QUEUE, PORT_QOS_MAP and the port buffer profile lists is
  made with the port admin down: an admin-up port is set down first and back up after the last of them; a port
  added in the same change is added down and brought up after ("Port critical change and the port is admin up");
- otherwise rows are deleted, tables that refer to others first, then written, referred-to tables first.

The sorter's search itself (a depth-first search over moves, each intermediate config YANG-valid) is not
reproduced: the twin validates the target, and gives the writes this order.
"""
import os
import re

DOWN = "down"
_STATEMENT = re.compile(r"\b(container|list|leaf-list|leaf|grouping|augment|typedef)\s+([\w:/-]+)\s*\{|([{}])"
                        r"|\bpath\s+[\"']?([^\"';]+)|\bkey\s+\"([^\"]+)\"")


def _module_refs(text, tables):
    """[(table, keys, leaf, target table)] of one YANG module's text: each leafref of a list's leaf in a table (a
    container two levels down: module, top container, table, as SONiC writes its models)."""
    found, stack, keys = [], [], {}
    for match in _STATEMENT.finditer(re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)):
        kind, name, brace, path, key = match.groups()
        if kind:
            stack.append((kind, name))
        elif brace == "{":
            stack.append((None, None))
        elif brace == "}":
            if stack:
                stack.pop()
        elif key and stack and stack[-1][0] == "list":
            keys[tuple(stack)] = tuple(key.split())
        elif path and len(stack) >= 5 and stack[2][0] == "container" and stack[2][1] in tables \
                and stack[3][0] == "list" and stack[4][0] in ("leaf", "leaf-list"):
            steps = [re.sub(r"\[.*?\]", "", s).split(":")[-1] for s in path.split("/") if s and s != ".."]
            target = next((s for s in steps if s in tables), None)
            if target:
                found.append((stack[2][1], keys.get(tuple(stack[:4]), ()), stack[4][1], target))
    return found


def references(models):
    """[(table, keys, field, target table)] of every leafref from a table's row to another table's rows (cached on
    ``models``)."""
    cached = getattr(models, "_gcu_references", None)
    if cached is None:
        cached = []
        for name in sorted(os.listdir(models.directory)):
            if name.endswith(".yang"):
                with open(os.path.join(models.directory, name), encoding="utf-8") as f:
                    cached.extend(_module_refs(f.read(), models.tables))
        models._gcu_references = cached
    return cached


def table_order(models):
    """{table: rank}: a table whose rows refer (a YANG leafref) to another table's rows ranks after it, so it
    is written after and removed before it."""
    refers = {}
    for table, _keys, _field, target in references(models):
        if target != table:
            refers.setdefault(table, set()).add(target)
    rank = {}

    def depth(name, trail=()):
        if name in trail:   # a reference cycle: rank it as it stands
            return rank.get(name, 0)
        if name not in rank:
            below = [depth(t, trail + (name,)) for t in refers.get(name, ())]
            rank[name] = 1 + max(below, default=-1)
        return rank[name]
    for name in models.tables:
        depth(name)
    return rank


def referrers(config, table, key, refs):
    """(rows, fields) of ``config`` that refer to the row table|key: rows [(table, key)] whose key names it, fields
    [(table, key, field)] holding it as a value."""
    rows, fields = set(), set()
    for source, keys, field, target in refs:
        if target != table:
            continue
        for name, row in config.get(source, {}).items():
            parts = name.split("|")
            if keys and len(parts) != len(keys):
                continue
            if field in keys:
                if _names(parts[keys.index(field)], key, parts):
                    rows.add((source, name))
                continue
            value = row.get(field) if isinstance(row, dict) else None
            if any(_names(v, key, parts) for v in (value if isinstance(value, list) else [value])):
                fields.add((source, name, field))
    return sorted(rows), sorted(fields)


def _names(value, key, parts):
    """Whether a leafref's value names the row ``key``: the whole key, or the last part of a key of several whose
    other parts (a VRF) the referring row's key also has ("default|10.0.0.1" from "default|10.0.0.1|ipv4_unicast")."""
    if value == key:
        return True
    head, _sep, last = key.rpartition("|")
    return bool(head) and value == last and all(p in parts for p in head.split("|"))


def recreated(old, target, create_only):
    """[(table, key)] of the rows in both configs whose create-only field changes: GCU deletes and re-adds them."""
    found = []
    for table, names in sorted(create_only.items()):
        for key in sorted(set(old.get(table, {})) & set(target.get(table, {}))):
            before, after = old[table][key], target[table][key]
            fields = set(before) | set(after) if "*" in names else names
            if any(before.get(f) != after.get(f) for f in fields):
                found.append((table, key))
    return found


def _admin(row):
    return (row or {}).get("admin_status", DOWN)   # GCU's default for a port without it (and the YANG model's)


def held_down(old, target, sorter, doomed=()):
    """[port] that GCU holds admin down while it changes the port's rows of the tables in
    ``sorter["port_admin_down_for"]`` (``doomed`` rows counting as changed): set down first when admin up, or added
    down, and brought up after when the target has it up."""
    ports = set(old.get("PORT", {})) | set(target.get("PORT", {}))
    found = set()
    for table in sorter["port_admin_down_for"]:
        before, after = old.get(table, {}), target.get(table, {})
        for key in set(before) | set(after):
            port = key.split("|")[0]
            if port in ports and (before.get(key) != after.get(key) or (table, key) in doomed):
                found.add(port)
    return sorted(p for p in found if _admin(old.get("PORT", {}).get(p)) != DOWN
                  or _admin(target.get("PORT", {}).get(p)) != DOWN)


def flaps(old, target, sorter, refs=()):
    """[port] admin up before the change that GCU takes down and brings back up during it (a link flap on a switch:
    traffic over the port stops until the link is up again); ``refs`` (references()) counts the rows a create-only
    change re-adds."""
    doomed = _doomed(old, target, sorter, refs)[0] if refs else ()
    before = old.get("PORT", {})
    return [p for p in held_down(old, target, sorter, doomed) if p in before and _admin(before[p]) != DOWN]


def _doomed(old, target, sorter, refs):
    """(rows deleted and re-added, {(table, key): row without the references}) of a change's create-only edits."""
    queue, doomed, detached = recreated(old, target, sorter["create_only"]), set(), {}
    while queue:
        table, key = queue.pop()
        if (table, key) in doomed:
            continue
        doomed.add((table, key))
        rows, fields = referrers(old, table, key, refs)
        queue.extend(rows)
        for source, name, field in fields:
            row = dict(detached.get((source, name), old[source][name]))
            value = row.pop(field)
            if isinstance(value, list) and [v for v in value if v != key]:
                row[field] = [v for v in value if v != key]
            detached[(source, name)] = row
    return doomed, {k: row for k, row in detached.items() if k not in doomed}


def ordered_changes(old, target, sorter, refs, rank):
    """[(table, key, row or None)]: what GCU writes to CONFIG_DB for old -> target, in its order: ports taken admin
    down, references to recreated rows dropped, deletions (tables referring to others first, a table's keys last
    to first), writes (referred-to tables first), then the ports brought back up."""
    doomed, detached = _doomed(old, target, sorter, refs)
    flaps = held_down(old, target, sorter, doomed)
    work = {table: dict(rows) for table, rows in old.items()}
    changes = []

    def put(table, key, row):
        if work.get(table, {}).get(key) != row:
            changes.append((table, key, row))
            if row is None:
                work[table].pop(key)
            else:
                work.setdefault(table, {})[key] = row

    def held(table, key, row):
        if table == "PORT" and key in flaps and row is not None and _admin(row) != DOWN:
            return dict(row, admin_status=DOWN)
        return row
    for port in flaps:
        if port in old.get("PORT", {}):
            put("PORT", port, held("PORT", port, old["PORT"][port]))
    for (table, key), row in sorted(detached.items(), key=lambda c: (-rank.get(c[0][0], 0), c[0])):
        put(table, key, row)
    removes = [(t, k) for t in old for k in old[t] if (t, k) in doomed or k not in target.get(t, {})]
    removes.sort(key=lambda c: c[1], reverse=True)    # "Ethernet0|10.0.0.0/31" before "Ethernet0"
    for table, key in sorted(removes, key=lambda c: (-rank.get(c[0], 0), c[0])):
        put(table, key, None)
    for table, key in sorted(((t, k) for t in target for k in target[t]), key=lambda c: (rank.get(c[0], 0),) + c):
        put(table, key, held(table, key, target[table][key]))
    for port in flaps:
        if port in target.get("PORT", {}):
            put("PORT", port, target["PORT"][port])
    return changes
