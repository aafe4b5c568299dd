"""EOS's collectors: the switch's eAPI answers turned into the neutral facts validation checks.

Every observation is one EOS show command. Tool ``eos`` asks for EOS's JSON, tool ``eos_text`` for its text: over
SSH, validation runs a device's commands as one shell script, so they go through EOS's ``Cli`` in the switch's bash
(``Cli -p 15 -c '<command> | json'``: the quoted command and the quoted `` | json`` are one shell word); over eAPI,
runCmds with format json or text (eapi_transport.py; the host variables of ``API_VARS`` say where). The command
texts carry no shell syntax, so a transport may pass them as words. The field names are eAPI's JSON as Arista
documents it (EOS User Manual and eAPI command reference: ``show lldp neighbors detail``, ``show ip bgp summary``,
``show ip route``, ``show interfaces``); a port's RoCE treatment is read from the running config, in the lines
pyavd renders for it (docs/eos.md, "What is rendered": ``qos trust dscp``, ``qos map dscp ... to traffic-class``,
``priority-flow-control priority N no-drop``, the QoS profile's ``random-detect ecn`` tx-queues).
"""
import json
import re
import time

from ...device_command import Command
from . import bgp as _bgp

COMMANDS = {
    "lldp": Command("eos", "show lldp neighbors detail"),
    "bgp": Command("eos", "show ip bgp summary"),
    "routes": Command("eos", "show ip route"),
    # `show interfaces status` has no MTU and no counters, which the interface checks compare: `show interfaces`.
    "links": Command("eos", "show interfaces"),
    "qos": Command("eos_text", "show running-config"),
}
# How each tool is run over SSH on an EOS switch (the account's shell: bash, where EOS's Cli runs a command).
SSH_TOOLS = {"eos": "Cli -p 15 -c {q}' | json'", "eos_text": "Cli -p 15 -c {q}"}
# The switch's own API, eAPI over HTTPS (eapi_transport.py): validation reaches a switch there when its host
# variables give the first of these (the deploy's own, docs/eos.md "Deploy"); {setting: host variable}.
API_VARS = {"host": "eos_eapi_host", "port": "eos_eapi_port", "ca": "eos_eapi_ca", "user": "eos_eapi_user",
            "password": "eos_eapi_password"}


def api_transport(hosts):
    """The Transport reaching the switches ``hosts`` ({device: {setting of API_VARS: value}}) over eAPI."""
    from .eapi_transport import EapiTransport
    return EapiTransport(hosts)


def _json(text):
    text = (text or "").strip()
    if not text:
        return {}
    data = json.loads(text)
    if isinstance(data, list):      # a runCmds result list of one command
        data = data[0] if data else {}
    return data if isinstance(data, dict) else {}


def lldp_neighbors(text, now=None):
    """`show lldp neighbors detail` -> {local port: [{"system", "port", "age_s"}]}; age_s from the neighbour's
    ``lastChangeTime`` (epoch seconds: when it was learned), None when EOS does not give it."""
    now = time.time() if now is None else now
    out = {}
    for local, entry in (_json(text).get("lldpNeighbors") or {}).items():
        for info in (entry or {}).get("lldpNeighborInfo") or ():
            far = info.get("neighborInterfaceInfo") or {}
            port = far.get("interfaceId_v2") or str(far.get("interfaceId") or "").strip('"') or None
            changed = info.get("lastChangeTime")
            age = int(max(0, now - changed)) if isinstance(changed, (int, float)) else None
            out.setdefault(local, []).append({"system": info.get("systemName") or info.get("chassisId"),
                                              "port": port, "age_s": age})
    return out


def bgp_summary(text):
    """`show ip bgp summary` -> the neutral bgp fact ({"local_as", "peers"})."""
    return _bgp.summary(_json(text))


_PROTOCOLS = {"ebgp": "bgp", "ibgp": "bgp", "bgp": "bgp", "bgpaggregate": "bgp", "connected": "connected",
              "static": "static", "kernel": "kernel", "ospf": "ospf"}


