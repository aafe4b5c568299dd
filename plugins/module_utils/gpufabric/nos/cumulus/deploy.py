"""Deploy one Cumulus Linux switch's startup.yaml through the NVUE REST API, as NVIDIA documents the flow
(user guide, "NVUE API"): create a revision, PATCH the change into it, apply it answering NVUE's prompt,
poll its state until it ends (bounded), save it (`nv config save`), and put the previous configuration
back whenever anything after the first change fails.

The change sent is the JSON merge patch from the switch's applied configuration (``rev=applied``,
``filled=false``) to the target: what the target sets is set, what the switch has and the target does not
is unset with ``null`` — except under the kept paths (user accounts, the API's own settings, ...), which
the build does not render and a deploy must not take from the switch. The same comparison is the
``--check --diff`` output. Rollback replaces the whole configuration with the one read before the change
(the guide's "Replace an Entire Configuration"), so it restores exactly what ran, kept paths included.
"""
import re

from ... import bgp_gate
from .confirm import CliError, DeployError, apply_confirmed, changed_by_hand, nvue_diff, record_message, wait_state
from .nvue_client import APPLIED, FAILED, NvueError, issue_text, merge

# Paths a deploy never unsets when the target lacks them: the switch's accounts, the API the deploy talks
# through, its certificates and NVUE's own config settings.
DEFAULT_KEEP = ("system.aaa", "system.api", "system.security", "system.config")
_RELEASE = re.compile(r"(\d+\.\d+)")


def load_documents(text):
    """A startup.yaml's documents, YAML 1.2 booleans (NVUE's on/off stay strings) where the schema gate is here."""
    try:
        from .schema import load_startup
    except ImportError:
        import yaml

        return yaml.safe_load(text)
    return load_startup(text)


def schema_gate(documents, hostname, release):
    """[] or the problems of a startup.yaml against NVIDIA's NVUE object model of ``release``; None when this
    home's schema gate is not installed. A release the installed models do not cover is a problem."""
    try:
        from . import schema
    except ImportError:
        return None
    if not release:
        return ["%s: startup.yaml names no Cumulus Linux release (header version): give the release" % hostname]
    try:
        schema.check_release(release, key="release")
    except ValueError as exc:
        return ["%s: %s" % (hostname, exc)]
    return schema.problems(documents, hostname, release)


def target_of(documents, hostname):
    """(header, configuration) of a startup.yaml: its `- set:` documents merged in order."""
    if not isinstance(documents, list):
        raise DeployError("%s: startup.yaml is a list of `- header:` / `- set:` documents" % hostname)
    header, config = {}, {}
    for n, doc in enumerate(documents):
        if not isinstance(doc, dict) or len(doc) != 1 or next(iter(doc)) not in ("header", "set"):
            raise DeployError("%s: startup.yaml document %d: one key, header or set, expected" % (hostname, n + 1))
        (kind, body), = doc.items()
        if kind == "header":
            header = body or {}
        else:
            config = merge(config, body or {})
    return header, config


def release_of(header):
    """"5.14" from the header's ``version: Cumulus Linux 5.14.0``, else None."""
    match = _RELEASE.search(str((header or {}).get("version", "")))
    return match.group(1) if match else None


def merge_patch(before, after):
    """The JSON merge patch (RFC 7386, NVUE's PATCH semantics) turning ``before`` into ``after``; None when equal."""
    if before == after:
        return None
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    patch = {key: None for key in before if key not in after}
    for key, value in after.items():
        if key not in before:
            patch[key] = value
        else:
            sub = merge_patch(before[key], value)
            if sub is not None:
                patch[key] = sub
    return patch or None


def _get(tree, keys):
    for key in keys:
        if not isinstance(tree, dict) or key not in tree:
            return None
        tree = tree[key]
    return tree


def with_kept(target, applied, keep):
    """``target`` plus whatever the switch has under the kept paths and the target does not set."""
    import copy

    out = copy.deepcopy(target)
    for path in keep:
        keys = path.split(".")
        have = _get(applied, keys)
        if have is None or _get(out, keys) is not None:
            continue
        node = out
        for key in keys[:-1]:
            node = node.setdefault(key, {})
            if not isinstance(node, dict):
                break
        else:
            node[keys[-1]] = copy.deepcopy(have)
    return out


