"""`make bench`: measure, then write docs/performance.md with the machine and the date.

Each benchmark runs in its own process so its time and peak memory are its own. Figures that are
compared (the inventory plugin against a static YAML inventory of the same hosts and variables) are
measured in the same run, one after the other, on the same machine.
"""
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

from bench_twin import bench_twin  # noqa: E402  (tests/bench, next to this file)
from bench_validate import bench_validate  # noqa: E402

PLAN_CHILD = r"""
import json, resource, sys, time, yaml
sys.path.insert(0, sys.argv[1])
from gpufabric.plan import build_plan
spec = yaml.safe_load(open(sys.argv[2]))
t = time.perf_counter()
plan = build_plan(spec)
elapsed = time.perf_counter() - t
print(json.dumps({"seconds": elapsed, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "devices": len(plan.devices), "links": len(plan.links), "gpus": plan.summary["gpus"]}))
"""


def spec_path(name):
    return os.path.join(ROOT, "inventories", name, name + ".topology.yml")


def ansible_env(**extra):
    return dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), **extra)


def timed(cmd, env=None, cwd=ROOT):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - t


def bench_plan():
    rows = []
    for name in ("metalsoft-16k", "h100-100k"):
        out = subprocess.run([sys.executable, "-c", PLAN_CHILD, os.path.join(ROOT, "plugins", "module_utils"),
                              spec_path(name)], check=True, capture_output=True, text=True).stdout
        r = json.loads(out)
        rows.append(("plan %s (%d GPUs, %d devices, %d cables)" % (name, r["gpus"], r["devices"], r["links"]),
                     "%.2f s, peak %.0f MiB" % (r["seconds"], r["peak_mib"]),
                     "h100-100k: at most 2 s and 1 GiB" if name == "h100-100k" else "-"))
    return rows


def static_inventory(listing, path):
    """The same hosts, groups and variables as a static YAML inventory."""
    import yaml
    children = {}
    for group, value in listing.items():
        if group in ("_meta", "all"):
            continue
        entry = {}
        if value.get("hosts"):
            entry["hosts"] = {h: None for h in value["hosts"]}
        if value.get("children"):
            entry["children"] = {c: {} for c in value["children"]}
        children[group] = entry
    with open(path, "w") as f:
        yaml.dump({"all": {"hosts": listing["_meta"]["hostvars"], "children": children}}, f,
                  Dumper=yaml.CSafeDumper)


def bench_inventory():
    name = "metalsoft-16k"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "list.json")
        plugin_s = timed([os.path.join(BIN, "ansible-inventory"), "-i", "inventories/" + name, "--list",
                          "--output", out], env=ansible_env())
        with open(out) as f:
            listing = json.load(f)
        hosts = len(listing["_meta"]["hostvars"])
        ifaces = sum(len(v["fabric"]["interfaces"]) for v in listing["_meta"]["hostvars"].values())
        static = os.path.join(tmp, "static.yml")
        static_inventory(listing, static)
        static_s = timed([os.path.join(BIN, "ansible-inventory"), "-i", static, "--list", "--output", out],
                         env=ansible_env(ANSIBLE_INVENTORY_ENABLED="yaml"))
    return [
        ("ansible-inventory --list %s, topology plugin (%d hosts, %d interfaces)" % (name, hosts, ifaces),
         "%.1f s" % plugin_s, "at most 10 s"),
        ("ansible-inventory --list, same hosts and variables as static YAML", "%.1f s" % static_s, "-"),
        ("ratio static YAML / plugin", "%.1fx" % (static_s / plugin_s), "-"),
    ]


def bench_build():
    """playbooks/build.yml end to end (Ansible's start included): plan, switch configs, documents."""
    rows = []
    for name, target in (("metalsoft-16k", "at most 60 s"), ("h100-100k", "-")):
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "playbooks/build.yml",
                   "-e", "spec=" + spec_path(name), "-e", "build_dir=" + tmp]
            first = timed(cmd, env=ansible_env())
            files = sum(len(entry[2]) for entry in os.walk(tmp))
            again = timed(cmd, env=ansible_env())
        rows.append(("build.yml %s, fresh build directory (%d files)" % (name, files), "%.1f s" % first, target))
        rows.append(("build.yml %s, second run, nothing changed" % name, "%.1f s" % again, target))
    rows.append(("Arista AVD, published: a 5,000-device fabric", "about 9 minutes (16.5 before its rewrite)", "-"))
    return rows


BENCHES = [("Planner", bench_plan), ("Inventory", bench_inventory), ("Build", bench_build),
           ("Validation", bench_validate), ("Virtual twin", bench_twin)]


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    import ansible
    return "%s, %d cores, %.0f GiB RAM, %s, Python %s, ansible-core %s" % (
        cpu, os.cpu_count(), mem, platform.platform(), platform.python_version(), ansible.__version__)


def main():
    only = set(sys.argv[1:])
    sections = []
    for title, fn in BENCHES:
        if only and title.lower() not in only:
            continue
        print("bench: %s ..." % title, flush=True)
        rows = fn()
        for row in rows:
            print("  %s: %s (target %s)" % row, flush=True)
        sections.append((title, rows))
    lines = ["# Performance", "",
             "Written by `make bench` (tests/bench/run_bench.py); every figure below was measured in one run.", "",
             "- Date: %s" % datetime.date.today().isoformat(), "- Machine: %s" % machine(), ""]
    for title, rows in sections:
        lines += ["## %s" % title, "", "| measurement | result | target |", "|---|---|---|"]
        lines += ["| %s | %s | %s |" % row for row in rows]
        lines.append("")
    notes = os.path.join(ROOT, "tests", "bench", "notes.md")
    if os.path.exists(notes):
        with open(notes) as f:
            lines += [f.read().rstrip(), ""]
    from gpufabric.export import write_atomic
    write_atomic(os.path.join(ROOT, "docs", "performance.md"), "\n".join(lines))
    print("wrote docs/performance.md")


if __name__ == "__main__":
    main()
