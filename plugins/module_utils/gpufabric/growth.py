"""Growth: what a larger spec changes, between the build before it and the build after it.

Positions never renumber (plan/), so growing `servers.count` should add devices and cables and change
on existing devices only what must change: the switches that gain a cable (spine ports to new leaves,
frontend spines to new pairs). Two views of the same change, each from its own home:

- ``must_change(old_plan, new_plan)``: from the two plans, the switches that are new or whose cabled
  ports (port, peer, peer port, addresses, cable length) differ; what a deploy ought to touch.
- ``changed_switches(old_files, new_files)``: from the two builds, the switches whose rendered files
  differ; what a deploy does touch (each NOS's deploy role compares each switch and leaves equal ones alone).

``cabling_delta`` compares the two builds' cabling plans (docs/cabling.csv) by cable ID, the position of
end B, which never changes for a cable already installed: the new cables are what to pull; an existing
ID whose ends changed, or one that disappeared, means recabling, which growth should never need.
"""
import csv
import io
import json
import os

from .docs.markdown import count, table
from .plan import build_plan

ENDS = ("a_device", "a_port", "b_device", "b_port")
DEVICE_FILES = "devices/"


def read_cabling(text):
    """{cable ID: row dict} of a docs/cabling.csv text."""
    return {row["cable_id"]: row for row in csv.DictReader(io.StringIO(text or ""))}


def cabling_delta(old_text, new_text):
    """{"new": [row], "moved": [(old row, new row)], "removed": [row]} between two cabling plans, in the
    new plan's order (removed: the old one's)."""
    old, new = read_cabling(old_text), read_cabling(new_text)
    delta = {"new": [], "moved": [], "removed": [row for cid, row in old.items() if cid not in new]}
    for cid, row in new.items():
        before = old.get(cid)
        if before is None:
            delta["new"].append(row)
        elif any(before[k] != row[k] for k in ENDS):
            delta["moved"].append((before, row))
    return delta


def _switch_of(path):
    parts = path.split("/")
    return parts[1] if len(parts) == 3 and path.startswith(DEVICE_FILES) else None


def changed_switches(old_files, new_files):
    """Sorted hostnames of switches whose rendered files (devices/<host>/*) differ or are new."""
    out = set()
    for path in set(old_files) | set(new_files):
        host = _switch_of(path)
        if host and old_files.get(path) != new_files.get(path):
            out.add(host)
    return sorted(out)


def _port_facts(plan, dev):
    lengths = plan.cable_lengths
    return sorted((end.port, end.peer.name, end.peer_port, end.ipv4, lengths.of(end.link)[1]) for end in dev.ends())


def must_change(old_plan, new_plan):
    """Sorted hostnames of the new plan's switches that are new or whose cabled ports differ from the old plan."""
    old = {d.name: d for d in old_plan.devices}
    out = []
    for dev in new_plan.devices:
        if dev.role == "gpu_server":
            continue
        before = old.get(dev.name)
        if before is None or _port_facts(old_plan, before) != _port_facts(new_plan, dev):
            out.append(dev.name)
    return sorted(out)


def _cable_rows(rows):
    return [(r["cable_id"], "%s %s" % (r["network"], r["tier"]), r["b_device"], r["b_port"], r["a_rack"],
             r["a_device"], r["a_port"], "%s %sG" % (r["media"], r["speed_gbps"]), r["stock_length_m"]) for r in rows]


def render_delta(cluster, delta, switches, new_devices):
    """The "what to cable" document: new cables by rack of end B, then any recabling, then what changes."""
    lines = ["# What to cable: %s" % cluster, "",
             "Only the cables this growth adds, by cable ID (from the build before it to this build). "
             "%s new cables, %d to move, %d to remove."
             % (count(len(delta["new"])), len(delta["moved"]), len(delta["removed"])), ""]
    header = ("Cable", "Net / tier", "Device B", "Port B", "Rack A", "Device A", "Port A", "Media", "Length (m)")
    by_rack = {}
    for row in delta["new"]:
        by_rack.setdefault(row["b_rack"], []).append(row)
    for rack, rows in by_rack.items():
        lines += ["## Rack %s" % rack, "", table(header, _cable_rows(rows)), ""]
    if delta["moved"] or delta["removed"]:
        lines += ["## Recabling (growth should need none: check the spec change)", ""]
        lines += ["- move %s: %s %s -- %s %s, was %s %s -- %s %s" % (
            new["cable_id"], new["a_device"], new["a_port"], new["b_device"], new["b_port"], old["a_device"],
            old["a_port"], old["b_device"], old["b_port"]) for old, new in delta["moved"]]
        lines += ["- remove %s: %s %s -- %s %s" % (r["cable_id"], r["a_device"], r["a_port"], r["b_device"], r["b_port"])
                  for r in delta["removed"]]
        lines.append("")
    existing = [s for s in switches if s not in new_devices]
    lines += ["## Switches a deploy changes", "",
              "New (%d): %s" % (len(new_devices), ", ".join(new_devices) or "none"), "",
              "Existing (%d): %s" % (len(existing), ", ".join(existing) or "none"), ""]
    return "\n".join(lines)


def read_build(root):
    """{relative path: text} of the files of build ``root`` growth compares: devices/*/*, the cabling plan
    and plan.json."""
    out = {}
    for rel in ("docs/cabling.csv", "plan.json"):
        path = os.path.join(root, rel)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                out[rel] = f.read()
    devices = os.path.join(root, "devices")
    for host in sorted(os.listdir(devices)) if os.path.isdir(devices) else ():
        for name in sorted(os.listdir(os.path.join(devices, host))):
            with open(os.path.join(devices, host, name), encoding="utf-8", errors="replace") as f:
                out["devices/%s/%s" % (host, name)] = f.read()
    return out


def compare_builds(old_files, new_files, new_plan):
    """What growth from the build ``old_files`` to ``new_files`` (the build of ``new_plan``) changes:
    {"delta", "changed", "must", "new_devices", "unexpected", "missing", "document"}."""
    if "plan.json" not in old_files or "docs/cabling.csv" not in old_files:
        raise ValueError("the previous build has no plan.json or docs/cabling.csv: build the old spec there first")
    old_plan = build_plan(json.loads(old_files["plan.json"])["spec"])
    delta = cabling_delta(old_files["docs/cabling.csv"], new_files.get("docs/cabling.csv"))
    changed, must = changed_switches(old_files, new_files), must_change(old_plan, new_plan)
    known = {d.name for d in old_plan.devices}
    new_devices = [d.name for d in new_plan.devices if d.name not in known and d.role != "gpu_server"]
    return {"delta": delta, "changed": changed, "must": must, "new_devices": new_devices,
            "unexpected": sorted(set(changed) - set(must)), "missing": sorted(set(must) - set(changed)),
            "document": render_delta(new_plan.summary["cluster"], delta, changed, new_devices)}