def fingerprint(config, depth=2):
    """{dotted path: digest} of a configuration's objects down to ``depth`` keys: what a deploy records of the
    configuration it left, to tell later whether someone changed the switch since (no value is kept)."""
    import hashlib
    import json

    out = {}

    def walk(node, keys):
        if not keys and node == {}:
            return          # an empty configuration (a factory-empty switch) has no object to record
        if len(keys) == depth or not isinstance(node, dict) or not node:
            out[".".join(keys)] = hashlib.sha256(json.dumps(node, sort_keys=True).encode()).hexdigest()[:16]
            return
        for key, value in node.items():
            walk(value, keys + [str(key)])

    walk(config, [])
    return out


def changed_since(recorded, config):
    """The paths whose objects differ between a recorded fingerprint and ``config``."""
    now = fingerprint(config)
    return sorted(p for p in set(recorded) | set(now) if recorded.get(p) != now.get(p))


def yaml_text(config):
    import yaml

    return yaml.safe_dump([{"set": config}] if config else [], sort_keys=True, default_flow_style=False)


def _rollback(client, snapshot, timeout, poll, save, cli=None):
    """Put ``snapshot`` back as the applied (and saved) configuration; returns the rollback's revision. Through
    ``cli`` (`nv`), the apply carries the deploy's record of it, so the next deploy finds the switch as left."""
    rev = client.create_revision()
    client.replace(rev, snapshot)
    if cli is not None:
        try:
            cli.apply(rev, 0, record_message(snapshot))
        except CliError as exc:
            raise NvueError(str(exc)) from None
        view = wait_state(client, rev, APPLIED | FAILED, timeout, poll)
    else:
        view = client.apply(rev, timeout, poll)
    if view.get("state") not in APPLIED:
        raise NvueError("%s: rollback revision %s ended %s: %s" % (client.hostname, rev, view.get("state"), issue_text(view)))
    if client.config("applied") != snapshot:
        raise NvueError("%s: rollback revision %s applied but the configuration differs from the one before"
                        % (client.hostname, rev))
    if save:
        client.save()
    return rev


def _wait_for(read, want, timeout, poll):
    import time

    deadline = time.monotonic() + timeout
    while True:
        if read() == want:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)


def _guard(client, cli, applied):
    """Refuse a switch changed since the last deploy its revision history records (nv config history)."""
    def config_of(rev):
        try:
            return client.config(rev) if rev else None
        except NvueError:
            return None     # a revision the switch no longer keeps: the applies since are named instead
    changed = changed_by_hand(cli.history(), applied, config_of, fingerprint, changed_since)
    if changed:
        raise DeployError("%s: the configuration running on the switch changed since the last deploy (%s%s), by "
                          "hand or by another tool; nothing sent: put the change in the spec, or set "
                          "cumulus_deploy_overwrite_changes=true to replace it with the build"
                          % (client.hostname, ", ".join(changed[:8]),
                             " and %d more" % (len(changed) - 8) if len(changed) > 8 else ""))


def _check_after(client, desired, rev, gate, gate_timeout, gate_poll):
    """The read-back and the BGP gate after an apply: a problem, or None."""
    if client.config("applied") != desired:
        return "NVUE revision %s is applied but the applied configuration differs from the target" % rev
    found = bgp_gate.wait(gate, gate_timeout, gate_poll) if gate is not None else []
    if found:
        return "NVUE revision %s is applied but the BGP gate did not pass within %ss: %s" % (
            rev, gate_timeout, "; ".join(found[:6]) + ("; and %d more" % (len(found) - 6) if len(found) > 6 else ""))
    return None


