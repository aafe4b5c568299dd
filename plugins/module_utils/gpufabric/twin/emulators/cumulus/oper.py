"""NVUE's operational view of MLAG and bonds on a Cumulus switch of the twin: what ``nv show mlag`` and
``nv show interface <bond> bond`` answer, as NVUE documents (JSON objects with NVUE's keys).

Cumulus Linux 5.14 (user guide, "Multi-Chassis Link Aggregation - MLAG"; NVUE command reference, Show Commands, MLAG):
clagd on each peer talks to the other over the peer link and, when the peer link fails, over the backup IP; the peer
with the lower priority (then the lower system id) is primary; a peer whose partner is gone is primary; a bond with
an MLAG id is dual-connected when the peer has an up bond with the same id, single-connected otherwise. The twin has
no clagd: the view is worked out when asked, from what the peers' clagd would tell each other: the peer is alive
when the peer link has carrier and a switch of the twin holds the other half of the pair (the same MLAG MAC address),
whose applied configuration and port carrier stand for what clagd exchanges; the backup is active when the backup IP
answers an ICMP echo from the switch's loopback (the peer's clagd would answer its UDP heartbeat there). The JSON
keys are those NVIDIA's examples show (`nv show mlag`: backup-active, local-id, local-role, peer-alive, peer-id, peer-interface,
peer-priority, peer-role beside the configuration; `nv show interface <bond> bond mlag`: id, peer-interface, status).

Emulator code: the standard library and this directory only.
"""
import glob
import json
import os
import select
import socket
import struct
import subprocess
import time

MLAG_DEFAULTS = {"enable": "off", "debug": "off", "init-delay": 180, "priority": 32768, "peer-ip": "linklocal"}


def _bond_members(config, bond):
    conf = (config.get("interface") or {}).get(bond) or {}
    return sorted(((conf.get("bond") or {}).get("member") or {}))


def _peerlink(config):
    return next((name for name, conf in sorted((config.get("interface") or {}).items())
                 if conf.get("type") == "peerlink"), None)


def _mlag_id(config, bond):
    conf = (config.get("interface") or {}).get(bond) or {}
    mlag = (conf.get("bond") or {}).get("mlag") or {}
    if mlag.get("enable") == "on" or mlag.get("state") == "enabled":
        return mlag.get("id")
    return None


def _bond_up(config, bond, carrier):
    return any(carrier.get(member) for member in _bond_members(config, bond))


def peer_alive(config, peer_config, carrier):
    """clagd hears its peer over the peer link: a peer exists and one of the peer link's members has carrier."""
    peerlink = _peerlink(config)
    return bool(peer_config) and bool(peerlink) and _bond_up(config, peerlink, carrier)


def mlag_view(config, peer_config, carrier, peer_carrier, backup_reachable, local_id, peer_id):
    """``nv show mlag``: the applied ``mlag`` object with NVUE's defaults, and clagd's view."""
    mlag = dict(MLAG_DEFAULTS, **(config.get("mlag") or {}))
    view = dict(mlag)
    alive = peer_alive(config, peer_config, carrier)
    view["peer-alive"] = alive
    view["backup-active"] = bool(backup_reachable)
    view["local-id"] = local_id
    view["peer-interface"] = _peerlink(config)
    if not mlag.get("backup"):
        view["backup-reason"] = "backup IP not configured"
    elif not backup_reachable:
        view["backup-reason"] = "backup IP not reachable"
    if alive:
        peer_mlag = dict(MLAG_DEFAULTS, **(peer_config.get("mlag") or {}))
        mine, theirs = (int(mlag["priority"]), local_id or ""), (int(peer_mlag["priority"]), peer_id or "")
        view["local-role"] = "primary" if mine <= theirs else "secondary"
        view["peer-role"] = "secondary" if view["local-role"] == "primary" else "primary"
        view["peer-priority"] = int(peer_mlag["priority"])
        view["peer-id"] = peer_id
    else:
        # A switch whose peer is gone (no peer link, and no answer on the backup) carries on alone, as primary.
        view["local-role"] = "primary"
    return view


