"""Jobs laid out and run as AWX runs them, without AWX: its project sync, inventory sync and job runs, each in a
private data directory of its own, through ansible-runner (the runner AWX executes jobs with).

What AWX does, from ansible/awx (awx/main/tasks/jobs.py, awx/main/models/inventory.py, project_update.yml), and
what this module does the same way:
- **Project sync**: the project's checkout, then `ansible-galaxy collection install -r collections/requirements.yml
  --collections-path <stage>/requirements_collections` run in the checkout's root. Galaxy is out of reach here, so
  the collections this collection depends on must already be installed (the `ansible` package bundles them).
- **Inventory sync** (an inventory source "Sourced from a Project"): `ansible-inventory -i <project>/<source path>
  --list --export --playbook-dir <its folder>` run in the project's root, with the source's variables as
  environment variables and the synced project's collections first on ANSIBLE_COLLECTIONS_PATH. AWX stores the
  result (hosts, groups, their variables) and the job never sees the source again.
- **A job**: a private data directory holding `project/` (a copy of the synced project), `requirements_collections/`,
  `inventory/hosts` (an executable script printing the stored inventory, hosts sorted by name, sliced as
  `[slice_number - 1::slice_count]` for a sliced job, with only the groups that keep a host or a child),
  `env/extravars`, and the job template's limit, tags, check and diff on the command line. ansible-runner runs
  `ansible-playbook` in `project/`.
- **Fact cache** (`use_fact_cache`): before the job the stored facts of the job's hosts are written to
  `artifacts/<job>/fact_cache/<host>` as plain JSON and ANSIBLE_CACHE_PLUGIN=jsonfile points there; after it, the
  files `<host>` that changed are stored back on their hosts. A workflow's later job sees what an earlier one
  cached. (ansible-core 2.19's jsonfile plugin itself uses `s1_<host>` files of another form, which AWX does not
  read; validate/observations.py says what the collection does about it.)
"""
import concurrent.futures
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

BIN = os.path.dirname(sys.executable)
_JOB_IDS = itertools.count(1)


def _env(home, extra=None):
    """The environment a job or sync runs in: no ANSIBLE_* of the caller's, a HOME of its own, the venv first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANSIBLE_", "PYTEST_"))}
    env.update(HOME=str(home), PATH=BIN + os.pathsep + env.get("PATH", ""), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    env.update(extra or {})
    return env


def _run(argv, cwd, env, timeout=600):
    proc = subprocess.run(argv, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (" ".join(argv), proc.returncode, proc.stdout[-3000:],
                                                          proc.stderr[-3000:]))
    return proc


class Project:
    """A project as AWX keeps it after a sync: the checkout ``source`` (copied) and its requirements_collections."""

    def __init__(self, source, base):
        self.base = str(base)
        self.home = os.path.join(self.base, "home")
        self.path = os.path.join(self.base, "project")
        self.collections = os.path.join(self.base, "requirements_collections")
        os.makedirs(self.home, exist_ok=True)
        shutil.copytree(str(source), self.path, symlinks=True)

    def sync(self):
        """AWX's project update: install what collections/requirements.yml names, from the checkout's root."""
        requirements = os.path.join("collections", "requirements.yml")
        if os.path.isfile(os.path.join(self.path, requirements)):
            _run([os.path.join(BIN, "ansible-galaxy"), "collection", "install", "-r", requirements,
                  "--collections-path", self.collections], self.path, _env(self.home))
        return self

    def env(self, extra=None):
        return _env(self.home, dict({"ANSIBLE_COLLECTIONS_PATH": self.collections}, **(extra or {})))


class Inventory:
    """What AWX stores of an inventory source's sync, and the job inventory it writes from it."""

    def __init__(self, project, source_path, source_vars=None):
        self.project, self.source_path = project, source_path
        self.source_vars = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in (source_vars or {}).items()}
        self.data = None

    def sync(self):
        source = os.path.join(self.project.path, self.source_path)
        out = os.path.join(self.project.base, "inventory-sync.json")
        playbook_dir = source if os.path.isdir(source) else os.path.dirname(source)
        _run([os.path.join(BIN, "ansible-inventory"), "-i", source, "--list", "--export", "--playbook-dir",
              playbook_dir, "--output", out], self.project.path, self.project.env(self.source_vars))
        with open(out) as f:
            self.data = json.load(f)
        return self

    def hosts(self):
        return sorted(self.data.get("_meta", {}).get("hostvars", {}))

    def script_data(self, slice_number=1, slice_count=1):
        """The JSON AWX's job inventory script prints (Inventory.get_script_data, hostvars and its own host vars)."""
        hosts = self.hosts()
        if slice_count > 1:
            hosts = hosts[slice_number - 1::slice_count]
        keep = set(hosts)
        out = {"all": {}}
        if self.data.get("all", {}).get("vars"):
            out["all"]["vars"] = self.data["all"]["vars"]
        grouped = set()
        for name, group in self.data.items():
            if name in ("_meta", "all", "ungrouped"):
                continue
            members = [h for h in group.get("hosts", ()) if h in keep]
            grouped.update(members)
            info = {}
            if members:
                info["hosts"] = members
            if group.get("children"):
                info["children"] = [c for c in group["children"] if c != "ungrouped"]
            if group.get("vars"):
                info["vars"] = group["vars"]
            if info.get("hosts") or info.get("children"):
                out[name] = info
        out["all"]["hosts"] = [h for h in hosts if h not in grouped]
        hostvars = self.data.get("_meta", {}).get("hostvars", {})
        out["_meta"] = {"hostvars": {h: dict(hostvars.get(h, {}), remote_tower_enabled="true",
                                             remote_tower_id=i + 1) for i, h in enumerate(hosts)}}
        return out


