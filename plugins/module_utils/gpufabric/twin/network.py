"""Namespaces, veth cables, interfaces, addresses, routes and sysctls: read what is there, change only
what differs, in one `ip -batch` per namespace.

Order matters: cables are created down and come up last, so FRR (started in between by the caller)
has its whole config before its first BGP OPEN.
"""
import json
import os

from .run import run, run_many

SYSCTL_SCRIPT = r"""
changed=""
while read -r key value; do
  path=/proc/sys/$(echo "$key" | tr . /)
  if [ "$(cat "$path")" != "$value" ]; then echo "$value" > "$path" && changed="$changed $key"; fi
done
echo "$changed"
"""


def existing_namespaces():
    proc = run(["ip", "-j", "netns", "list"], check=False)
    if proc.returncode != 0 or not proc.stdout.strip():
        return set()
    return {entry["name"] for entry in json.loads(proc.stdout)}


def observe(names):
    """{ns: {ifname: {"kind", "mtu", "master", "up", "addrs"}}} for the given existing namespaces."""
    names = sorted(names)
    results = run_many([(["ip", "-n", ns, "-j", "-d", "addr", "show"], None) for ns in names])
    state = {}
    for ns, proc in zip(names, results):
        ifaces = {}
        for link in json.loads(proc.stdout or "[]"):
            info = link.get("linkinfo", {})
            ifaces[link["ifname"]] = {
                "kind": "loopback" if link["ifname"] == "lo" else info.get("info_kind"),
                "mtu": link.get("mtu"),
                "master": link.get("master"),
                "up": "UP" in link.get("flags", []),
                "mac": link.get("address"),
                "addrs": sorted("%s/%s" % (a["local"], a["prefixlen"]) for a in link.get("addr_info", [])
                                if a.get("family") == "inet"),
            }
        state[ns] = ifaces
    return state


def _routing(names):
    names = sorted(names)
    jobs = []
    for ns in names:
        jobs.append((["ip", "-n", ns, "-j", "route", "show", "table", "all"], None))
        jobs.append((["ip", "-n", ns, "-j", "rule", "show"], None))
    results = run_many(jobs)
    out = {}
    for i, ns in enumerate(names):
        out[ns] = (json.loads(results[2 * i].stdout or "[]"), json.loads(results[2 * i + 1].stdout or "[]"))
    return out


def _has_route(routes, table, dst, gateway, dev):
    for r in routes:
        if str(r.get("table", "main")) == str(table) and r.get("dst") == dst and r.get("dev") == dev \
                and r.get("gateway") == gateway:
            return True
    return False


def _has_rule(rules, priority, source, table):
    return any(r.get("priority") == priority and r.get("src") == source and str(r.get("table")) == str(table)
               for r in rules)


def apply_links(twin):
    """Create what is missing and fix what differs, leaving every desired link down-or-as-is for
    ``bring_up``. Returns the list of changes (human-readable)."""
    changes = []
    have_ns = existing_namespaces()
    missing_ns = sorted(set(twin.namespaces) - have_ns)
    state = observe(have_ns & set(twin.namespaces))
    for ns in missing_ns:
        state[ns] = {}
    root = ["netns add %s" % ns for ns in missing_ns]
    changes += ["namespace %s created" % ns for ns in missing_ns]
    cleanup = []
    for ns_a, if_a, ns_b, if_b in twin.veths:
        end_a = state[ns_a].get(if_a)
        end_b = state[ns_b].get(if_b)
        if end_a and end_b and end_a["kind"] == "veth" and end_b["kind"] == "veth":
            continue
        for ns, name, end in ((ns_a, if_a, end_a), (ns_b, if_b, end_b)):
            if end:
                cleanup.append(["ip", "-n", ns, "link", "del", name])
                state[ns].pop(name)
        root.append("link add %s netns %s mtu 1500 type veth peer name %s netns %s" % (if_a, ns_a, if_b, ns_b))
        state[ns_a][if_a] = {"kind": "veth", "mtu": 1500, "master": None, "up": False, "addrs": []}
        state[ns_b][if_b] = {"kind": "veth", "mtu": 1500, "master": None, "up": False, "addrs": []}
        changes.append("cable %s:%s -- %s:%s created" % (ns_a, if_a, ns_b, if_b))
    for argv in cleanup:
        # Deleting one end of a veth deletes its peer: an end already gone with its peer is not an error.
        proc = run(argv, check=False)
        if proc.returncode and "Cannot find device" not in proc.stderr:
            run(argv)
    if root:
        run(["ip", "-batch", "-"], "\n".join(root) + "\n")
        state = observe(set(twin.namespaces))
    jobs = []
    for ns in sorted(twin.namespaces):
        lines, ns_changes = namespace_batch(twin.namespaces[ns], state[ns])
        if lines:
            jobs.append((["ip", "-n", ns, "-batch", "-"], "\n".join(lines) + "\n"))
            changes += ["%s: %s" % (ns, c) for c in ns_changes]
    run_many(jobs)
    changes += apply_sysctls(twin)
    return changes


