"""The ``show`` commands of the twin's EOS switch that read its hardware and agents (``switch.oper``: the namespace's
links, its lldpd, its FRR), in EOS's JSON keys as napalm's eos driver reads them (napalm/eos/eos.py ``get_facts``,
``get_interfaces``, ``get_lldp_neighbors_detail``, ``get_bgp_neighbors``) and Arista's command reference shows them."""
import re
import time

from .cli import diff
from .translate import interfaces


MAX_OPEN_SESSIONS = 5
EOS_VERSION = "4.34.2F"
INTERNAL_VERSION = "4.34.2F-41641815.4342F"


class CommandFailed(Exception):
    def __init__(self, errors, code=1002, kind="invalid command"):
        super().__init__(errors[0])
        self.errors = errors
        self.code = code
        self.kind = kind


def _invalid(cmd, token=0):
    words = cmd.split()
    return CommandFailed(["Invalid input (at token %d: '%s')" % (token, words[token] if token < len(words) else "")])


class ShowMixin:
    """What EosSwitch answers from its operational state (``self.oper``, ``self.running``, ``self.mac`` ...)."""

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
                return {"output": diff(self.running, session.config, after_name="session:/%s-session-config" % session.name)} if fmt == "text" else \
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
            default = {"mtu": 1500, "up": True, "routed": not name.startswith("Ethernet"), "description": "", "addrs": []}
            conf = configured.get(name) or default
            link = links.get(name)
            if not conf["up"]:
                state, proto = "disabled", "down"
            elif link and link.get("up"):
                state, proto = "connected", "up"
            else:
                state, proto = "notconnect", "down"
            bandwidth = _bandwidth(name, conf.get("speed"))
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
                mode = "routed" if conf["routed"] else "bridged"
                statuses[name] = {"description": conf["description"], "linkStatus": state, "lineProtocolStatus": proto,
                                  "bandwidth": bandwidth, "duplex": "duplexFull", "autoNegotiateActive": False,
                                  "interfaceType": "800GBASE-DR8" if name.startswith("Ethernet") else "10/100/1000",
                                  "vlanInformation": {"interfaceMode": mode, "interfaceForwardingModel": mode,
                                                      "vlanExplanation": "routed" if conf["routed"] else "in Vlan1"}}
        if status:
            text = ["Port       Name        Status       Vlan     Duplex Speed  Type         Flags Encapsulation"]
            for n, s in statuses.items():
                vlan = "routed" if s["vlanInformation"]["interfaceMode"] == "routed" else "1"
                speed = "%dG" % (s["bandwidth"] // 10 ** 9)
                text.append("%-10s %-11.11s %-12s %-8s full   %-6s %s"
                            % (n, s["description"], s["linkStatus"], vlan, speed, s["interfaceType"]))
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
                        reason = _idle_reason(p.get("state", "Idle"))
                        if reason:
                            vrfs[name]["peers"][peer]["peerStateIdleReason"] = reason
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


def _bandwidth(name, speed):
    """bits per second of a port: its configured ``speed`` (``400g-4``), else the 7060X6 cage's 800G; 1G for the
    management port, 0 for a loopback."""
    if name.startswith("Loopback"):
        return 0
    if name.startswith("Management"):
        return 10 ** 9
    m = re.match(r"(?:forced )?(\d+)g", speed or "")
    return int(m.group(1)) * 10 ** 9 if m else 800 * 10 ** 9


def _eos_state(frr_state):
    return {"Established": "Established", "Active": "Active", "Idle": "Idle", "Connect": "Connect",
            "OpenSent": "OpenSent", "OpenConfirm": "OpenConfirm"}.get(str(frr_state).split(" ", maxsplit=1)[0], "Idle")


def _idle_reason(frr_state):
    """EOS's ``peerStateIdleReason`` of an Idle peer: ``Admin`` for one shut down (``neighbor ... shutdown``, which
    FRR shows as ``Idle (Admin)``), as EOS gives it and napalm's eos driver reads it (``is_enabled``); None else."""
    state = str(frr_state)
    if state.startswith("Idle") and "Admin" in state:
        return "Admin"
    return None


def _natural(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]
