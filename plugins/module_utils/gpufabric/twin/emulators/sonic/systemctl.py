"""`systemctl` (and the entry point of `systemd-run`, systemd.py) on a twin SONiC switch, for the transient units of systemd.py: stop, is-active, reset-failed,
list-timers, as systemctl(1) of systemd 252 answers them (LSB exit codes: 3 not active, 4 no permission, 5 not loaded)."""
import os
import signal
import sys
import time

from .systemd import Refused, _remove, load, run, unit_dir


def unit_name(text):
    """systemctl's name mangling: no suffix means .service."""
    return text if text.endswith((".timer", ".service")) else text + ".service"


def systemctl(args, units, out, err, uid):
    """systemctl stop | is-active | reset-failed | list-timers; returns the exit code."""
    verbs = [a for a in args if not a.startswith("-")]
    if not verbs:
        raise Refused("systemctl: the twin models stop, is-active, reset-failed and list-timers only")
    verb, names = verbs[0], [unit_name(n) for n in verbs[1:]]
    if verb == "is-active":
        records = [load(units, n) for n in names]
        states = [r.get("state", "active") if r else "inactive" for r in records]
        out.write("".join(s + "\n" for s in states))
        return 0 if states and all(s == "active" for s in states) else 3
    if verb == "list-timers":
        return _list_timers(units, out)
    if verb not in ("stop", "reset-failed"):
        raise Refused("Unknown command verb %s." % verb if verb not in ("start", "restart", "status", "show", "kill")
                      else "systemctl: %s is not modelled by the twin" % verb)
    if uid != 0:
        raise Refused("Failed to %s %s: Access denied" % (verb, " ".join(names) or "units"), 4)
    if verb == "reset-failed":
        for name in names or [f[:-5] for f in _files(units) if f.endswith(".service.json")]:
            if (load(units, name) or {}).get("state") == "failed":
                _remove(os.path.join(units, name + ".json"))
        return 0
    return _stop(units, names, err)


def _files(units):
    try:
        return sorted(os.listdir(units))
    except OSError:
        return []


def _stop(units, names, err):
    code = 0
    for name in names:
        record = load(units, name)
        if record is None:
            err.write("Failed to stop %s: Unit %s not loaded.\n" % (name, name))
            code = 5
            continue
        _remove(os.path.join(units, name + ".json"))
        if record.get("state") != "failed":
            try:    # the unit's process (a timer's waiting, a service's running its command) and its group
                os.killpg(record["pid"], signal.SIGTERM)
            except OSError:
                pass
    return code


def _list_timers(units, out):
    timers = [load(units, f[:-5]) for f in _files(units) if f.endswith(".timer.json")]
    timers = [t for t in timers if t]
    out.write("NEXT                        LEFT LAST PASSED UNIT ACTIVATES\n")
    for t in timers:
        out.write("%s %5ds left n/a  n/a    %s %s\n" % (time.strftime("%a %Y-%m-%d %H:%M:%S UTC", time.gmtime(t["due"])),
                                                        max(0, t["due"] - time.time()), t["unit"],
                                                        t["unit"][:-6] + ".service"))
    out.write("\n%d timers listed.\n" % len(timers))
    return 0


def main(argv, etc_sonic="/etc/sonic", out=None, err=None, uid=None):
    """Run ``systemd-run`` or ``systemctl`` (argv[0]) on the switch of ``etc_sonic``; returns the exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    uid = int(os.environ.get("GPUFABRIC_TWIN_CALLER_UID") or os.geteuid()) if uid is None else uid
    name = os.path.basename(argv[0])
    try:
        units = unit_dir(etc_sonic)
        if name == "systemd-run":
            return run(argv[1:], units, err, uid)
        return systemctl(argv[1:], units, out, err, uid)
    except Refused as e:
        err.write("%s\n" % e)
        return e.code
    except OSError as e:
        err.write("%s: %s\n" % (name, e))
        return 1
