"""One read of a SONiC switch for its deploy, and what the deploy decides from it (roles/sonic_deploy).

A read is one command line the controller sends over the switch's login shell (the raw path: no Python starts on
the switch), whose sections are separated by a marker line carrying each section's exit status:
- the pending pass (``pending``): ``show runningconfiguration all``, the installed frr.conf's checksum and the last
  deploy's record (``RECORD_FILE``, read by the hand-change guard);
- the deploy of a switch that differs (``full``): the same, but frr.conf whole (kept to restore it on rollback),
  ``/etc/sonic/sonic_version.yml`` (the release and ASIC the Generic Config Updater's checks depend on) and the
  BGP summary before the change (which sessions the gate requires).
Everything else (the target config_db, what changed, the YANG and GCU pre-checks) is worked out here, on the
controller, in the same task.

The hand-change guard: a deploy that changed a switch leaves on it, with its config save, a record of what it left
(``record_text``: a digest of each CONFIG_DB table the build owns). The next read compares the switch with that
record (``changed_by_hand``), so a job with no files of the controller (AWX) is guarded too, and a switch with no
record (factory state, or never deployed by this collection) is not refused. SONiC keeps no revision history with
messages, as NVUE does, so the record is a file of the switch's own /etc/sonic. frr.conf is not guarded: drain.yml
rewrites it on purpose (a drained switch stays drained across a restart), and a deploy puts the build's back.
"""
import hashlib
import json
import shlex

from .deploy import running_config_db, target_config

MARK = "@@gpufabric-read rc="
VERSION_FILE = "/etc/sonic/sonic_version.yml"
RECORD_FILE = "/etc/sonic/gpufabric-deploy.json"
RECORD_BY = "gpucluster.fabric deploy"


class ReadError(Exception):
    """The switch could not be read: one line naming the command and what it said."""


def sections(frr_conf_path, vtysh_command, config_db, full, record_file=RECORD_FILE):
    """[(name, shell command)] of one read, in order."""
    out = [("record", "cat " + shlex.quote(record_file))]
    if config_db:
        out.append(("running", "show runningconfiguration all"))
    frr = shlex.quote(frr_conf_path)
    out.append(("frr", ("cat " if full else "sha1sum < ") + frr))
    if full:
        if config_db:
            out.append(("version", "cat " + VERSION_FILE))
        out.append(("bgp_before", "%s -c 'show bgp summary json'" % vtysh_command))
    return out


def command(parts):
    """The one command line of ``parts`` (sections()): each section's output, then a marker line with its status.
    A section's stderr goes to the command's stderr; a missing file is a status, not a failure of the read."""
    return "; ".join("%s; printf '\\n%s%%s\\n' $?" % (cmd, MARK) for _name, cmd in parts)


def split(parts, stdout):
    """{name: (rc, text)} of a read's output. Each section's text is what its command printed (the newline the
    marker line starts with is not part of it)."""
    found, rest = {}, stdout
    for name, cmd in parts:
        head, sep, tail = rest.partition("\n" + MARK)
        if not sep:
            raise ReadError("the switch's answer to `%s` has no end marker (the read was cut short)" % cmd)
        status, _nl, rest = tail.partition("\n")
        try:
            found[name] = (int(status.strip()), head)
        except ValueError:
            raise ReadError("the switch's answer to `%s` ends with an unreadable status %r" % (cmd, status))
    return found


def sha1(text):
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def compare(read, rendered, frr_text, config_db):
    """What the deploy needs to know from a read (split()): the running config_db and the target, whether either
    differs, the installed frr.conf's checksum and, when read whole, its text (None when the file is missing)."""
    out = {"running": {}, "target": {}, "db_changed": False, "frr_previous": None}
    if config_db:
        rc, text = read["running"]
        if rc != 0:
            raise ReadError("`show runningconfiguration all` failed (status %d): %s" % (rc, text.strip()[-300:]))
        try:
            running = running_config_db(json.loads(text))
        except ValueError as exc:
            raise ReadError("`show runningconfiguration all` printed no JSON (%s)" % exc)
        target = target_config(running, rendered)
        out.update(running=running, target=target, db_changed=target != running)
    rc, text = read["frr"]
    if rc != 0:
        installed = ""
    elif "bgp_before" in read:       # read whole
        installed, out["frr_previous"] = sha1(text), text
    else:
        installed = (text.split() or [""])[0]
    out.update(frr_installed_sha1=installed, frr_changed=installed != sha1(frr_text))
    return out


def version(read):
    """The switch's sonic_version.yml as text ('' when it could not be read)."""
    rc, text = read.get("version", (1, ""))
    return text if rc == 0 else ""


def bgp_before(read):
    rc, text = read.get("bgp_before", (1, ""))
    return text if rc == 0 else ""


def peer_names(device):
    """The BGP neighbours whose builds say what each must send (the BGP gate)."""
    return sorted({n["peer"] for n in (device.get("bgp") or {}).get("neighbors") or [] if n.get("peer")})


def _digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()[:24]


def record_text(target, rendered):
    """The record a deploy leaves on the switch once its change is kept: the digest of each CONFIG_DB table the build
    owns (``rendered``'s tables, as ``target`` holds them). No value is kept."""
    tables = {name: _digest(target.get(name)) for name in sorted(rendered)}
    return json.dumps({"by": RECORD_BY, "config_db": tables}, sort_keys=True) + "\n"


def changed_by_hand(read, running):
    """The CONFIG_DB tables of the switch (``running``, compare()'s) that changed since the record the last deploy
    left ([] when none did, or there is no record)."""
    rc, text = read.get("record", (1, ""))
    if rc != 0 or not text.strip():
        return []
    try:
        tables = dict(json.loads(text)["config_db"])
    except (ValueError, KeyError, TypeError):
        return ["the last deploy's record (unreadable)"]
    return [name for name, digest in sorted(tables.items()) if _digest(running.get(name)) != digest]


def config_diff(running, target):
    """The config_db difference as two texts, for Ansible's --diff."""
    return (json.dumps(running, indent=2, sort_keys=True) + "\n", json.dumps(target, indent=2, sort_keys=True) + "\n")
