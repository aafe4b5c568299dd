"""`systemd-run` and `systemctl` on a twin SONiC switch: transient timers, as systemd 252 (Debian 12, what SONiC 202511
runs on) makes them for the options modelled here, from systemd-run(1), systemd.timer(5), systemd.time(7) and
systemctl(1). Everything else is refused, as systemd-run refuses an option it does not know.

    systemd-run [--quiet] [--collect] [--description=TEXT] --unit=NAME --on-active=SPAN
                [--timer-property=AccuracySec=SPAN] [--] COMMAND [ARGS...]
    systemctl stop NAME.timer | NAME[.service]
    systemctl is-active NAME.timer | NAME[.service]
    systemctl reset-failed [NAME.service]
    systemctl list-timers

A timer is a process of the switch (forked by `systemd-run`, in the switch's network and mount namespaces, its own
session) that waits until the timer is due, then runs the command as the service: as root, in a clean environment
(PATH as systemd's manager gives it, the twin's SONiC commands standing for /usr/local/bin), output to the unit's
log (the journal's stand-in). Units are files of the switch's run directory (``UNITS``), each naming its process: a
unit whose process is gone (the twin switch brought down and up: `down` stops every process of the namespace) is not
loaded, as a transient unit does not survive a reboot. As systemd-run sets RemainAfterElapse=no on its timers, an
elapsed timer is unloaded once its service ran; a service that succeeded is unloaded, one that failed stays
`failed` until `systemctl reset-failed`, unless --collect.
"""
import json
import os
import re
import time

UNITS = "systemd"
# systemd's manager PATH (default_path(), without split /usr); the twin's SONiC commands stand where SONiC has them.
SERVICE_PATH = "/run/gpufabric-sonic/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
DEFAULT_ACCURACY = 60.0     # systemd.timer(5): AccuracySec= defaults to 1min
# systemd.time(7): time span units, in seconds.
SPAN_UNITS = {("usec", "us", "\u00b5s"): 1e-6, ("msec", "ms"): 1e-3, ("seconds", "second", "sec", "s", ""): 1.0,
              ("minutes", "minute", "min", "m"): 60.0, ("hours", "hour", "hr", "h"): 3600.0,
              ("days", "day", "d"): 86400.0, ("weeks", "week", "w"): 604800.0,
              ("months", "month", "M"): 2629800.0, ("years", "year", "y"): 31557600.0}
UNIT_OF = {name: factor for names, factor in SPAN_UNITS.items() for name in names}
# Options of systemd-run 252 the twin knows but does not model: refused, naming them.
UNMODELLED = ("--user", "--system", "--scope", "--property", "-p", "--slice", "--remain-after-exit", "-r",
              "--send-sighup", "--service-type", "--uid", "--gid", "--nice", "--working-directory", "--same-dir",
              "--setenv", "-E", "--pty", "-t", "--pipe", "-P", "--shell", "-S", "--wait", "--on-boot", "--on-startup",
              "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--on-clock-change", "--on-timezone-change",
              "--path-property", "--socket-property", "--no-block", "--no-ask-password", "--host", "-H",
              "--machine", "-M", "--expand-environment", "--slice-inherit")
UNIT_NAME = re.compile(r"^[A-Za-z0-9:_.\\-]+$")


class Refused(Exception):
    """What systemd-run or systemctl prints before exiting ``code``."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def span(text):
    """Seconds of a systemd time span ("30", "30s", "2min 5s", "1.5h"); Refused otherwise."""
    parts = re.findall(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z\u00b5]*)", text)
    if not text.strip() or "".join(n + u for n, u in parts) != re.sub(r"\s+", "", text) \
            or any(u not in UNIT_OF for _n, u in parts):
        raise Refused("Failed to parse timer value: %s" % text)
    return sum(float(n) * UNIT_OF[u] for n, u in parts)


def unit_dir(etc_sonic="/etc/sonic"):
    """The switch's unit files: beside its redis, in its run directory (named by its database_config.json)."""
    with open(os.path.join(etc_sonic, "database_config.json"), encoding="utf-8") as f:
        socket = json.load(f)["INSTANCES"]["redis"]["unix_socket_path"]
    return os.path.join(os.path.dirname(socket), UNITS)