def bond_view(config, bond, peer_config, carrier, peer_carrier):
    """``nv show interface <bond> bond``: the applied bond with its MLAG status (dual, single, down)."""
    conf = ((config.get("interface") or {}).get(bond) or {}).get("bond") or {}
    view = {"mode": "lacp", "lacp-rate": "fast", "lacp-bypass": "off", "down-delay": 0, "up-delay": 0}
    view.update({key: value for key, value in conf.items() if key != "mlag"})
    view["member"] = {m: {} for m in _bond_members(config, bond)}
    mlag_id = _mlag_id(config, bond)
    if mlag_id is None:
        return view
    mlag = {"enable": "on", "id": mlag_id}
    peer_bond = None
    if peer_alive(config, peer_config, carrier):
        peer_bond = next((name for name in sorted(peer_config.get("interface") or {})
                          if _mlag_id(peer_config, name) == mlag_id), None)
    if peer_bond:
        mlag["peer-interface"] = peer_bond
    if not _bond_up(config, bond, carrier):
        mlag["status"] = "down"
    elif peer_bond and _bond_up(peer_config, peer_bond, peer_carrier):
        mlag["status"] = "dual"
    else:
        mlag["status"] = "single"
    view["mlag"] = mlag
    return view


def _row(local, peer):
    return {"local-value": local, "peer-value": "NOT-SYNCED" if peer is None else peer,
            "conflict": "" if peer is None or local == peer else "%s: %s on this switch, %s on the peer"
            % ("mismatch", local, peer), "summary": ""}


def _peerlink_facts(config):
    peerlink = _peerlink(config)
    conf = (config.get("interface") or {}).get(peerlink) or {}
    domain = (conf.get("bridge") or {}).get("domain") or {}
    return {"peerlink-mtu": (conf.get("link") or {}).get("mtu", 9216),
            "peerlink-master": ",".join(sorted(domain)) or "NOT-BRIDGED",
            "peerlink-vlans": ",".join(sorted(str(v) for d in domain.values() for v in ((d or {}).get("vlan") or {})))}


def mlag_consistency(config, peer_config):
    """``nv show mlag consistency-checker global``: the parameters both peers must agree on, with the conflict."""
    mine = dict(MLAG_DEFAULTS, **(config.get("mlag") or {}))
    theirs = dict(MLAG_DEFAULTS, **((peer_config or {}).get("mlag") or {})) if peer_config else {}
    rows = {"mac-address": _row(mine.get("mac-address"), theirs.get("mac-address") if peer_config else None),
            "peer-ip": _row(mine.get("peer-ip"), theirs.get("peer-ip") if peer_config else None)}
    local_pl = _peerlink_facts(config)
    peer_pl = _peerlink_facts(peer_config) if peer_config else {}
    for key, value in local_pl.items():
        rows[key] = _row(value, peer_pl.get(key) if peer_config else None)
    return rows


def bond_consistency(config, bond, peer_config, peer_bond):
    """``nv show interface <bond> bond mlag consistency-checker``."""
    def facts(cfg, name):
        conf = (cfg.get("interface") or {}).get(name) or {}
        domain = (conf.get("bridge") or {}).get("domain") or {}
        return {"clag-id": _mlag_id(cfg, name), "mtu": (conf.get("link") or {}).get("mtu", 9216),
                "master": ",".join(sorted(domain)) or "NOT-BRIDGED",
                "access-vlan": next((d.get("access") for d in domain.values() if d and d.get("access")), None)}
    mine = facts(config, bond)
    theirs = facts(peer_config, peer_bond) if peer_config and peer_bond else {}
    return {key: _row(value, theirs.get(key) if theirs else None) for key, value in mine.items()}


# --- what the switch observes -------------------------------------------------------------------------------

def _links(host=None):
    argv = ["ip"] + (["-n", host] if host else []) + ["-j", "link", "show"]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    try:
        return {link["ifname"]: link for link in json.loads(proc.stdout or "[]")}
    except ValueError:
        return {}


