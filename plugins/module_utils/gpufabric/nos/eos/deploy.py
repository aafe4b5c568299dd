"""Deploy one EOS switch's startup-config through a configuration session over eAPI, with napalm's eos driver
(docs/eos.md, "Deploy"). This module plans and runs the flow over a driver object (napalm's ``EOSDriver``, or a
stand-in in a test with the same methods); it imports neither napalm nor Ansible.

The flow, as napalm 5.2's eos driver sends it over eAPI:
- ``load_replace_candidate``: ``configure session <name>``, ``rollback clean-config`` (the session starts empty),
  then every line of the candidate (the build, plus the blocks of the running config a deploy keeps: accounts, the
  eAPI the deploy talks through, certificates; ``DEFAULT_KEEP``), ``end``;
- the deploy's record, merged into the same session (``load_merge_candidate``): a route-map of its own that nothing
  uses (``RECORD_MAP``, one ``deny`` entry) whose ``description`` names the digest of the session's configuration as
  EOS shows it (``show session-config named <name>``), so the record sits in the switch's own running config and
  survives a reload once saved; no controller file is needed (an AWX job keeps none between runs). A route-map
  description, not a mode comment (``comment``/``!!``): napalm sends comments as multi-line input, which a switch
  (or the twin) that does not take that input would lose, and a description is one ordinary configuration line;
- ``compare_config``: ``show session-config named <name> diffs``, the session's difference from what runs; empty,
  the session is aborted and nothing changes (a second deploy reports no change);
- ``commit_config(revert_in=N)``: ``copy startup-config flash:rollback-0``, then ``configure session <name> commit
  timer <hh:mm:ss>``: the change runs, and EOS puts the previous configuration back by itself unless it is committed
  again within N seconds (a change that cuts the controller off is undone without it);
- the BGP gate (the home's bgp_gate reader over eAPI JSON), then ``confirm_commit``: ``configure session <name>
  commit``, ``write memory``; a failed gate: ``rollback``, ``configure session <name> abort``, ``write memory``.

The hand-change guard reads the record back: a running config whose digest (the record line left out) is not the
one its record names was changed since the last deploy, by hand or by another tool, and is refused untouched. A
switch without a record (factory-empty, or never deployed by this collection) is not refused.
"""
import hashlib

from ... import bgp_gate

RECORD = "gpucluster.fabric deploy sha256="
# The route-map holding the record: referenced by nothing, a single deny entry, so it changes no routing.
RECORD_MAP = "GPUFABRIC-DEPLOY-RECORD"
# Top-level blocks of the running config a deploy never removes when the build does not have them: the switch's
# accounts and AAA, the eAPI the deploy talks through, its TLS profiles and certificates.
DEFAULT_KEEP = ("username ", "aaa ", "enable password", "management api http-commands", "management security")


class DeployError(Exception):
    """A deploy that did not go through; the message names the switch, EOS's words and what runs now."""


def _lines(text):
    return [line.rstrip() for line in (text or "").splitlines()]


def _is_record_head(line):
    return line.startswith("route-map %s " % RECORD_MAP)


def is_record(line):
    return RECORD in line


def normalized(text):
    """The configuration lines of a config text: no comment or separator line (``!``), no ``end``, no record
    (its route-map's block), no trailing blanks; what the digest is taken of, so EOS's header comments and the record
    itself do not count."""
    out = []
    for head, lines in blocks(text):
        if not _is_record_head(head):
            out += lines
    return out


def digest(text):
    """A short digest of a config text's configuration lines (what the record names; no value is kept)."""
    return hashlib.sha256("\n".join(normalized(text)).encode()).hexdigest()[:24]


def record_lines(text):
    """The record of ``text``: the configuration lines a deploy merges into its session."""
    return ["route-map %s deny 10" % RECORD_MAP, "   description %s%s" % (RECORD, digest(text))]


def record_of(running):
    """The digest the running config's record names, or None when it has none."""
    for head, lines in blocks(running):
        if _is_record_head(head):
            for line in lines:
                if RECORD in line:
                    rest = line.split(RECORD, 1)[1].split()
                    return rest[0] if rest else ""
    return None


def changed_by_hand(running):
    """True when the running config has a record and is no longer the configuration that record names."""
    recorded = record_of(running)
    return recorded is not None and recorded != digest(running)


def blocks(text):
    """A config text's top-level blocks, in order: [(first line, [its lines])]; a block is a line at column 0 with
    the indented lines under it. Comment and separator lines belong to no block."""
    out = []
    for line in _lines(text):
        bare = line.strip()
        if not bare or bare.startswith("!") or bare == "end":
            continue
        if line[:1] != " ":
            out.append((line, [line]))
        elif out:
            out[-1][1].append(line)
    return out


def kept_blocks(running, build, keep=DEFAULT_KEEP):
    """The lines of the running config's blocks under a kept prefix whose first line the build does not have."""
    have = {head for head, _lines in blocks(build)}
    out = []
    for head, lines in blocks(running):
        if head not in have and any(head.startswith(prefix) for prefix in keep):
            out += lines
    return out


def candidate(build, running, keep=DEFAULT_KEEP):
    """The configuration a deploy puts in its session: the build, then what the running config keeps."""
    extra = kept_blocks(running, build, keep)
    text = "\n".join(_lines(build)).rstrip("\n")
    if extra:
        text += "\n!\n" + "\n".join(extra)
    return text + "\n"