def routes(text):
    """`show ip route` -> {prefix: {"protocol", "nexthops": [{"ip", "interface"}]}} of the default VRF; EOS's
    ``routeType`` (eBGP, iBGP, connected, static, ...) named as the neutral fact names protocols."""
    data = (_json(text).get("vrfs") or {}).get("default") or {}
    out = {}
    for prefix, route in (data.get("routes") or {}).items():
        kind = str(route.get("routeType") or "").replace(" ", "").lower()
        hops = [{"ip": via.get("nexthopAddr"), "interface": via.get("interface")}
                for via in route.get("vias") or () if isinstance(via, dict)]
        out[prefix] = {"protocol": _PROTOCOLS.get(kind, kind or None), "nexthops": hops}
    return out


def links(text):
    """`show interfaces` (or `show interfaces status`) -> {port: {admin_up, oper_up, mtu, rx_errors, tx_errors,
    rx_discards, tx_discards}}; what the answer lacks is None."""
    data = _json(text)
    out = {}
    for name, port in (data.get("interfaces") or data.get("interfaceStatuses") or {}).items():
        status = port.get("interfaceStatus") or port.get("linkStatus")
        counters = port.get("interfaceCounters") or {}
        line = port.get("lineProtocolStatus")
        out[name] = {"admin_up": status not in ("disabled", None),
                     "oper_up": line == "up" if line is not None else status == "connected",
                     "mtu": port.get("mtu"), "rx_errors": counters.get("totalInErrors"),
                     "tx_errors": counters.get("totalOutErrors"), "rx_discards": counters.get("inDiscards"),
                     "tx_discards": counters.get("outDiscards")}
    return out


def _text(text):
    """The running config's text: as printed, or eAPI's text answer ({"output": ...}, or a list of them)."""
    stripped = (text or "").lstrip()
    if stripped.startswith(("{", "[")):
        try:
            data = json.loads(stripped)
        except ValueError:
            return text
        if isinstance(data, list):
            data = data[0] if data else {}
        return (data or {}).get("output", "") if isinstance(data, dict) else ""
    return text or ""


def port_qos(text):
    """The running config -> {port: {"trust", "dscp_to_tc", "pfc", "ecn"}} for every Ethernet port: DSCP trust
    (``qos trust dscp``) with the global DSCP map (``qos map dscp <points> to traffic-class <tc>``; a code point it
    does not name goes to traffic class 0), PFC's no-drop priorities, and ECN on the traffic classes whose tx-queue
    in the port's QoS profile (``service-profile``) marks it (a traffic class goes to the queue of its number)."""
    dscp_map, profiles, ports = {}, {}, {}
    mode, profile, queue = None, None, None
    for line in _text(text).splitlines():
        if not line.strip() or line.strip().startswith("!"):
            continue
        depth = len(line) - len(line.lstrip(" "))
        words = line.split()
        if depth == 0:
            mode, profile, queue = None, None, None
            match = re.match(r"qos map dscp ([\d ]+) to traffic-class (\d+)$", line.strip())
            if match:
                dscp_map.update((int(p), int(match.group(2))) for p in match.group(1).split())
            elif words[:2] == ["qos", "profile"] and len(words) == 3:
                mode, profile = "profile", words[2]
                profiles[profile] = set()
            elif words[0] == "interface" and len(words) == 2 and words[1].startswith("Ethernet"):
                mode, profile = "port", words[1]
                ports[profile] = {"trust": None, "pfc": [], "profile": None}
        elif mode == "profile":
            if words[0] == "tx-queue" and len(words) == 2 and words[1].isdigit():
                queue = int(words[1])
            elif words[:2] == ["random-detect", "ecn"] and queue is not None and depth > 3:
                profiles[profile].add(queue)
        elif mode == "port":
            conf = ports[profile]
            if words == ["qos", "trust", "dscp"]:
                conf["trust"] = "dscp"
            elif words[:2] == ["priority-flow-control", "priority"] and words[-1] == "no-drop" and words[2].isdigit():
                conf["pfc"].append(int(words[2]))
            elif words[0] == "service-profile" and len(words) == 2:
                conf["profile"] = words[1]
    out = {}
    for port, conf in ports.items():
        dscp = {point: dscp_map.get(point, 0) for point in range(64)} if conf["trust"] == "dscp" else None
        out[port] = {"trust": conf["trust"], "dscp_to_tc": dscp, "pfc": sorted(conf["pfc"]),
                     "ecn": sorted(profiles.get(conf["profile"], ()))}
    return out


PARSERS = {
    "lldp": ("lldp", lldp_neighbors),
    "bgp": ("bgp", bgp_summary),
    "routes": ("routes", routes),
    "links": ("links", links),
    "qos": ("qos", port_qos),
}