class Job:
    """One finished job: its return code, output, PLAY RECAP per host, private data directory and seconds."""

    def __init__(self, rc, stdout, recap, pdd, seconds):
        self.rc, self.stdout, self.recap, self.pdd, self.seconds = rc, stdout, recap, pdd, seconds

    def changed(self):
        """Hosts whose recap counts a change (localhost included)."""
        return sorted(h for h, counts in self.recap.items() if counts.get("changed"))

    def tail(self, n=6000):
        """The output's end, and where the whole of it is (the job's private data directory is kept)."""
        return "%s\n(whole output: %s)" % (self.stdout[-n:], os.path.join(self.pdd, "artifacts"))


def _recap(stdout):
    recap = {}
    started = False
    for line in stdout.splitlines():
        if line.startswith("PLAY RECAP"):
            started = True
            continue
        if started and ":" in line and "ok=" in line:
            host, _sep, rest = line.partition(":")
            recap[host.strip()] = {k: int(v) for k, v in (p.split("=") for p in rest.split())}
    return recap


class Controller:
    """Runs job templates as AWX does, keeping each host's facts between jobs (its fact cache)."""

    def __init__(self, base):
        self.base = str(base)
        self.facts = {}   # host -> facts, as AWX stores them on the host after a job with use_fact_cache

    def run(self, project, inventory, playbook, extra_vars=None, limit=None, tags=None, check=False, diff=False,
            slice_number=1, slice_count=1, use_fact_cache=False, timeout=1800):
        job_id = next(_JOB_IDS)
        pdd = tempfile.mkdtemp(prefix="awx_%d_" % job_id, dir=self.base)
        shutil.copytree(project.path, os.path.join(pdd, "project"), symlinks=True)
        if os.path.isdir(project.collections):
            shutil.copytree(project.collections, os.path.join(pdd, "requirements_collections"), symlinks=True)
        os.makedirs(os.path.join(pdd, "inventory"))
        os.makedirs(os.path.join(pdd, "env"))
        script = inventory.script_data(slice_number, slice_count)
        hosts_file = os.path.join(pdd, "inventory", "hosts")
        with open(hosts_file, "w") as f:
            f.write("#! /usr/bin/env python3\n# -*- coding: utf-8 -*-\nprint(%r)\n" % json.dumps(script))
        os.chmod(hosts_file, 0o700)
        with open(os.path.join(pdd, "env", "extravars"), "w") as f:
            yaml.safe_dump(dict(extra_vars or {}), f)
        envvars = {"ANSIBLE_COLLECTIONS_PATH": os.path.join(pdd, "requirements_collections"),
                   "ANSIBLE_RETRY_FILES_ENABLED": "False", "ANSIBLE_HOST_KEY_CHECKING": "False",
                   "JOB_ID": str(job_id), "AWX_PRIVATE_DATA_DIR": pdd}
        cache_dir, written = None, {}
        if use_fact_cache:
            cache_dir = os.path.join(pdd, "artifacts", str(job_id), "fact_cache")
            os.makedirs(cache_dir)
            for host in script["_meta"]["hostvars"]:
                if host in self.facts:
                    path = os.path.join(cache_dir, host)
                    with open(path, "w") as f:
                        json.dump(self.facts[host], f)
                    written[host] = os.path.getmtime(path)
            envvars.update(ANSIBLE_CACHE_PLUGIN="jsonfile", ANSIBLE_CACHE_PLUGIN_CONNECTION=cache_dir)
        with open(os.path.join(pdd, "env", "envvars"), "w") as f:
            yaml.safe_dump(envvars, f)
        cmdline = []
        if limit:
            cmdline += ["--limit", limit]
        if tags:
            cmdline += ["--tags", tags]
        if check:
            cmdline.append("--check")
        if diff:
            cmdline.append("--diff")
        if cmdline:
            with open(os.path.join(pdd, "env", "cmdline"), "w") as f:
                f.write(" ".join(cmdline))
        started = time.monotonic()
        proc = subprocess.run([os.path.join(BIN, "ansible-runner"), "run", pdd, "-p", playbook, "--inventory",
                               hosts_file, "--ident", str(job_id)],
                              env=_env(project.home), capture_output=True, text=True, timeout=timeout, check=False)
        seconds = round(time.monotonic() - started, 1)
        if cache_dir:
            # AWX's finish_fact_cache: a job host's file <host> that changed replaces its stored facts (other files,
            # such as the s1_<host> ansible-core 2.19 writes, it does not read).
            for host in script["_meta"]["hostvars"]:
                path = os.path.join(cache_dir, host)
                if os.path.exists(path) and written.get(host) != os.path.getmtime(path):
                    with open(path) as f:
                        self.facts[host] = json.load(f)
        stdout_path = os.path.join(pdd, "artifacts", str(job_id), "stdout")
        stdout = open(stdout_path).read() if os.path.exists(stdout_path) else proc.stdout
        return Job(proc.returncode, stdout + proc.stderr, _recap(stdout), pdd, seconds)


