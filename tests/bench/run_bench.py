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

from bench_awx import bench_awx  # noqa: E402  (tests/bench, next to this file)
from bench_compare import bench_compare  # noqa: E402
from bench_deploy_cost import bench_deploy_cost  # noqa: E402
from bench_expect import bench_expect  # noqa: E402
from bench_planes import bench_multi_plane  # noqa: E402
from bench_rollout import bench_rollout  # noqa: E402
from bench_twin import bench_twin  # noqa: E402
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


# Runs one command and reports its wall time, the CPU time of its whole process tree (what a quiet
# machine's wall time approaches: Ansible here is one process and one worker at a time), the peak memory of its
# largest process, and the peak of its process tree's memory together, each page counted once (the sum of the
# processes' PSS, read from /proc every 0.2 s: forked workers share their parent's pages until they write them).
MEASURE_CHILD = r"""
import json, os, resource, subprocess, sys, time


def tree_pss(root):
    children = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/stat" % pid) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(pid))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            with open("/proc/%d/smaps_rollup" % pid) as f:
                total += sum(int(line.split()[1]) for line in f if line.startswith("Pss:"))
        except (OSError, ValueError):
            pass
    return total / 1024


t = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:], cwd=sys.argv[1], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
peak = 0.0
err = []
import threading
reader = threading.Thread(target=lambda: err.append(proc.stderr.read()))
reader.start()
while proc.poll() is None:
    peak = max(peak, tree_pss(proc.pid))
    time.sleep(0.2)
wall = time.perf_counter() - t
reader.join()
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": proc.returncode, "wall": wall, "cpu": use.ru_utime + use.ru_stime,
                  "peak_mib": use.ru_maxrss / 1024, "tree_mib": peak,
                  "stderr": (err[0] if err else b"").decode(errors="replace")[-2000:]}))
"""


def measured(cmd, env=None, cwd=ROOT):
    """{"wall", "cpu", "peak_mib"} of ``cmd`` as a user runs it."""
    out = subprocess.run([sys.executable, "-c", MEASURE_CHILD, cwd] + cmd, env=env, check=True,
                         capture_output=True, text=True).stdout
    r = json.loads(out)
    if r["rc"]:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), r["stderr"]))
    return r


def figure(r):
    return "%.1f s wall, %.1f s CPU, peak %.0f MiB (largest process), %.0f MiB (all its processes, PSS)" % (
        r["wall"], r["cpu"], r["peak_mib"], r["tree_mib"])


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
        rows.append(("plan %s (%d GPUs, %d devices, %d cables), library" % (name, r["gpus"], r["devices"], r["links"]),
                     "%.2f s, peak %.0f MiB" % (r["seconds"], r["peak_mib"]),
                     "h100-100k: at most 2 s and 1 GiB" if name == "h100-100k" else "-"))
        with tempfile.TemporaryDirectory() as tmp:
            user = measured([os.path.join(BIN, "ansible-playbook"), "-i", "inventories/" + name, "playbooks/plan.yml",
                             "-e", "build_dir=" + tmp], env=ansible_env())
        rows.append(("`ansible-playbook -i inventories/%s playbooks/plan.yml` (as users run it: inventory, plan, "
                     "plan.json)" % name, figure(user), "h100-100k: at most 30 s and 2 GiB" if name == "h100-100k" else "-"))
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
        plugin = measured([os.path.join(BIN, "ansible-inventory"), "-i", "inventories/" + name, "--list",
                           "--output", out], env=ansible_env())
        plugin_s = plugin["wall"]
        with open(out) as f:
            listing = json.load(f)
        hosts = len(listing["_meta"]["hostvars"])
        ifaces = sum(len(v["fabric"].get("interfaces", ())) for v in listing["_meta"]["hostvars"].values())
        static = os.path.join(tmp, "static.yml")
        static_inventory(listing, static)
        static_s = timed([os.path.join(BIN, "ansible-inventory"), "-i", static, "--list", "--output", out],
                         env=ansible_env(ANSIBLE_INVENTORY_ENABLED="yaml"))
    return [
        ("`ansible-inventory -i inventories/%s --list`, topology plugin (%d hosts, %d server interfaces)"
         % (name, hosts, ifaces), figure(plugin), "at most 10 s"),
        ("ansible-inventory --list, same hosts and variables as static YAML", "%.1f s" % static_s, "-"),
        ("ratio static YAML / plugin", "%.1fx" % (static_s / plugin_s), "-"),
    ]


# The commit before the build wrote four files a GPU server and rendered in forked workers (issue 29): its build.yml
# runs beside this tree's. (Before, 05c9fa3: the commit before the build streamed and kept a manifest.)
BUILD_BASELINE = "56484a7"
BUILD_BASELINE_WHAT = "before four files a server and forked workers"


