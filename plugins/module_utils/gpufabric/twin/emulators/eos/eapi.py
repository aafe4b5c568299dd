"""One EOS switch's command interpreter behind eAPI: ``runCmds`` (Arista's Command API, JSON-RPC 2.0) with
configuration sessions, the commit timer, and the ``show`` commands napalm's eos driver reads.

Each request starts in privileged exec mode (``enable`` is accepted, as pyeapi sends it first). Commands run in order;
the first one EOS would refuse stops the request: JSON-RPC error ``1002`` with the message ``CLI command N of M
'<cmd>' failed: invalid command`` and, in ``data``, the results of the commands before it and the failing one's
``errors`` (Arista's eAPI documentation, "eAPI responses"; pyeapi's ``_parse_error_message`` reads ``data`` so).
Configuration sessions (EOS user manual, "Configuration Sessions") persist between requests: ``configure session
<name>`` opens one with a copy of the running-config (or re-enters it), ``rollback clean-config`` empties it,
``commit`` (in the session, or ``configure session <name> commit``) makes it the running-config, ``commit timer
hh:mm:ss`` makes it the running-config until the timer runs out, when the previous one comes back unless the session
was committed again, ``abort`` drops it (and a pending timer's change with it).
"""
import datetime
import json
import re
import threading
import time

from .cli import CliError, Config, Editor, FACTORY_CONFIG
from .show import MAX_OPEN_SESSIONS, CommandFailed, ShowMixin, _invalid
from .translate import Unsupported

SESSION_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,50}\Z")


class Session:
    def __init__(self, name, config):
        self.name = name
        self.config = config
        self.state = "pending"
        self.commit_by = None       # monotonic deadline of a pending commit timer
        self.before = None          # the running-config the timer goes back to
        self.completed = None


class Oper:
    """What the switch's hardware and agents report (the namespace's links, LLDP, BGP): the plane gives a live one,
    unit tests a fixed one."""

    def links(self):
        return {}

    def lldp(self):
        return []

    def bgp(self):
        return {}

    def bgp_neighbors(self):
        return {}


