"""``nv`` on a Cumulus switch of the twin: NVUE's CLI for reading the configuration, and the configuration commands
a ZTP script runs.

    nv config show [-o json|yaml]                      the applied configuration, as `nv config save` writes it
    nv show <path ...> --applied|--startup [-o json]   one object of the applied or startup configuration
    nv config patch <file>                             the file's `set` documents merged into the pending revision
    nv config apply -y                                 the pending revision applied (NVUE's prompt answered yes)
    nv config save                                     the applied configuration saved as the startup one

The switch is the network namespace the command runs in (``ip netns identify``); its files are the
plane's (plane.py). ``nv show`` without --applied/--startup is the operational view, which the twin does
not model, except MLAG and bonds (`nv show mlag ...`, `nv show interface <bond> bond ...`, oper.py): it fails
saying so rather than answering with configuration. The configuration commands go through the
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


def main(args):
    fmt, which, words, yes = "yaml", None, [], False
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
        elif arg in ("-y", "--assume-yes"):
            yes = True
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
    if words[:1] == ["config"] and words[1:2] in (["patch"], ["apply"], ["save"]):
        return _configure(host, directory, words[1], words[2:], yes)
    if words[:1] != ["show"]:
        return _fail("nv %s is not modelled by the twin (nv show, nv config show|patch|apply|save)" % " ".join(words))
    if which is None:
        # The operational view the twin models: MLAG and bonds (oper.py); the rest is not modelled.
        from . import oper

        data = oper.show(directory, _read(directory, "applied"), words[1:])
        if data is None:
            return _fail("the operational view is not modelled by the twin for %s (only `nv show mlag` and `nv show "
                         "interface <bond> bond`): add --applied or --startup" % " ".join(words[1:]))
    else:
        data = _read(directory, which)
    for key in words[1:]:
        if not isinstance(data, dict) or key not in data:
            return _fail("The requested item does not exist.")
        data = data[key]
    return _output(data, fmt)


APPLY_TIMEOUT = 300.0


def _client(host, directory):
    from ....netns_process import enter_machine_network
    from .nv_api import Api
    from .plane import USER

    with open(os.path.join(directory, "api.port"), encoding="utf-8") as f:
        port = int(f.read())
    with open(os.path.join(os.path.dirname(os.path.dirname(directory)), "nvue-api", "password"), encoding="utf-8") as f:
        password = f.read().strip()
    if not enter_machine_network():
        raise OSError("not run inside the switch's network namespace")
    return Api(host, "127.0.0.1", port, USER, password, os.path.join(directory, "nvue-api.pem"))


def _load_patch(path):
    """The configuration a file holds: the `set` documents of a startup.yaml (NVUE's format), merged in order."""
    import yaml
    from .merge_patch import apply as merge

    with open(path, encoding="utf-8") as f:
        docs = yaml.safe_load(f)
    if isinstance(docs, dict):
        docs = [docs]
    config = {}
    for doc in docs or []:
        if not isinstance(doc, dict) or set(doc) - {"header", "set"}:
            raise ValueError("%s: not an NVUE configuration (a list of header and set documents)" % path)
        if isinstance(doc.get("set"), dict):
            config = merge(config, doc["set"])
    return config


def _configure(host, directory, verb, args, yes):
    from .nv_api import APPLIED, ApiError, why

    pending_file = os.path.join(directory, "cli-pending")
    try:
        if verb == "patch":
            if len(args) != 1:
                return _fail("nv config patch <file>: one NVUE YAML file")
            patch = _load_patch(args[0])
        elif args:
            return _fail("nv config %s takes no argument here, not %s" % (verb, " ".join(args)))
        nvue = _client(host, directory)
        if verb == "save":
            nvue.save()
            return 0
        try:
            with open(pending_file, encoding="utf-8") as f:
                rev = f.read().strip()
        except OSError:
            rev = ""
        if rev and nvue.revision(rev).get("state") != "pending":
            rev = ""
        if verb == "patch":
            if not rev:
                rev = nvue.new_revision()
                with open(pending_file, "w", encoding="utf-8") as f:
                    f.write(rev + "\n")
            nvue.patch(rev, patch)
            return 0
        if not rev:
            return _fail("no pending configuration to apply")
        if not yes:
            return _fail("nv config apply asks before it applies: give -y (the twin's nv does not prompt)")
        ended = nvue.apply(rev, timeout=APPLY_TIMEOUT, poll=0.2)
        os.remove(pending_file)
        if ended.get("state") not in APPLIED:
            return _fail("revision %s: %s: %s" % (rev, ended.get("state"), why(ended)))
        sys.stdout.write("applied [rev_id: %s]\n" % rev)
        return 0
    except (OSError, ValueError, ApiError) as exc:
        return _fail(str(exc))