def _apply(client, rev, desired, applied, opts):
    """Apply the patched revision: through `nv` with the confirm timer and the deploy's record when ``opts["cli"]``,
    else through the API; then the read-back, the BGP gate and the save. A problem, or None."""
    timeout, poll = opts["timeout"], opts["poll"]

    def check_after():
        return _check_after(client, desired, rev, opts["gate"], opts["gate_timeout"], opts["gate_poll"])
    if opts["cli"] is not None:
        problem = apply_confirmed(client, opts["cli"], rev, desired, applied, opts["confirm"], timeout, poll,
                                  check_after)
    else:
        view = client.apply(rev, timeout, poll)
        state = view.get("state")
        if state not in APPLIED:
            how = "did not end within %ss (state %s)" % (timeout, state) if state not in FAILED else state
            problem = "NVUE revision %s %s: %s" % (rev, how, issue_text(view))
        else:
            problem = check_after()
    if problem is None and opts["save"]:
        client.save()
        if not _wait_for(lambda: client.config("startup"), desired, timeout, poll):
            problem = "NVUE revision %s is applied but the startup configuration did not follow (nv config save)" % rev
    return problem


def deploy(client, target, check=False, keep=DEFAULT_KEEP, timeout=180.0, poll=2.0, save=True, guard=True,
           gate=None, gate_timeout=180.0, gate_poll=10.0, overlay=None, cli=None, confirm=0.0, diff=False):
    """Bring the switch behind ``client`` to ``target`` (a configuration: the merged `set` documents).
    ``cli``: `nv` on the switch (confirm.NvCli), through which the revision is applied with NVUE's confirm timer of
    ``confirm`` seconds (0: none) and the deploy's record; with ``guard``, a switch changed since the last deploy
    its history records is refused, untouched. None: applied through the API, with neither.
    ``gate``: the BGP gate, a callable returning its problems (bgp_gate.deploy_gate over the switch's FRR), asked
    after the apply every ``gate_poll`` seconds until it has none; still some after ``gate_timeout``: the previous
    configuration is put back (``--confirm-no``, or a rollback revision). The save comes after it.
    ``overlay``: a merge patch; when given, the target is the applied configuration with it merged in (``target``
    is then not used), as for the drain before a change: what runs, plus the drain.
    ``diff`` in check mode with ``cli``: the difference is NVUE's own (`nv config diff applied <rev>` of a pending
    revision holding the change, deleted unapplied), not the controller's YAML of the two configurations.
    Returns a dict: changed, revision, diff (before/after YAML, or NVUE's). Raises DeployError with the whole story."""
    host = client.hostname
    applied = client.config("applied")
    if cli is not None and guard:
        _guard(client, cli, applied)
    if overlay is not None:
        target = merge(applied, overlay)
    desired = with_kept(target, applied, keep)
    patch = merge_patch(applied, desired)
    result = {"changed": patch is not None, "diff": {"before": yaml_text(applied), "after": yaml_text(desired),
                                                     "before_header": "%s (NVUE applied)" % host,
                                                     "after_header": "%s (build)" % host}}
    if patch is None:
        return result
    if check:
        if diff and cli is not None:
            result["diff"] = nvue_diff(client, cli, patch)
        return result
    rev = client.create_revision()
    result["revision"] = rev
    try:
        client.patch(rev, patch)
    except NvueError as exc:
        try:
            client.delete_revision(rev)
        except NvueError:
            pass  # an unused pending revision changes nothing; the refusal is what the operator needs
        raise DeployError("%s; revision %s was not applied, the previous configuration is still running"
                          % (exc, rev)) from None
    problem = _apply(client, rev, desired, applied, {"cli": cli, "confirm": confirm, "timeout": timeout, "poll": poll,
                                                     "gate": gate, "gate_timeout": gate_timeout,
                                                     "gate_poll": gate_poll, "save": save})
    if problem is None:
        return result
    if client.config("applied") == applied:
        raise DeployError("%s: %s; the previous configuration is still applied" % (host, problem))
    try:
        back = _rollback(client, applied, timeout, poll, save, cli)
    except NvueError as exc:
        raise DeployError("%s: %s; ROLLBACK FAILED: %s" % (host, problem, exc)) from None
    raise DeployError("%s: %s; rolled back to the previous configuration (revision %s)" % (host, problem, back))
