"""``nv`` on a Cumulus switch of the twin: NVUE's CLI for reading the configuration.

    nv config show [-o json|yaml]                      the applied configuration, as `nv config save` writes it
    nv show <path ...> --applied|--startup [-o json]   one object of the applied or startup configuration

The switch is the network namespace the command runs in (``ip netns identify``); its files are the
plane's (plane.py). ``nv show`` without --applied/--startup is the operational view, which the twin does
not model: it fails saying so rather than answering with configuration. Anything that changes the
configuration goes through the NVUE API (deploy), not this CLI.
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


def main(args):
    fmt, which, words = "yaml", None, []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-o", "--output") and i + 1 < len(args):
            fmt = args[i + 1]
            i += 2
            continue
        if arg.startswith("--output="):
            fmt = arg.split("=", 1)[1]
        elif arg in ("--applied", "--startup"):
            which = arg[2:]
        elif arg.startswith("-"):
            return _fail("option %s is not modelled by the twin's nv" % arg)
        else:
            words.append(arg)
        i += 1
    if fmt not in ("json", "yaml"):
        return _fail("output format %s: json or yaml" % fmt)
    host, directory = _switch_dir()
    if directory is None:
        return _fail("not on a Cumulus switch of the twin (namespace %s has no NVUE)" % (host or "none"))
    if words[:2] == ["config", "show"] and len(words) == 2:
        header = {"model": "twin", "nvue-api-version": "nvue_v1", "rev-id": 1.0}
        return _output([{"header": header}, {"set": _read(directory, "applied")}], fmt)
    if words[:1] != ["show"]:
        return _fail("nv %s is not modelled by the twin (nv show, nv config show)" % " ".join(words))
    if which is None:
        return _fail("the operational view is not modelled by the twin: add --applied or --startup")
    data = _read(directory, which)
    for key in words[1:]:
        if not isinstance(data, dict) or key not in data:
            return _fail("The requested item does not exist.")
        data = data[key]
    return _output(data, fmt)