def with_lines(build, lines):
    """``build`` with EOS configuration ``lines`` (drain.commands' body) appended: the drained form of a build."""
    body = [line for line in lines if line not in ("configure", "end")]
    return "\n".join(_lines(build)).rstrip("\n") + "\n" + "\n".join(body) + "\n"


def _bounded(items, n=6):
    return "; ".join(items[:n]) + ("; and %d more" % (len(items) - n) if len(items) > n else "")


def _session(driver, text, merge=None):
    """Load ``text`` into a fresh session (or, with ``merge``, those lines over what runs), then the deploy's record
    of the session's configuration; returns the session's diff."""
    if merge is not None:
        driver.load_merge_candidate(config=[line for line in merge if line not in ("configure", "end")])
    else:
        driver.load_replace_candidate(config=text)
    shown = driver.get_config(retrieve="candidate").get("candidate") or text
    driver.load_merge_candidate(config=record_lines(shown))
    return driver.compare_config() or ""


def deploy(driver, hostname, build, check=False, keep=DEFAULT_KEEP, guard=True, gate=None, gate_timeout=180.0,
           gate_poll=10.0, confirm=600, step="change", merge=None):
    """Bring the switch behind ``driver`` (opened) to the config text ``build`` in one configuration session.
    ``check``: the session's diff only, aborted. ``guard``: refuse a switch changed since the last deploy's record.
    ``gate``: a callable returning the BGP gate's problems (bgp_gate.deploy_gate over the home's reader), asked
    every ``gate_poll`` seconds after the commit until it has none; still some after ``gate_timeout``, the session
    is rolled back. ``confirm``: seconds of EOS's commit timer (0: commit at once, rolled back by replacing the
    running config with the one saved before, ``configure replace flash:rollback-0``).
    ``merge``: EOS configuration lines (drain.commands) merged over what runs instead of ``build`` (drain, undrain).
    Returns {changed, diff, session}; raises DeployError with the whole story."""
    running = driver.get_config(retrieve="running").get("running") or ""
    if guard and changed_by_hand(running):
        raise DeployError("%s: the running config changed since the last deploy (its record names %s, it is now %s), "
                          "by hand or by another tool; nothing sent: put the change in the spec, or set "
                          "eos_deploy_overwrite_changes=true to replace it with the build"
                          % (hostname, record_of(running), digest(running)))
    text = candidate(build, running, keep)
    try:
        diff = _session(driver, text, merge)
    except Exception as exc:  # napalm's ReplaceConfigException/MergeConfigException, eAPI's errors
        _abort(driver)
        raise DeployError("%s: EOS refused the %s session: %s; nothing changed, the previous configuration runs"
                          % (hostname, step, _one_line(exc))) from None
    session = getattr(driver, "config_session", None)
    result = {"changed": bool(diff.strip()), "diff": diff, "session": session}
    if check or not result["changed"]:
        _abort(driver)
        return result
    try:
        if confirm:
            driver.commit_config(revert_in=int(confirm))
        else:
            driver.commit_config()
    except Exception as exc:
        _abort(driver)
        raise DeployError("%s: the commit of session %s failed: %s; the previous configuration runs"
                          % (hostname, session, _one_line(exc))) from None
    _gate_then_confirm(driver, hostname, session, gate, gate_timeout, gate_poll, confirm)
    return result


def _gate_then_confirm(driver, hostname, session, gate, gate_timeout, gate_poll, confirm):
    """After the commit: the BGP gate, then the confirmation; a failed gate rolls the session back. Raises
    DeployError saying what runs on the switch when the change is not kept."""
    try:
        found = bgp_gate.wait(gate, gate_timeout, gate_poll) if gate is not None else []
    except Exception as exc:
        if confirm:
            raise DeployError("%s: lost the switch after committing session %s with a %ds commit timer (%s); not "
                              "confirmed, EOS rolls it back to the previous configuration by itself when the timer "
                              "ends" % (hostname, session, confirm, _one_line(exc))) from None
        raise DeployError("%s: lost the switch after committing session %s (%s); no commit timer was armed "
                          "(eos_deploy_confirm_timeout 0), so the new configuration stays"
                          % (hostname, session, _one_line(exc))) from None
    if found:
        problem = "session %s is committed but the BGP gate did not pass within %ss: %s" % (
            session, gate_timeout, _bounded(found))
        try:
            driver.rollback()
        except Exception as exc:
            raise DeployError("%s: %s; ROLLBACK FAILED (%s)%s" % (
                hostname, problem, _one_line(exc),
                "; EOS's commit timer (%ds) still rolls it back unless it is confirmed" % confirm if confirm else ""
            )) from None
        how = "configure session %s abort" % session if confirm else "configure replace flash:rollback-0"
        raise DeployError("%s: %s; rolled back to the previous configuration (%s)" % (hostname, problem, how))
    if confirm:
        try:
            driver.confirm_commit()
        except Exception as exc:
            raise DeployError("%s: the BGP gate passed but confirming session %s failed (%s); EOS's commit timer "
                              "(%ds) rolls the change back unless it is confirmed: deploy again"
                              % (hostname, session, _one_line(exc), confirm)) from None


def _abort(driver):
    try:
        driver.discard_config()
    except Exception:
        pass  # an aborted or never-opened session changes nothing; the caller's message is what matters


def _one_line(exc):
    text = " ".join(str(exc).split())
    return text[:400] + ("..." if len(text) > 400 else "")
