"""``nv config`` on a Cumulus switch of the twin, beyond `nv config show` (nv_cli.py parses the command line):

    nv config patch <file>                                 the file's `set` documents merged into the pending revision
    nv config replace <file>                               the pending revision made the file's configuration, whole
    nv config apply [<rev>] -y [--confirm <time>] [-m <message>]
                                                           the pending revision (or <rev>) applied; with --confirm it
                                                           waits to be confirmed, rolled back by the switch otherwise
    nv config apply <rev> --confirm-yes | --confirm-no     keep it, or roll it back now
    nv config apply --confirm-status                       the time left before the rollback
    nv config save                                         the applied configuration saved as the startup one
    nv config history [<rev>] [-o json]                    every apply: revision, date, user, how, message, state
    nv config diff [<rev> [<rev>]] [-o json]               what the first (applied) lacks of the second (pending)

As NVIDIA's user guide 5.14 ("NVUE CLI", Configuration Management Commands; the NVUE command reference, Config
Commands) describes them; the confirm timer and history themselves are the switch's (nvue_confirm.py). The commands
reach the switch's nvued as NVIDIA's nv does, locally (nv_api.py), so a switch whose management network is cut still
answers them. `nv config diff` prints `- unset:` (what goes) and `- set:` (what comes) documents, NVUE's format.
"""
import os
import sys

APPLY_TIMEOUT = 300.0


def fail(message):
    sys.stderr.write("Error: %s\n" % message)
    return 1


def client(host, directory):
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


def load_patch(path):
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


def diff_documents(before, after):
    """NVUE's diff of two configurations: [{"unset": what goes}, {"set": what comes or changes}], empty parts left out."""
    def walk(old, new):
        unset, put = {}, {}
        for key in old:
            if key not in new:
                unset[key] = None
        for key, value in new.items():
            if key not in old:
                put[key] = value
            elif isinstance(value, dict) and isinstance(old[key], dict):
                sub_unset, sub_put = walk(old[key], value)
                if sub_unset:
                    unset[key] = sub_unset
                if sub_put:
                    put[key] = sub_put
            elif value != old[key]:
                put[key] = value
        return unset, put
    unset, put = walk(before or {}, after or {})
    return ([{"unset": unset}] if unset else []) + ([{"set": put}] if put else [])


def _pending(nvue, pending_file):
    try:
        with open(pending_file, encoding="utf-8") as f:
            rev = f.read().strip()
    except OSError:
        rev = ""
    return rev if rev and nvue.revision(rev).get("state") == "pending" else ""


def _apply(nvue, rev, opts, pending_file):
    from .nv_api import APPLIED, why
    from .nvue_confirm import confirm_seconds

    if opts.get("confirm_answer"):
        if not rev:
            return fail("nv config apply <revision> --confirm-%s: name the revision waiting for confirmation"
                        % opts["confirm_answer"])
        view = nvue.confirm(rev, opts["confirm_answer"] == "yes")
        sys.stdout.write("%s [rev_id: %s]\n" % (view.get("state"), rev))
        return 0
    rev = rev or _pending(nvue, pending_file)
    if not rev:
        return fail("no pending configuration to apply")
    if not opts.get("yes"):
        return fail("nv config apply asks before it applies: give -y (the twin's nv does not prompt)")
    confirm = confirm_seconds(opts["confirm"]) if opts.get("confirm") is not None else None
    ended = nvue.apply(rev, timeout=APPLY_TIMEOUT, poll=0.2, confirm=confirm, message=opts.get("message"))
    if os.path.exists(pending_file):
        os.remove(pending_file)
    if confirm and ended.get("state") == "confirm":
        sys.stdout.write("applied [rev_id: %s]; confirm within %d s (nv config apply %s --confirm-yes), or the switch "
                         "rolls it back\n" % (rev, confirm, rev))
        return 0
    if ended.get("state") not in APPLIED:
        return fail("revision %s: %s: %s" % (rev, ended.get("state"), why(ended)))
    sys.stdout.write("applied [rev_id: %s]\n" % rev)
    return 0


def configure(host, directory, verb, args, opts, output):
    """``nv config <verb> <args>`` with the options nv_cli.py parsed; ``output(data, fmt)`` prints."""
    from .nv_api import ApiError

    pending_file = os.path.join(directory, "cli-pending")
    try:
        if verb in ("patch", "replace"):
            if len(args) != 1:
                return fail("nv config %s <file>: one NVUE YAML file" % verb)
            patch = load_patch(args[0])
        elif len(args) > (2 if verb == "diff" else 1 if verb in ("apply", "history") else 0):
            return fail("nv config %s takes no argument %s here" % (verb, " ".join(args)))
        nvue = client(host, directory)
        if verb == "save":
            nvue.save()
            return 0
        if verb == "history":
            return output(nvue.history(args[0] if args else None), opts["fmt"])
        if verb == "diff":
            first = args[0] if args else "applied"
            second = args[1] if len(args) > 1 else (_pending(nvue, pending_file) or "applied")
            return output(diff_documents(nvue.config(first), nvue.config(second)), opts["fmt"])
        if verb == "apply" and opts.get("confirm_status"):
            return output(nvue.confirm_status(), opts["fmt"])
        if verb == "apply":
            return _apply(nvue, args[0] if args else "", opts, pending_file)
        rev = _pending(nvue, pending_file)
        if not rev:
            rev = nvue.new_revision()
            with open(pending_file, "w", encoding="utf-8") as f:
                f.write(rev + "\n")
        if verb == "replace":
            nvue.replace(rev, patch)
        else:
            nvue.patch(rev, patch)
        return 0
    except (OSError, ValueError, ApiError) as exc:
        return fail(str(exc))