def _carrier(links):
    """{port: whether it is up with carrier}: IFF_LOWER_UP, the carrier itself (NO-CARRIER follows the operational
    state, which the kernel's link watch updates up to a second later)."""
    return {name: "UP" in link.get("flags", []) and "LOWER_UP" in link.get("flags", [])
            for name, link in links.items()}


def _checksum(data):
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


def icmp_answered(address, source=None, timeout=1.0):
    """Whether ``address`` answers an ICMP echo from this network namespace (from ``source``) within ``timeout``
    seconds."""
    ident = os.getpid() & 0xFFFF
    payload = b"gpufabric-twin-clagd"
    packet = struct.pack("!BBHHH", 8, 0, 0, ident, 1) + payload
    packet = struct.pack("!BBHHH", 8, 0, _checksum(packet), ident, 1) + payload
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    except OSError:
        return False
    with sock:
        try:
            if source:
                sock.bind((source, 0))
            sock.sendto(packet, (address, 0))
        except OSError:
            return False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _w, _x = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            data, (source, _port) = sock.recvfrom(2048)
            header = (data[0] & 0x0F) * 4
            kind, _code, _sum, got_ident, _seq = struct.unpack("!BBHHH", data[header:header + 8])
            if kind == 0 and got_ident == ident and source == address:
                return True
    return False


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def find_peer(directory, config):
    """(host, applied configuration) of the other switch of the twin in this switch's MLAG pair (the same MLAG MAC
    address), or (None, None)."""
    mac = ((config.get("mlag") or {}).get("mac-address") or "").lower()
    if not mac:
        return None, None
    me = os.path.basename(os.path.dirname(os.path.normpath(directory)))
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(os.path.normpath(directory))),
                                              "*", "nvue", "applied.json"))):
        host = os.path.basename(os.path.dirname(os.path.dirname(path)))
        other = _read(path) or {}
        if host != me and ((other.get("mlag") or {}).get("mac-address") or "").lower() == mac:
            return host, other
    return None, None


def show(directory, config, words):
    """The operational object at ``words`` (``mlag ...`` or ``interface <bond> bond ...``), or None when the twin
    does not model that view."""
    links = _links()
    carrier = _carrier(links)
    peer_host, peer_config = find_peer(directory, config)
    peer_links = _links(peer_host) if peer_host else {}
    if not peer_links:
        peer_host, peer_config = None, None
    peer_carrier = _carrier(peer_links)
    if not peer_alive(config, peer_config, carrier):
        peer_config = None

    def system_id(cfg, lnks):
        member = next((m for m in _bond_members(cfg, _peerlink(cfg) or "") if m in lnks), None)
        return lnks[member].get("address") if member else None

    if words[:1] == ["mlag"]:
        if not config.get("mlag"):
            return {}
        backups = sorted(((config.get("mlag") or {}).get("backup") or {}))
        # From the switch's loopback, the address its peer's backup names: the fabric routes loopbacks, not its /31s.
        lo = ((config.get("interface") or {}).get("lo") or {}).get("ip") or {}
        loopback = next((a.split("/")[0] for a in sorted(lo.get("address") or {})), None)
        reachable = any(icmp_answered(ip, loopback) for ip in backups)
        view = mlag_view(config, peer_config, carrier, peer_carrier, reachable, system_id(config, links),
                         system_id(peer_config, peer_links) if peer_config else None)
        view["backup"] = {ip: dict(conf or {}, status="active" if reachable else "inactive")
                          for ip, conf in ((config.get("mlag") or {}).get("backup") or {}).items()}
        view["consistency-checker"] = {"global": mlag_consistency(config, peer_config)}
        return {"mlag": view}
    if words[:1] == ["interface"] and len(words) >= 3 and words[2] == "bond":
        bond = words[1]
        conf = (config.get("interface") or {}).get(bond)
        if not conf or conf.get("type") not in ("bond", "peerlink"):
            return None
        view = bond_view(config, bond, peer_config, carrier, peer_carrier)
        if "mlag" in view:
            view["mlag"]["consistency-checker"] = bond_consistency(config, bond, peer_config,
                                                                   view["mlag"].get("peer-interface"))
        return {"interface": {bond: {"bond": view}}}
    return None
