"""NVUE's operational views of a Cumulus switch of the twin, answered from what the namespace runs: ``nv show
interface [<name> [link|ip|lldp]]`` from the kernel (links, carrier, MTU, speed, addresses) and lldpd, ``nv show vrf
<vrf> router bgp neighbor [<peer>]`` from FRR.

Cumulus Linux 5.14 (NVUE command reference, Show Commands, "Interface" and "VRF"; user guide, "NVUE CLI": ``nv show``
without ``--applied`` is the operational state): ``nv show interface`` lists every interface with its type, state,
speed, MTU, remote host and port (LLDP) and addresses; ``nv show interface <name>`` has ``type``, ``ifindex``, ``ip``
{``address``}, ``link`` {``mtu``, ``speed``, ``state``, ``mac``, ``duplex``, ``auto-negotiate``, ``counters``
{``carrier-transitions``, ...}}, ``lldp`` {``neighbor``}; ``nv show vrf default router bgp neighbor`` each neighbour's
remote AS, type and session state. The keys are those the reference's examples show; the JSON nesting beyond them is
the twin's reading (NVIDIA publishes the configuration model, not the operational one). What comes from where: the
kernel's link flags (``UP`` is the admin state, ``LOWER_UP`` the carrier), its MTU, ``/sys/class/net/<port>/speed``
(a veth says 10000: the twin's ports are 10G, not the ASIC's) and ``carrier_changes``; lldpd's neighbours through its
socket; FRR's ``show bgp vrf <vrf> ipv4 unicast summary json``. A view the twin does not model answers None.

Emulator code: the standard library and this directory only.
"""
import json
import os
import subprocess

STATE_ROOT = "/run/gpufabric-twin"
FRR_ETC = "/etc/frr"   # FRR's configuration, one directory per pathspace (-N <host>) on the machine


def _run(argv):
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    return proc.stdout if proc.returncode == 0 else ""


def _json(text, default):
    try:
        return json.loads(text) if text.strip() else default
    except ValueError:
        return default


