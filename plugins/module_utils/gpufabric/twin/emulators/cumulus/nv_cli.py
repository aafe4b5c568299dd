"""``nv`` on a Cumulus switch of the twin: NVUE's CLI for reading the configuration, and the configuration commands
a ZTP script runs.

    nv config show [--all] [-o json|yaml]              the applied configuration, as `nv config save` writes it
                                                       (--all: with the defaults NVUE fills in, factory.py)
    nv show <path ...> --applied|--startup [-o json]   one object of the applied or startup configuration
    nv config patch|replace|apply|save|history|diff    nv_config.py (apply with --confirm, -m; history; diff)

The switch is the network namespace the command runs in (``ip netns identify``); its files are the
plane's (plane.py). ``nv show`` without --applied/--startup is the operational view: interfaces (kernel, lldpd) and BGP
neighbours (FRR) as the namespace runs them (oper_live.py), MLAG and bonds (`nv show mlag ...`, `nv show interface
<bond> bond ...`, oper.py); any other fails saying so rather than answering with configuration. The configuration commands go through the
switch's NVUE API, as NVIDIA's nv does through nvued: a revision created, patched and applied (its state polled until
it ends), `save`; the pending revision lasts from one command to the next (``cli-pending`` in the switch's files), as
a user's pending changes do between nv commands. The stand-in's API listens on the machine's 127.0.0.1, so they
reach it from the machine's network namespace (netns_process.py). Other `nv set`/`unset` commands are not modelled.
"""
import glob
import json
import os
import subprocess
import sys

STATE_ROOT = "/run/gpufabric-twin"


def _fail(message):
    sys.stderr.write("Error: %s\n" % message)
    return 1


def _switch_dir():
    proc = subprocess.run(["ip", "netns", "identify", str(os.getpid())], capture_output=True, text=True, check=False)
    name = proc.stdout.strip()
    if not name:
        return None, None
    found = sorted(glob.glob(os.path.join(STATE_ROOT, "*", name, "nvue")))
    return name, (found[0] if found else None)


def _read(directory, which):
    if which == "applied":
        path = os.path.join(directory, "applied.json")
        if not os.path.exists(path):
            return {}
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    path = os.path.join(directory, "startup.yaml")
    if not os.path.exists(path):
        return {}
    import yaml

    with open(path, encoding="utf-8") as f:
        docs = yaml.safe_load(f) or []
    config = {}
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("set"), dict):
            config.update(doc["set"])
    return config


def _output(data, fmt):
    if fmt == "json":
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
    else:
        import yaml

        sys.stdout.write(yaml.safe_dump(data, sort_keys=True, default_flow_style=False))
    return 0


def _options(args):
    """(options, --applied/--startup, words) of an nv command line, or (a message naming what is wrong, None, None)."""
    import re

    opts, which, words = {"fmt": "yaml"}, None, []
    i = 0
    while i < len(args):
        arg, nxt = args[i], args[i + 1] if i + 1 < len(args) else None
        if arg in ("-o", "--output", "-m", "--message") and nxt is not None:
            opts["fmt" if arg in ("-o", "--output") else "message"] = nxt
            i += 2
            continue
        if arg == "--confirm":
            # --confirm [<time>]: ten minutes unless a time follows (30s, 10m, 1h; a bare number counts minutes)
            timed = nxt is not None and re.match(r"^\d+[smh]?$", nxt)
            opts["confirm"] = nxt if timed else "10m"
            i += 2 if timed else 1
            continue
        if arg.startswith("--output="):
            opts["fmt"] = arg.split("=", 1)[1]
        elif arg in ("--applied", "--startup"):
            which = arg[2:]
        elif arg == "--all":
            opts["all"] = True     # nv config show --all: with the defaults NVUE fills in
        elif arg in ("-y", "--y", "--assume-yes"):
            opts["yes"] = True
        elif arg in ("--confirm-yes", "--confirm-no"):
            opts["confirm_answer"] = arg[len("--confirm-"):]
        elif arg == "--confirm-status":
            opts["confirm_status"] = True
        elif arg.startswith("-"):
            return "option %s is not modelled by the twin's nv" % arg, None, None
        else:
            words.append(arg)
        i += 1
    return opts, which, words


def main(args):
    opts, which, words = _options(args)
    if isinstance(opts, str):
        return _fail(opts)
    fmt = opts["fmt"]
    if fmt not in ("json", "yaml"):
        return _fail("output format %s: json or yaml" % fmt)
    host, directory = _switch_dir()
    if directory is None:
        return _fail("not on a Cumulus switch of the twin (namespace %s has no NVUE)" % (host or "none"))
    if words[:2] == ["config", "show"] and len(words) == 2:
        header = {"model": "twin", "nvue-api-version": "nvue_v1", "rev-id": 1.0}
        config = _read(directory, "applied")
        if opts.get("all"):
            from .factory import filled
            config = filled(config)
        return _output([{"header": header}, {"set": config}], fmt)
    if words[:1] == ["config"] and words[1:2] in (["patch"], ["replace"], ["apply"], ["save"], ["history"], ["diff"]):
        from .nv_config import configure

        return configure(host, directory, words[1], words[2:], opts, _output)
    if words[:1] != ["show"]:
        return _fail("nv %s is not modelled by the twin (nv show, nv config show|patch|replace|apply|save|history|diff)"
                     % " ".join(words))
    if which is None:
        # The operational views the twin models: MLAG and bonds (oper.py), interfaces and BGP neighbours from what the
        # namespace runs (oper_live.py); the rest is not modelled.
        from . import oper, oper_live

        applied = _read(directory, "applied")
        data = oper.show(directory, applied, words[1:])
        if data is None:
            data = oper_live.show(host, directory, applied, words[1:])
        if data is None:
            return _fail("the operational view is not modelled by the twin for %s (only `nv show interface [<name> "
                         "[link|ip|lldp]]`, `nv show vrf default router bgp neighbor`, `nv show mlag` and `nv show "
                         "interface <bond> bond`): add --applied or --startup" % " ".join(words[1:]))
    else:
        data = _read(directory, which)
    for key in words[1:]:
        if not isinstance(data, dict) or key not in data:
            return _fail("The requested item does not exist.")
        data = data[key]
    return _output(data, fmt)


def _load_patch(path):
    from .nv_config import load_patch

    return load_patch(path)