def namespace_batch(ns, have):
    lines, changes = [], []
    kinds = {"loopback": 0, "bridge": 1, "veth": 2}
    ordered = sorted(ns.ifaces.values(), key=lambda i: (kinds[i.kind], i.name))
    for iface in ordered:
        cur = have.get(iface.name)
        if cur and cur["kind"] != iface.kind:
            lines.append("link del %s" % iface.name)
            cur = None
        if cur is None:
            lines.append("link add %s type %s %s" % (iface.name, iface.kind, " ".join(iface.options)))
            cur = have[iface.name] = {"kind": iface.kind, "mtu": None, "master": None, "up": False, "addrs": []}
            changes.append("%s %s created" % (iface.kind, iface.name))
    for iface in ordered:
        cur = have[iface.name]
        # addrs None: the switch's own configuration decides, its bridges too (a tenant VRF's, twin/vrf.py).
        if cur["master"] != iface.master and iface.addrs is not None:
            lines.append("link set %s %s" % (iface.name, "master " + iface.master if iface.master else "nomaster"))
            changes.append("%s master %s" % (iface.name, iface.master))
    for iface in ordered:
        cur = have[iface.name]
        if iface.mtu and cur["mtu"] != iface.mtu:
            lines.append("link set %s mtu %d" % (iface.name, iface.mtu))
            changes.append("%s mtu %d" % (iface.name, iface.mtu))
        if getattr(iface, "mac", None) and cur.get("mac") != iface.mac:
            lines.append("link set %s address %s" % (iface.name, iface.mac))
            changes.append("%s address %s" % (iface.name, iface.mac))
        if iface.addrs is None:
            continue    # the switch's own configuration decides its addresses
        for addr in sorted(set(iface.addrs) - set(cur["addrs"])):
            lines.append("addr add %s dev %s" % (addr, iface.name))
            changes.append("%s address %s" % (iface.name, addr))
        for addr in sorted(set(cur["addrs"]) - set(iface.addrs)):
            lines.append("addr del %s dev %s" % (addr, iface.name))
            changes.append("%s address %s removed" % (iface.name, addr))
    return lines, changes


def links_down(twin):
    """Names of desired links that are not up yet, per namespace."""
    state = observe(set(twin.namespaces))
    return {ns: [i.name for i in twin.namespaces[ns].ifaces.values() if i.up and not state[ns][i.name]["up"]]
            for ns in twin.namespaces}


def bring_up(twin, pending):
    """Set the given links up: masters first so members join a live bond or bridge."""
    jobs = []
    changes = []
    for ns, names in sorted(pending.items()):
        if not names:
            continue
        ifaces = twin.namespaces[ns].ifaces
        order = sorted(names, key=lambda n: (ifaces[n].kind == "veth", n))
        jobs.append((["ip", "-n", ns, "-batch", "-"], "".join("link set %s up\n" % n for n in order)))
        changes += ["%s: %s up" % (ns, n) for n in order]
    run_many(jobs)
    return changes


def apply_routing(twin):
    """Server policy routing (routes need their device up, so this runs after ``bring_up``)."""
    wanted = [ns for ns in twin.namespaces.values() if ns.routes or ns.rules]
    if not wanted:
        return []
    have = _routing([ns.name for ns in wanted])
    jobs, changes = [], []
    for ns in wanted:
        routes, rules = have[ns.name]
        lines = []
        for table, dst, gateway, dev, src in ns.routes:
            if _has_route(routes, table, dst, gateway, dev):
                continue
            via = " via %s" % gateway if gateway else ""
            source = " src %s" % src if src else ""
            scope = " scope link" if not gateway else ""
            lines.append("route replace %s%s dev %s%s%s table %d" % (dst, via, dev, source, scope, table))
            changes.append("%s: route %s%s table %d" % (ns.name, dst, via, table))
        for priority, source, table in ns.rules:
            if not _has_rule(rules, priority, source, table):
                lines.append("rule add priority %d from %s table %d" % (priority, source, table))
                changes.append("%s: rule from %s table %d" % (ns.name, source, table))
        if lines:
            jobs.append((["ip", "-n", ns.name, "-batch", "-"], "\n".join(lines) + "\n"))
    run_many(jobs)
    return changes


def apply_sysctls(twin):
    jobs, names = [], []
    for ns in sorted(twin.namespaces.values(), key=lambda n: n.name):
        if ns.sysctls:
            names.append(ns.name)
            jobs.append((["ip", "netns", "exec", ns.name, "sh", "-c", SYSCTL_SCRIPT],
                         "".join("%s %s\n" % kv for kv in sorted(ns.sysctls.items()))))
    changes = []
    for ns, proc in zip(names, run_many(jobs)):
        changes += ["%s: sysctl %s" % (ns, key) for key in proc.stdout.split()]
    return changes


def delete_namespaces(names):
    """Kill every process inside the namespaces, then delete them (their veths go with them)."""
    names = sorted(set(names) & existing_namespaces())
    if not names:
        return []
    pids = set()
    for proc in run_many([(["ip", "netns", "pids", ns], None) for ns in names], check=False):
        pids.update(int(p) for p in proc.stdout.split())
    _kill(pids)
    run(["ip", "-batch", "-"], "".join("netns del %s\n" % ns for ns in names))
    return ["namespace %s deleted" % ns for ns in names]


def _kill(pids, timeout=5.0):
    import signal
    import time
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        alive = {p for p in alive if os.path.exists("/proc/%d" % p) and not _zombie(p)}
        if alive:
            time.sleep(0.05)
    for pid in alive:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