def _sys(name, what):
    try:
        with open("/sys/class/net/%s/%s" % (name, what), encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def speed_text(mbps):
    """NVUE's speed words: 10000 Mb/s is ``10G``, 400000 ``400G``, 100 ``100M``; unknown (-1, none) is None."""
    try:
        value = int(mbps)
    except (TypeError, ValueError):
        return None
    if value <= 0:
        return None
    return "%dG" % (value // 1000) if value >= 1000 and value % 1000 == 0 else "%dM" % value


def _kind(name, conf):
    if conf and conf.get("type"):
        return conf["type"]
    if name.startswith("swp"):
        return "swp"
    if name == "lo":
        return "loopback"
    if name.startswith("eth"):
        return "eth"
    return None      # what the twin itself made (tenant VRF links, bridges of ports in VRFs): not the switch's


def lldp_neighbors(text):
    """{port: {"neighbor": {system name: {"chassis": {...}, "port": {...}}}}} of ``lldpcli -f json show neighbors``."""
    data = _json(text, {})
    found = (data.get("lldp") or {}).get("interface") or []
    if isinstance(found, dict):
        found = [{k: v} for k, v in found.items()]
    out = {}
    for entry in found:
        for port, body in entry.items():
            chassis = body.get("chassis") or {}
            if len(chassis) == 1 and isinstance(next(iter(chassis.values())), dict):
                name, chassis = next(iter(chassis.items()))
            else:
                name = (chassis.get("name") or {}).get("value") if isinstance(chassis.get("name"), dict) else chassis.get("name")
            cid = chassis.get("id") or {}
            remote = body.get("port") or {}
            pid = remote.get("id") or {}
            ttl = remote.get("ttl") or body.get("ttl")
            out.setdefault(port, {"neighbor": {}})["neighbor"][name or "unknown"] = {
                "age": body.get("age"),
                "chassis": {"chassis-id": cid.get("value"), "system-name": name,
                            "system-description": (chassis.get("descr") or "")},
                "port": {"name": pid.get("value"), "description": remote.get("descr"), "type": pid.get("type"),
                         "ttl": int(ttl) if str(ttl or "").isdigit() else ttl}}
    return out


def interfaces(links, addrs, config, lldp):
    """``nv show interface``'s objects: {name: view} of the switch's interfaces."""
    configured = config.get("interface") or {}
    by_addr = {a["ifname"]: a.get("addr_info") or [] for a in addrs}
    out = {}
    for name, link in sorted(links.items()):
        kind = _kind(name, configured.get(name))
        if kind is None:
            continue
        flags = link.get("flags") or []
        up = "UP" in flags
        carrier = up and "LOWER_UP" in flags
        view = {"type": kind, "ifindex": link.get("ifindex"),
                "ip": {"address": {"%s/%s" % (a["local"], a["prefixlen"]): {} for a in by_addr.get(name, ())}},
                "link": {"mtu": link.get("mtu"), "state": {"up" if carrier else "down": {}},
                         "admin-status": "up" if up else "down", "oper-status": "up" if carrier else "down",
                         "mac": link.get("address"), "duplex": "full", "auto-negotiate": "off",
                         "counters": {"carrier-transitions": int(_sys(name, "carrier_changes") or 0)}}}
        speed = speed_text(_sys(name, "speed")) if carrier else None
        if speed:
            view["link"]["speed"] = speed
        vrf = ((configured.get(name) or {}).get("ip") or {}).get("vrf")
        if vrf:
            view["ip"]["vrf"] = vrf
        if name in lldp:
            view["lldp"] = lldp[name]
        out[name] = view
    return out


_STATES = {"Established": "established", "Idle": "idle", "Connect": "connect", "Active": "active",
           "OpenSent": "opensent", "OpenConfirm": "openconfirm"}


def bgp_neighbors(summary, config, vrf="default"):
    """``nv show vrf <vrf> router bgp neighbor``'s objects from FRR's summary JSON: {peer: view}."""
    conf = ((((config.get("vrf") or {}).get(vrf) or {}).get("router") or {}).get("bgp") or {}).get("neighbor") or {}
    out = {}
    for peer, body in sorted((summary.get("peers") or {}).items()):
        state = str(body.get("state", ""))
        view = {"remote-as": body.get("remoteAs"), "type": (conf.get(peer) or {}).get("type", "numbered"),
                "state": _STATES.get(state, state.lower() or "idle"),
                "address-family": {"ipv4-unicast": {"rx-prefix": body.get("pfxRcd", 0),
                                                    "tx-prefix": body.get("pfxSnt", 0)}}}
        if (conf.get(peer) or {}).get("peer-group"):
            view["peer-group"] = conf[peer]["peer-group"]
        if body.get("hostname"):
            view["hostname"] = body["hostname"]
        if state == "Established" and body.get("peerUptimeMsec") is not None:
            view["up-time"] = int(body["peerUptimeMsec"]) // 1000
        out[peer] = view
    return out


def _vtysh(host):
    """vtysh of the switch's FRR: its pathspace (``-N <host>``) from the machine, plain ``vtysh`` where ``/etc/frr`` is
    the switch's own already (``nv`` run through the netns connection, as on a switch)."""
    return ["vtysh", "-N", host] if os.path.isdir(os.path.join(FRR_ETC, host)) else ["vtysh"]


def show(host, directory, config, words):
    """The operational tree holding ``words`` (rooted at the top: ``{"interface": ...}``), or None when the twin does
    not model that view."""
    if words[:1] == ["interface"] and (len(words) == 1 or len(words) == 2 or words[2] in ("link", "ip", "lldp", "type")):
        links = {link["ifname"]: link for link in _json(_run(["ip", "-j", "link", "show"]), [])}
        if len(words) >= 2 and words[1] not in links:
            return {"interface": {}}
        addrs = _json(_run(["ip", "-j", "-4", "addr", "show"]), [])
        lldp = {}
        if len(words) == 1 or words[2:3] in ([], ["lldp"]):
            socket = os.path.join(os.path.dirname(os.path.normpath(directory)), "lldpd.socket")
            lldp = lldp_neighbors(_run(["lldpcli", "-u", socket, "-f", "json", "show", "neighbors"]))
        if len(words) >= 2:
            links = {words[1]: links[words[1]]}
        return {"interface": interfaces(links, addrs, config, lldp)}
    if words[:2] == ["vrf", "default"] and words[2:5] == ["router", "bgp", "neighbor"] and len(words) <= 7:
        summary = _json(_run(_vtysh(host) + ["-c", "show bgp vrf default ipv4 unicast summary json"]), {})
        return {"vrf": {"default": {"router": {"bgp": {"neighbor": bgp_neighbors(summary, config)}}}}}
    return None
