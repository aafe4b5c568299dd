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

from .cli import CliError, Config, Editor, FACTORY_CONFIG, diff
from .translate import Unsupported, interfaces

EOS_VERSION = "4.34.2F"
INTERNAL_VERSION = "4.34.2F-41641815.4342F"
MAX_OPEN_SESSIONS = 5
SESSION_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,50}\Z")


class CommandFailed(Exception):
    def __init__(self, errors, code=1002, kind="invalid command"):
        super().__init__(errors[0])
        self.errors = errors
        self.code = code
        self.kind = kind


def _invalid(cmd, token=0):
    words = cmd.split()
    return CommandFailed(["Invalid input (at token %d: '%s')" % (token, words[token] if token < len(words) else "")])


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


class EosSwitch:
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

    # --- show ---------------------------------------------------------------------------------------------------

    def _sessions(self, fmt):
        now = time.monotonic()
        sessions = {}
        for name, s in sorted(self.sessions.items()):
            entry = {"state": s.state, "completedTime": s.completed or 0, "commitBy": 0, "description": "",
                     "instances": {}}
            if s.commit_by:
                entry["commitBy"] = round(s.commit_by - self.booted_mono, 3)
            sessions[name] = entry
        data = {"sessions": sessions, "maxSavedSessions": 1, "maxOpenSessions": MAX_OPEN_SESSIONS}
        timer = [s for s in self.sessions.values() if s.state == "pendingCommitTimer"]
        if timer:
            data["commitTimerSessionName"] = timer[0].name
            data["commitTimerExpireTime"] = round(timer[0].commit_by - self.booted_mono, 3)
        text = ["Maximum number of completed sessions: 1", "Maximum number of pending sessions: %d" % MAX_OPEN_SESSIONS,
                "", "  Name             State                    User    Terminal",
                "  ---------------- ------------------------ ------- --------"]
        text += ["  %-16s %-24s" % (n, e["state"]) for n, e in sessions.items()]
        if timer:
            text.append("Commit timer of session %s expires in %.0f seconds" % (timer[0].name, timer[0].commit_by - now))
        return self._out(fmt, data, "\n".join(text) + "\n")

    def uptime(self):
        return time.monotonic() - self.booted_mono

    def _show(self, line, fmt, context):
        m = re.match(r"show session-config( named (\S+))?( diffs)?\Z", line)
        if m:
            session = self.sessions.get(m.group(2)) if m.group(2) else context["session"]
            if session is None:
                raise CommandFailed(["Session not found" if m.group(2) else "Not in a configuration session"],
                                    kind="could not run command")
            if m.group(3):
                return {"output": diff(self.running, session.config)} if fmt == "text" else \
                    self._raise_text(line)
            return self._out(fmt, session.config.cmds_json(), session.config.text())
        if line in ("show running-config", "show running-config all", "show running-config sanitized"):
            return self._out(fmt, self.running.cmds_json(), self.running.text())
        if line == "show startup-config":
            return self._out(fmt, self.startup.cmds_json(), self.startup.text())
        if line == "show hostname":
            name = self._hostname()
            return self._out(fmt, {"hostname": name, "fqdn": name}, "Hostname: %s\nFQDN:     %s\n" % (name, name))
        if line == "show version":
            return self._version(fmt)
        if line in ("show interfaces", "show interfaces status"):
            return self._interfaces(fmt, line.endswith("status"))
        m = re.match(r"show lldp neighbors( (?!detail\b)(\S+))?( detail)?\Z", line)
        if m:
            return self._lldp(fmt, m.group(2), bool(m.group(3)))
        m = re.match(r"show (ip|ipv6) bgp (summary|neighbors|peers)( vrf (\S+))?\Z", line)
        if m:
            return self._bgp(fmt, m.group(1), m.group(2), m.group(4) or "default")
        if line in ("show ip bgp", "show ip bgp vrf default", "show ip route", "show ip route vrf default"):
            if fmt == "text":
                self._raise_text(line)
            from .routes import answer
            return answer(self.oper, line)
        raise _invalid(line, 1)

    def _raise_text(self, line):
        raise CommandFailed(["This is an unconverted command"], code=1003,
                            kind="unconverted command (use format text)")

    def _hostname(self):
        for child in self.running.root.children:
            if child.line.startswith("hostname "):
                return child.line.split()[1]
        return "localhost"

    def _version(self, fmt):
        data = {"mfgName": "Arista", "modelName": "DCS-%s" % self.model, "hardwareRevision": "11.00",
                "serialNumber": self.serial, "systemMacAddress": self.mac, "hwMacAddress": self.mac,
                "configMacAddress": "00:00:00:00:00:00", "version": EOS_VERSION, "architecture": "x86_64",
                "internalVersion": INTERNAL_VERSION, "internalBuildId": "twin", "imageFormatVersion": "3.0",
                "imageOptimization": "Default", "bootupTimestamp": self.booted, "uptime": round(self.uptime(), 2),
                "memTotal": 32471212, "memFree": 24000000, "isIntlVersion": False}
        text = ("Arista DCS-%s\nHardware version: 11.00\nSerial number: %s\nHardware MAC address: %s\n"
                "System MAC address: %s\n\nSoftware image version: %s\nArchitecture: x86_64\n"
                "Internal build version: %s\n\nUptime: %d seconds\n"
                % (self.model, self.serial, self.mac, self.mac, EOS_VERSION, INTERNAL_VERSION, self.uptime()))
        return self._out(fmt, data, text)

    def _interfaces(self, fmt, status):
        configured = interfaces(self.running)
        links = self.oper.links()
        names = sorted(set(links) | {n for n in configured if n.startswith(("Ethernet", "Management", "Loopback"))},
                       key=_natural)
        out, statuses = {}, {}
        for name in names:
            conf = configured.get(name) or {"mtu": 1500, "up": True, "routed": not name.startswith("Ethernet"),
                                           "description": "", "addrs": []}
            link = links.get(name)
            if not conf["up"]:
                state, proto = "disabled", "down"
            elif link and link.get("up"):
                state, proto = "connected", "up"
            else:
                state, proto = "notconnect", "down"
            bandwidth = 0 if name.startswith("Loopback") else (1000000000 if name.startswith("Management")
                                                               else 800000000000)
            addrs = (link or {}).get("addrs") or conf["addrs"]
            out[name] = {"name": name, "description": conf["description"], "interfaceStatus": state,
                         "lineProtocolStatus": proto, "mtu": (link or {}).get("mtu") or conf["mtu"],
                         "bandwidth": bandwidth, "physicalAddress": (link or {}).get("mac", self.mac),
                         "hardware": "loopback" if name.startswith("Loopback") else "ethernet",
                         "forwardingModel": "routed" if conf["routed"] else "bridged",
                         "lastStatusChangeTimestamp": self.booted,
                         "interfaceAddress": [{"primaryIp": {"address": a.split("/")[0],
                                                             "maskLen": int(a.split("/")[1])}} for a in addrs[:1]],
                         "interfaceCounters": {"inOctets": 0, "outOctets": 0, "inUcastPkts": 0, "outUcastPkts": 0,
                                               "totalInErrors": 0, "totalOutErrors": 0}}
            if not name.startswith("Loopback"):
                statuses[name] = {"description": conf["description"], "linkStatus": state, "lineProtocolStatus": proto,
                                  "bandwidth": bandwidth, "duplex": "duplexFull", "autoNegotiateActive": False,
                                  "interfaceType": "800GBASE-DR8" if name.startswith("Ethernet") else "10/100/1000",
                                  "vlanInformation": {"interfaceMode": "routed" if conf["routed"] else "bridged",
                                                      "interfaceForwardingModel": "routed" if conf["routed"] else
                                                      "bridged", "vlanExplanation": "routed" if conf["routed"] else
                                                      "in Vlan1"}}
        if status:
            text = ["Port       Name        Status       Vlan     Duplex Speed  Type         Flags Encapsulation"]
            text += ["%-10s %-11.11s %-12s %-8s full   %-6s %s" % (n, s["description"], s["linkStatus"],
                                                                  "routed" if s["vlanInformation"]["interfaceMode"] ==
                                                                  "routed" else "1", "800G" if n.startswith("Eth")
                                                                  else "1G", s["interfaceType"])
                     for n, s in statuses.items()]
            return self._out(fmt, {"interfaceStatuses": statuses}, "\n".join(text) + "\n")
        return self._out(fmt, {"interfaces": out}, "".join("%s is %s, line protocol is %s\n"
                                                           % (n, "up" if i["interfaceStatus"] == "connected" else
                                                              "administratively down" if i["interfaceStatus"] ==
                                                              "disabled" else "down", i["lineProtocolStatus"])
                                                           for n, i in out.items()))

    def _lldp(self, fmt, port, detail):
        found = [n for n in self.oper.lldp() if port is None or n["port"] == port]
        if detail:
            data = {"lldpNeighbors": {}}
            for n in found:
                data["lldpNeighbors"].setdefault(n["port"], {"lldpNeighborInfo": []})["lldpNeighborInfo"].append({
                    "chassisIdType": "macAddress", "chassisId": n.get("chassis", ""), "systemName": n["system"],
                    "systemDescription": n.get("description", ""), "lastChangeTime": self.booted, "ttl": n.get("ttl", 120),
                    "systemCapabilities": {"bridge": True, "router": True},
                    "neighborInterfaceInfo": {"interfaceIdType": "interfaceName", "interfaceId": '"%s"' % n["port_id"],
                                              "interfaceDescription": n.get("port_description", "")}})
            text = "".join("Interface %s detected 1 LLDP neighbors:\n  System Name: \"%s\"\n  Port ID     : \"%s\"\n"
                           % (n["port"], n["system"], n["port_id"]) for n in found)
            return self._out(fmt, data, text)
        data = {"lldpNeighbors": [{"port": n["port"], "neighborDevice": n["system"], "neighborPort": n["port_id"],
                                   "ttl": n.get("ttl", 120)} for n in found]}
        text = "Port          Neighbor Device ID       Neighbor Port ID    TTL\n" + "".join(
            "%-13s %-24s %-19s %d\n" % (n["port"], n["system"], n["port_id"], n.get("ttl", 120)) for n in found)
        return self._out(fmt, data, text)

    def _bgp(self, fmt, family, what, vrf):
        if fmt == "text":
            self._raise_text(what)
        summary = self.oper.bgp() if family == "ip" else {}
        vrfs = {}
        if summary or family == "ipv6":
            for name in (["default"] if vrf in ("all", "default") else []):
                if what == "summary":
                    vrfs[name] = {"vrf": name, "routerId": summary.get("routerId", "0.0.0.0"),
                                  "asn": str(summary.get("as", "")), "peers": {}}
                    for peer, p in (summary.get("peers") or {}).items():
                        vrfs[name]["peers"][peer] = {
                            "description": p.get("desc", ""), "version": 4, "asn": str(p.get("remoteAs", "")),
                            "msgReceived": p.get("msgRcvd", 0), "msgSent": p.get("msgSent", 0), "inMsgQueue": 0,
                            "outMsgQueue": 0, "prefixReceived": p.get("pfxRcd", 0),
                            "prefixAccepted": p.get("pfxRcd", 0), "prefixInBest": p.get("pfxRcd", 0),
                            "upDownTime": time.time() - p.get("peerUptimeMsec", 0) / 1000.0,
                            "underMaintenance": False, "peerState": _eos_state(p.get("state", "Idle"))}
                else:
                    peers = self.oper.bgp_neighbors() if family == "ip" else {}
                    vrfs[name] = {"peerList": [{
                        "peerAddress": addr, "asn": str(p.get("remoteAs", "")), "localAsn": str(p.get("localAs", "")),
                        "routerId": p.get("remoteRouterId", "0.0.0.0"), "state": _eos_state(p.get("bgpState", "Idle")),
                        "idleReason": "", "description": p.get("nbrDesc", ""),
                        "establishedTime": (p.get("bgpTimerUpMsec") or 0) / 1000.0,
                        "prefixesReceived": (((p.get("addressFamilyInfo") or {}).get("ipv4Unicast") or {})
                                             .get("acceptedPrefixCounter", 0)),
                        "prefixesSent": (((p.get("addressFamilyInfo") or {}).get("ipv4Unicast") or {})
                                         .get("sentPrefixCounter", 0)),
                        "v6PrefixesReceived": 0, "v6PrefixesSent": 0} for addr, p in sorted(peers.items())]}
        return {"vrfs": vrfs}


def _eos_state(frr_state):
    return {"Established": "Established", "Active": "Active", "Idle": "Idle", "Connect": "Connect",
            "OpenSent": "OpenSent", "OpenConfirm": "OpenConfirm"}.get(str(frr_state).split(" ")[0], "Idle")


def _natural(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


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
