"""One read of a SONiC switch for its deploy, and what the deploy decides from it (roles/sonic_deploy).

A read is one command line the controller sends over the switch's login shell (the raw path: no Python starts on
the switch), whose sections are separated by a marker line carrying each section's exit status:
- the pending pass (``pending``): ``show runningconfiguration all`` and the installed frr.conf's checksum;
- the deploy of a switch that differs (``full``): the same, but frr.conf whole (kept to restore it on rollback),
  ``/etc/sonic/sonic_version.yml`` (the release and ASIC the Generic Config Updater's checks depend on) and the
  BGP summary before the change (which sessions the gate requires).
Everything else (the target config_db, what changed, the YANG and GCU pre-checks) is worked out here, on the
controller, in the same task.
"""
import hashlib
import json
import shlex

from .deploy import running_config_db, target_config

MARK = "@@gpufabric-read rc="
VERSION_FILE = "/etc/sonic/sonic_version.yml"


class ReadError(Exception):
    """The switch could not be read: one line naming the command and what it said."""


def sections(frr_conf_path, vtysh_command, config_db, full):
    """[(name, shell command)] of one read, in order."""
    out = []
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


def config_diff(running, target):
    """The config_db difference as two texts, for Ansible's --diff."""
    return (json.dumps(running, indent=2, sort_keys=True) + "\n", json.dumps(target, indent=2, sort_keys=True) + "\n")