def _stamps(root):
    out = {}
    for directory, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            out[path] = os.stat(path).st_mtime_ns
    return out


def _build_twice(tree, name):
    """(fresh run, second run, files, files the second run wrote) of build.yml of ``name`` in ``tree``."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [os.path.join(BIN, "ansible-playbook"), "-i", "inventories/" + name, "playbooks/build.yml",
               "-e", "build_dir=" + tmp]
        env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(tree, "ansible.cfg"))
        first = measured(cmd, env=env, cwd=tree)
        before = _stamps(tmp)
        again = measured(cmd, env=env, cwd=tree)
        after = _stamps(tmp)
        files = sum(1 for path in before if not os.path.basename(path).startswith("."))
        written = sum(1 for path, mtime in after.items() if before.get(path) != mtime)
    return first, again, files, written


def bench_build():
    """playbooks/build.yml end to end (Ansible's start included): plan, switch configs, servers, documents; this
    tree and the commit before the streaming build (BUILD_BASELINE), one after the other in one run."""
    from bench_compare import export_tree
    rows = []
    with tempfile.TemporaryDirectory() as old:
        problem = export_tree(old, BUILD_BASELINE)
        for name, target in (("metalsoft-16k", "at most 60 s, not slower than %s" % BUILD_BASELINE),
                             ("h100-100k", "at most 60 s and 2048 MiB")):
            first, again, files, written = _build_twice(ROOT, name)
            rows.append(("`ansible-playbook -i inventories/%s playbooks/build.yml`, fresh build directory (%d files)"
                         % (name, files), figure(first), target))
            rows.append(("same, second run, nothing changed (%d files written)" % written, figure(again),
                         "at most 15 s, no file written" if name == "h100-100k" else "no file written"))
            if problem:
                rows.append(("same at %s" % BUILD_BASELINE, "not run: " + problem, "-"))
                continue
            ofirst, oagain, ofiles, owritten = _build_twice(old, name)
            rows.append(("same at %s (%s), fresh (%d files)" % (BUILD_BASELINE, BUILD_BASELINE_WHAT, ofiles),
                         "%s; now/then %.2fx wall, %.2fx CPU, %.2fx peak" % (
                             figure(ofirst), first["wall"] / ofirst["wall"], first["cpu"] / ofirst["cpu"],
                             first["peak_mib"] / ofirst["peak_mib"]), "-"))
            rows.append(("same at %s, second run, nothing changed (%d files written)" % (BUILD_BASELINE, owritten),
                         "%s; now/then %.2fx wall, %.2fx CPU, %.2fx peak" % (
                             figure(oagain), again["wall"] / oagain["wall"], again["cpu"] / oagain["cpu"],
                             again["peak_mib"] / oagain["peak_mib"]), "-"))
    rows.append(("Arista AVD, published: a 5,000-device fabric", "about 9 minutes (16.5 before its rewrite)", "-"))
    return rows


# One fabric of SN5600 leaves and spines, rendered as SONiC and as Cumulus Linux in one process each: the
# configs stage of the backend switches only (structured configs computed before the clock starts). Cumulus'
# first render also loads and tightens NVIDIA's NVUE model (once per process), timed apart.
NOS_CHILD = r"""
import json, sys, time, yaml
sys.path.insert(0, sys.argv[1])
from gpufabric.build import render_switches, structured
from gpufabric.plan import build_plan
spec = yaml.safe_load(open(sys.argv[2]))
spec["servers"]["count"] = int(sys.argv[4])
spec.pop("frontend", None)
spec["oob"]["pool"] = "10.128.0.0/16"
# 1:1, every link 400G on 2x400G cages (SONiC has no lossless buffer profile for 800G ports of SN5600 yet)
spec["backend"]["leaf"].update(downlinks=32, uplinks=32, uplink_breakout="2x400G")
spec["backend"]["spine"]["downlink_breakout"] = "2x400G"
for role in ("leaf", "spine"):
    spec["backend"][role]["nos"] = sys.argv[3]
plan = build_plan(spec)
names = [d.name for d in plan.devices if d.role.startswith("backend_") and d.role != "backend_host"]
cfgs = structured(plan)
setup = 0.0
if sys.argv[3] == "cumulus":  # NVIDIA's object model, loaded once per process and release (schema._models)
    from gpufabric.nos.cumulus import schema
    t = time.perf_counter()
    schema._models(plan.spec["switch_config"]["cumulus_release"])
    setup = time.perf_counter() - t
t = time.perf_counter()
render_switches(plan, names[:1])
first = time.perf_counter() - t
t = time.perf_counter()
files = render_switches(plan, names)
elapsed = time.perf_counter() - t
print(json.dumps({"switches": len(names), "seconds": elapsed, "first": first, "setup": setup, "files": len(files),
                  "bytes": sum(len(text) for text in files.values())}))
"""


def bench_nos():
    """Per-switch cost of the configs stage, SONiC beside Cumulus Linux (startup.yaml and its NVUE check)."""
    rows = []
    servers = 256
    for nos in ("sonic", "cumulus"):
        out = subprocess.run([sys.executable, "-c", NOS_CHILD, os.path.join(ROOT, "plugins", "module_utils"),
                              spec_path("cumulus-lab"), nos, str(servers)], check=True, capture_output=True, text=True)
        r = json.loads(out.stdout)
        what = ("config_db.json + frr.conf" if nos == "sonic" else
                "startup.yaml, each checked against NVIDIA's NVUE 5.14 model")
        setup = ("; before it, NVIDIA's model loaded and made strict %.2f s (once per process and release)"
                 % r["setup"] if r["setup"] else "")
        rows.append(("%s: %d SN5600 backend switches of a %d-server fabric, %s (%d files, %.1f MB)"
                     % (nos, r["switches"], servers, what, r["files"], r["bytes"] / 1e6),
                     "%.1f ms a switch (%.2f s in all); first switch of the process %.2f s%s"
                     % (1000 * r["seconds"] / r["switches"], r["seconds"], r["first"], setup), "-"))
    return rows


BENCHES = [("Planner", bench_plan), ("Inventory", bench_inventory), ("Build", bench_build),
           ("Build by NOS", bench_nos), ("Validation", bench_validate),
           ("Validation expectations", bench_expect), ("Virtual twin", bench_twin),
           ("Rollout", bench_rollout), ("Deploy cost", bench_deploy_cost), ("Sliced validation", bench_awx),
           ("Multi-plane", bench_multi_plane),
           ("Against the baseline", bench_compare)]


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2 ** 30
    import ansible
    return "%s, %d cores, %.0f GiB RAM, %s, Python %s, ansible-core %s; load average at the end %.1f" % (
        cpu, os.cpu_count(), mem, platform.platform(), platform.python_version(), ansible.__version__,
        os.getloadavg()[0])


def kept_sections():
    """{title: lines} of the sections of the current docs/performance.md (for a partial run)."""
    out, title, date = {}, None, "earlier"
    path = os.path.join(ROOT, "docs", "performance.md")
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f.read().splitlines():
            if line.startswith("- Date: "):
                date = line[len("- Date: "):]
            if line.startswith("## "):
                title = line[3:]
                out[title] = []
            if title:
                out[title].append(line)
    for lines in out.values():
        if not any(line.startswith("Measured ") for line in lines):
            lines[2:2] = ["Measured %s." % date, ""]
    return out


def main():
    only = set(sys.argv[1:])
    sections = []
    for title, fn in BENCHES:
        if only and title.lower() not in only and title.lower().split()[0] not in only:
            continue
        print("bench: %s ..." % title, flush=True)
        rows = fn()
        for row in rows:
            print("  %s: %s (target %s)" % row, flush=True)
        sections.append((title, rows))
    lines = ["# Performance", "",
             "Written by `make bench` (tests/bench/run_bench.py); every figure below was measured in one run, "
             "unless its section names another date (`run_bench.py <section>...` measures only those sections).", "",
             "- Date: %s" % datetime.date.today().isoformat(), "- Machine: %s" % machine(), ""]
    kept = kept_sections() if only else {}
    # Sections no benchmark writes (the test tiers' times, written after a CI run) stay, first, as they are.
    for title, section in kept_sections().items():
        if title not in dict(BENCHES) and title != "Notes":
            lines += section
    measured_titles = dict(sections)
    for title, _fn in BENCHES:
        if title in measured_titles:
            lines += ["## %s" % title, ""]
            if only:
                lines += ["Measured %s." % datetime.datetime.now().strftime("%Y-%m-%d %H:%M UTC"), ""]
            lines += ["| measurement | result | target |", "|---|---|---|"]
            lines += ["| %s | %s | %s |" % row for row in measured_titles[title]]
            lines.append("")
        elif title in kept:
            lines += kept[title]
    notes = os.path.join(ROOT, "tests", "bench", "notes.md")
    if os.path.exists(notes):
        with open(notes) as f:
            lines += [f.read().rstrip(), ""]
    from gpufabric.export import write_atomic
    write_atomic(os.path.join(ROOT, "docs", "performance.md"), "\n".join(lines))
    print("wrote docs/performance.md")


if __name__ == "__main__":
    main()