class EosSwitch(ShowMixin):
    """One switch: running, startup and session configurations, and ``applier(config)`` that makes a configuration
    real (raises Unsupported or another ValueError naming what fails, having put the previous one back)."""

    def __init__(self, host, model, serial, mac, startup_text=None, applier=None, oper=None, on_change=None):
        self.host = host
        self.model = model
        self.serial = serial
        self.mac = mac
        self.lock = threading.RLock()
        self.applier = applier or (lambda config: None)
        self.oper = oper or Oper()
        self.on_change = on_change or (lambda switch: None)
        self.booted = time.time()
        self.booted_mono = time.monotonic()
        text = startup_text if startup_text is not None else FACTORY_CONFIG
        self.startup = Config.parse(text)
        self.running = self.startup.copy()
        self.files = {}
        self.sessions = {}

    # --- configuration ----------------------------------------------------------------------------------------

    def boot(self):
        self.applier(self.running)

    def _set_running(self, config):
        previous = self.running
        self.applier(config)     # raises, the previous configuration running again
        self.running = config
        self.on_change(self)
        return previous

    def tick(self):
        """Run out any commit timer that is due: the configuration before it comes back."""
        with self.lock:
            now = time.monotonic()
            for session in list(self.sessions.values()):
                if session.state == "pendingCommitTimer" and session.commit_by <= now:
                    try:
                        self._set_running(session.before)
                    except ValueError:
                        pass
                    session.state = "completed"
                    session.completed = time.time()
                    session.commit_by = None

    def _session(self, name, create=True):
        if not SESSION_NAME.match(name):
            raise CommandFailed(["Invalid session name '%s'" % name], kind="could not run command")
        session = self.sessions.get(name)
        if session is None or session.state == "completed":
            if not create:
                return None
            if len([s for s in self.sessions.values() if s.state == "pending"]) >= MAX_OPEN_SESSIONS:
                raise CommandFailed(["Maximum number of pending sessions has been reached"], kind="could not run command")
            session = self.sessions[name] = Session(name, self.running.copy())
        return session

    def _commit(self, session, timer=None):
        if session.state == "pendingCommitTimer" and timer is None:
            # the confirmation: the change stays
            session.state = "completed"
            session.completed = time.time()
            session.commit_by = None
            return
        if any(s.state == "pendingCommitTimer" and s is not session for s in self.sessions.values()):
            raise CommandFailed(["Cannot commit session while another session has a pending commit timer"],
                                kind="could not run command")
        config = session.config.copy()
        try:
            before = self._set_running(config)
        except (Unsupported, ValueError) as exc:
            raise CommandFailed(["Commit failed: %s" % exc], kind="could not run command")
        if timer is None:
            session.state = "completed"
            session.completed = time.time()
        else:
            session.state = "pendingCommitTimer"
            session.before = before
            session.commit_by = time.monotonic() + timer

    def _abort(self, session):
        if session.state == "pendingCommitTimer":
            try:
                self._set_running(session.before)
            except ValueError as exc:
                raise CommandFailed(["Abort failed: %s" % exc], kind="could not run command")
        del self.sessions[session.name]

    # --- eAPI ---------------------------------------------------------------------------------------------------

    def run_cmds(self, cmds, fmt="json"):
        """(results, None) or (None, error object) of one runCmds request."""
        self.tick()
        with self.lock:
            results = []
            context = {"session": None, "editor": None}
            for index, cmd in enumerate(cmds):
                text = cmd.get("cmd", "") if isinstance(cmd, dict) else str(cmd)
                try:
                    results.append(self._one(text, fmt, context))
                except CommandFailed as exc:
                    failed = {"errors": exc.errors}
                    if fmt == "text":
                        failed["output"] = "".join("%% %s\n" % e for e in exc.errors)
                    return None, {"code": exc.code,
                                  "message": "CLI command %d of %d '%s' failed: %s" % (index + 1, len(cmds), text, exc.kind),
                                  "data": results + [failed]}
            return results, None

    def _out(self, fmt, data, text):
        if fmt == "text":
            return {"output": text}
        return data

    def _one(self, cmd, fmt, context):
        line = " ".join(cmd.split())
        as_json = fmt == "json"
        if line.endswith("| json"):
            line, as_json = line[:-6].strip(), True
        fmt = "json" if as_json else "text"
        editor = context["editor"]
        if editor is not None:
            return self._config_line(line, fmt, context)
        if line in ("enable", ""):
            return self._out(fmt, {}, "")
        if line in ("configure", "configure terminal", "config"):
            context["editor"] = Editor(_Direct(self))
            context["session"] = None
            return self._out(fmt, {}, "")
        m = re.match(r"configure session (\S+)( commit( timer (\d+):(\d\d):(\d\d))?| abort)?\Z", line)
        if m:
            return self._session_cmd(m, line, fmt, context)
        if line == "show configuration sessions" or line == "show configuration sessions detail":
            return self._sessions(fmt)
        m = re.match(r"copy (startup-config|running-config) (startup-config|flash:\S+)\Z", line)
        if m:
            source = self.startup if m.group(1) == "startup-config" else self.running
            if m.group(2) == "startup-config":
                self.startup = source.copy()
            else:
                self.files[m.group(2)] = source.copy()
            return self._out(fmt, {}, "Copy completed successfully.\n")
        if line in ("write memory", "write", "copy running-config startup-config"):
            self.startup = self.running.copy()
            return self._out(fmt, {}, "Copy completed successfully.\n")
        m = re.match(r"configure replace (flash:\S+|startup-config)\Z", line)
        if m:
            source = self.startup if m.group(1) == "startup-config" else self.files.get(m.group(1))
            if source is None:
                raise CommandFailed(["Error: %s: No such file or directory" % m.group(1)], kind="could not run command")
            try:
                self._set_running(source.copy())
            except ValueError as exc:
                raise CommandFailed(["Replace failed: %s" % exc], kind="could not run command")
            return self._out(fmt, {}, "")
        if line.startswith("show "):
            return self._show(line, fmt, context)
        raise _invalid(line)

    def _session_cmd(self, m, line, fmt, context):
        """``configure session <name> [commit [timer hh:mm:ss] | abort]`` (``m``: its match)."""
        name, action = m.group(1), m.group(2)
        if action is None:
            session = self._session(name)
            context["session"] = session
            context["editor"] = Editor(session.config)
            return self._out(fmt, {}, "")
        session = self._session(name, create=False)
        if session is None:
            raise CommandFailed(["Session '%s' does not exist" % name], kind="could not run command")
        if action == " abort":
            self._abort(session)
        elif m.group(3):
            seconds = int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6))
            if not 0 < seconds <= 24 * 3600:
                raise _invalid(line, 5)
            self._commit(session, seconds)
        else:
            self._commit(session)
        return self._out(fmt, {}, "")

    def _config_line(self, line, fmt, context):
        session = context["session"]
        if line == "rollback clean-config":
            if session is None:
                raise _invalid(line)
            session.config.root.children = []
            context["editor"] = Editor(session.config)
            return self._out(fmt, {}, "")
        if line == "commit" and session is not None:
            self._commit(session)
            context["editor"], context["session"] = None, None
            return self._out(fmt, {}, "")
        if line == "abort" and session is not None:
            self._abort(session)
            context["editor"], context["session"] = None, None
            return self._out(fmt, {}, "")
        if line.startswith("show "):
            return self._show(line, fmt, context)
        try:
            done = context["editor"].feed(line)
        except CliError as exc:
            raise CommandFailed([str(exc)])
        if done == "end":
            if session is None:
                context["editor"].config.flush()
            context["editor"], context["session"] = None, None
        elif session is None:
            context["editor"].config.flush()
        return self._out(fmt, {}, "")


class _Direct(Config):
    """``configure`` (no session): each line takes effect on its own, as EOS's configure terminal."""

    def __init__(self, switch):
        super().__init__(switch.running.copy().root)
        self.switch = switch

    def flush(self):
        try:
            self.switch._set_running(Config(self.root.copy()))
        except (Unsupported, ValueError) as exc:
            raise CommandFailed(["%s" % exc], kind="could not run command")


def serial_of(host):
    """A serial number of Arista's form for the twin's switch (stable per host name)."""
    import hashlib
    digest = hashlib.sha256(host.encode()).hexdigest().upper()
    return "JPE%s" % digest[:8]


def mac_of(host):
    import hashlib
    digest = hashlib.sha256(("mac" + host).encode()).digest()
    return "00:1c:73:%02x:%02x:%02x" % (digest[0], digest[1], digest[2])


def dumps(obj):
    return json.dumps(obj, default=lambda o: o.isoformat() if isinstance(o, datetime.datetime) else str(o))