def working_tree(dest, root):
    """The checkout ``root``'s files as git would hand them over (tracked and untracked, minus ignored), into
    ``dest``: what AWX's project sync clones, this working tree's changes included."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        src = os.path.join(root, name)
        if not os.path.lexists(src):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, name), follow_symlinks=False)
    return dest


def git_repo(tree):
    """``tree`` committed as a git repository on branch main (the collection's repository a user's project pins)."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "collection"]):
        subprocess.run(argv, cwd=tree, env=env, check=True, capture_output=True)
    return tree


def report_results(job, cluster):
    """(every result of the validation report the job wrote in its project copy, as sorted tuples; its counts)."""
    path = os.path.join(job.pdd, "project", "build", "validation", cluster, "report.json")
    with open(path) as f:
        report = json.load(f)
    results = sorted((r["check"], r["device"], r["object"], r["status"], r["message"]) for r in report["results"])
    return results, report["counts"]


def sliced_validation(controller, project, inventory, playbook, cluster, slices=4):
    """The unsliced validation job, then AWX's sliced workflow: ``slices`` collect jobs at once (one per execution
    node), then the check job, all with the fact cache on. Returns their results, counts and seconds."""
    def ok(job):
        if job.rc:
            raise AssertionError("%s failed: %s" % (playbook, job.tail()))
        return job

    whole = ok(controller.run(project, inventory, playbook, use_fact_cache=True))
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=slices) as pool:
        parts = [pool.submit(controller.run, project, inventory, playbook, extra_vars={"validate_phase": "collect"},
                             slice_number=n, slice_count=slices, use_fact_cache=True) for n in range(1, slices + 1)]
        parts = [ok(p.result()) for p in parts]
    collect_s = round(time.monotonic() - started, 1)
    check = ok(controller.run(project, inventory, playbook, extra_vars={"validate_phase": "check"},
                              use_fact_cache=True))
    whole_results, counts = report_results(whole, cluster)
    sliced_results, sliced_counts = report_results(check, cluster)
    return {"whole": whole_results, "sliced": sliced_results, "counts": sliced_counts, "whole_counts": counts,
            "collected": {h for h, facts in controller.facts.items() if "fabric_observation" in facts},
            "whole_s": whole.seconds, "collect_s": collect_s, "slice_s": [p.seconds for p in parts],
            "check_s": check.seconds}