def _started(pid):
    """The start time of process ``pid`` (clock ticks since boot), or None when there is none."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def load(units, name):
    """The record of unit ``name`` (``NAME.timer``/``NAME.service``) if it is loaded: its process still runs."""
    path = os.path.join(units, name + ".json")
    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    if record.get("state") != "failed" and _started(record["pid"]) != record["started"]:
        _remove(path)       # its process went with the switch: a transient unit does not survive a reboot
        return None
    return record


def _remove(path):
    try:
        os.remove(path)
        return True
    except OSError:
        return False


def _write(path, record):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(record, f)
    os.replace(path + ".tmp", path)


def parse_run(args):
    """systemd-run's options (getopt_long, stopping at the command): {"unit", "on_active", "accuracy", ...}."""
    opts = {"quiet": False, "collect": False, "accuracy": DEFAULT_ACCURACY, "unit": None, "on_active": None,
            "description": None}
    rest = list(args)
    while rest and rest[0].startswith("-") and rest[0] != "-":
        arg = rest.pop(0)
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        if name in ("--unit", "-u", "--on-active", "--description", "--timer-property") and not eq:
            if not rest:
                raise Refused("systemd-run: option '%s' requires an argument" % name)
            value = rest.pop(0)
        if name in ("-q", "--quiet"):
            opts["quiet"] = True
        elif name in ("-G", "--collect"):
            opts["collect"] = True
        elif name in ("--unit", "-u"):
            opts["unit"] = value
        elif name == "--description":
            opts["description"] = value
        elif name == "--on-active":
            opts["on_active"] = span(value)
        elif name == "--timer-property":
            prop, _eq, setting = value.partition("=")
            if prop != "AccuracySec":
                raise Refused("systemd-run: --timer-property=%s is not modelled by the twin (AccuracySec= is)" % prop)
            opts["accuracy"] = span(setting)
        elif name in UNMODELLED:
            raise Refused("systemd-run: option %s is not modelled by the twin (docs/twin.md)" % name)
        else:
            raise Refused("systemd-run: unrecognized option '%s'" % name)
    opts["command"] = rest
    return opts


def _executable(name, path):
    if "/" in name:
        return os.path.abspath(name) if os.access(name, os.X_OK) else None
    for folder in path.split(":"):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def run(args, units, err, uid):
    """systemd-run: arm a transient timer; returns the exit code."""
    opts = parse_run(args)
    if opts["on_active"] is None:
        raise Refused("systemd-run: the twin models transient timers only (--on-active=)")
    if not opts["command"]:
        raise Refused("systemd-run: the twin models a timer with its command only (COMMAND missing)")
    name = opts["unit"] or "run-u%d" % (int(time.time() * 1000) % 100000)
    name = re.sub(r"\.(service|timer)$", "", name)
    if not UNIT_NAME.match(name):
        raise Refused("Failed to mangle unit name: Invalid argument")
    if uid != 0:    # polkit, with nobody to ask
        raise Refused("Failed to start transient timer unit: Interactive authentication required.")
    command = [_executable(opts["command"][0], os.environ.get("PATH", ""))] + opts["command"][1:]
    if command[0] is None:
        raise Refused("Failed to find executable %s: No such file or directory" % opts["command"][0])
    os.makedirs(units, exist_ok=True)
    for kind in ("timer", "service"):
        if load(units, "%s.%s" % (name, kind)):
            raise Refused("Failed to start transient timer unit: Unit %s.%s was already loaded or has a fragment "
                          "file." % (name, kind))
    due = time.time() + opts["on_active"] + opts["accuracy"]
    record = {"unit": name + ".timer", "command": command, "due": due, "collect": opts["collect"],
              "description": opts["description"] or " ".join(opts["command"])}
    _spawn(units, name, record)
    if not opts["quiet"]:
        err.write("Running timer as unit: %s.timer\nWill run service as unit: %s.service\n" % (name, name))
    return 0


def _spawn(units, name, record):
    """Fork the timer's process (detached: its own session, no descriptor of the caller's) and record it."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        os.setsid()
        if os.fork():
            os._exit(0)
        os.setpgid(0, 0)        # its own process group, which `systemctl stop` ends with the service in it
        pid = os.getpid()
        record.update(pid=pid, started=_started(pid))
        _write(os.path.join(units, name + ".timer.json"), record)
        os.write(write, b"1")
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, 1024)
        os.chdir("/")
        try:
            _elapse(units, name, record)
        finally:
            os._exit(0)
    os.close(write)
    os.read(read, 1)        # the record is written when systemd-run returns, as the unit is loaded then
    os.close(read)
    os.waitpid(child, 0)


def _elapse(units, name, record):
    """The timer's process: wait until due, then be the service (unless the timer was stopped meanwhile)."""
    while time.time() < record["due"]:
        time.sleep(min(1.0, record["due"] - time.time()))
    timer = os.path.join(units, name + ".timer.json")
    service = os.path.join(units, name + ".service.json")
    if not os.path.exists(timer):
        return
    _write(service, dict(record, unit=name + ".service", state="active"))
    _remove(timer)      # RemainAfterElapse=no: unloaded once it elapsed
    import subprocess
    with open(os.path.join(units, name + ".service.log"), "ab") as log:
        proc = subprocess.run(record["command"], stdin=subprocess.DEVNULL, stdout=log, stderr=log, check=False,
                              env={"PATH": SERVICE_PATH, "LANG": "C.UTF-8"})
    if proc.returncode == 0 or record["collect"]:
        _remove(service)
    else:
        _write(service, dict(record, unit=name + ".service", state="failed", result="exit-code",
                             status=proc.returncode))
