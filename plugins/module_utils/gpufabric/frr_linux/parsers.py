"""Parsers from command output to plain data: vtysh JSON, lldpcli JSON, `ip -j`, mlnx_qos (a NOS's own
command output has its collectors in its home, nos/<name>/collectors.py, which reach these through
frr_linux/collectors.py when the NOS runs FRR, lldpd and iproute2).

Each takes the text a command printed and returns dicts keyed by the names a check compares with the plan
(interface names, peer addresses, prefixes). Unknown or empty output gives an empty result, not a guess.
The fixtures under tests/unit/fixtures/validate/ are real outputs of these commands (see capture.sh there).
"""
import json
import re

from ..server.mellanox import parse_mlnx_qos


def _json(text, default):
    text = (text or "").strip()
    return json.loads(text) if text else default


def bgp_summary(text):
    """`show bgp [vrf default] [ipv4 unicast] summary json` -> {"local_as", "peers": {ip: {state, remote_as,
    prefixes_received, hostname}}}. Without an address family FRR nests the summary under "ipv4Unicast"."""
    data = _json(text, {})
    if "peers" not in data:
        data = data.get("ipv4Unicast") or data.get("default", {}).get("ipv4Unicast") or data
    peers = {}
    for ip, peer in (data.get("peers") or {}).items():
        peers[ip] = {"state": peer.get("state"), "remote_as": peer.get("remoteAs"),
                     "prefixes_received": peer.get("pfxRcd"), "hostname": peer.get("hostname")}
    return {"local_as": data.get("as"), "peers": peers}


def routes(text):
    """`show ip route json` -> {prefix: {"protocol", "nexthops": [{"ip", "interface"}]}} for the selected
    route of each prefix, counting only active next hops (the ECMP set actually in use)."""
    out = {}
    for prefix, entries in _json(text, {}).items():
        for entry in entries:
            if not entry.get("selected"):
                continue
            hops = [{"ip": h.get("ip"), "interface": h.get("interfaceName")}
                    for h in entry.get("nexthops", []) if h.get("active")]
            out[prefix] = {"protocol": entry.get("protocol"), "nexthops": hops}
    return out


def _one(value):
    """lldpcli's JSON gives a single object where there is one item and a list where there are more."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _port_name(port):
    pid = port.get("id", {})
    if isinstance(pid, dict) and pid.get("type") in ("ifname", "local"):
        return pid.get("value")
    # With the default port id (a MAC address) the interface name is in the port description.
    return port.get("descr") or (pid.get("value") if isinstance(pid, dict) else None)


def _lldp_age(text):
    """lldpcli's neighbour age ("1 day, 02:03:04") in seconds, or None."""
    match = re.match(r"\s*(\d+) days?, (\d+):(\d\d):(\d\d)\s*$", text or "")
    if not match:
        return None
    days, hours, minutes, seconds = (int(g) for g in match.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def lldp_neighbors(text):
    """`lldpcli -f json show neighbors details` -> {local port: [{"system", "port", "age_s"}]}, age_s being how
    long ago the neighbour was learned (None when lldpcli does not say)."""
    data = _json(text, {}).get("lldp") or {}
    out = {}
    for item in _one(data.get("interface") if isinstance(data, dict) else None):
        for local, detail in item.items():
            chassis = detail.get("chassis", {})
            names = [k for k in chassis if k not in ("id", "descr", "mgmt-ip", "capability")]
            system = names[0] if names else (chassis.get("name") or chassis.get("id", {}).get("value"))
            out.setdefault(local, []).append({"system": system, "port": _port_name(detail.get("port", {})),
                                              "age_s": _lldp_age(detail.get("age"))})
    return out


def ip_links(text):
    """`ip -j -s link show` -> {ifname: {admin_up, oper_up, mtu, rx_errors, tx_errors, rx_discards,
    tx_discards}}."""
    out = {}
    for link in _json(text, []):
        stats = link.get("stats64") or link.get("stats") or {}
        rx, tx = stats.get("rx", {}), stats.get("tx", {})
        flags = link.get("flags", [])
        out[link["ifname"]] = {
            "admin_up": "UP" in flags, "oper_up": "LOWER_UP" in flags and link.get("operstate") != "DOWN",
            "mtu": link.get("mtu"),
            "rx_errors": rx.get("errors"), "tx_errors": tx.get("errors"),
            "rx_discards": rx.get("dropped"), "tx_discards": tx.get("dropped"),
        }
    return out


def ip_addrs(text):
    """`ip -j addr show` -> {ifname: {"mtu", "ipv4": ["a.b.c.d/len"]}}."""
    out = {}
    for link in _json(text, []):
        out[link["ifname"]] = {"mtu": link.get("mtu"),
                               "ipv4": ["%s/%s" % (a["local"], a["prefixlen"]) for a in link.get("addr_info", [])
                                        if a.get("family") == "inet"]}
    return out


def ip_rules(text):
    """`ip -j rule show` -> [{"priority", "src", "table"}] with src as written ("all" or an address)."""
    out = []
    for rule in _json(text, []):
        src = rule.get("src", "all")
        if rule.get("srclen") not in (None, 32) and src != "all":
            src = "%s/%s" % (src, rule["srclen"])
        out.append({"priority": rule.get("priority"), "src": src, "table": str(rule.get("table"))})
    return out


def ip_routes(text):
    """`ip -j route show table all` -> {table: [{"dst", "gateway", "dev"}]}; the main table is "main"."""
    out = {}
    for route in _json(text, []):
        out.setdefault(str(route.get("table", "main")), []).append(
            {"dst": route.get("dst"), "gateway": route.get("gateway"), "dev": route.get("dev")})
    return out


def sysfs_values(text):
    """`grep -H . /sys/class/net/*/carrier_changes ...` -> {ifname: {file: value}} (numbers as int)."""
    out = {}
    for line in (text or "").splitlines():
        m = re.match(r"^/sys/class/net/([^/]+)/(.+?):(.*)$", line)
        if not m:
            continue
        value = m.group(3).strip()
        out.setdefault(m.group(1), {})[m.group(2)] = int(value) if re.match(r"^-?\d+$", value) else value
    return out


def mlnx_qos(text):
    """`mlnx_qos -i IF` -> {"trust", "pfc": [priorities with PFC on]}, or None when it is not mlnx_qos output
    (the tool is absent). The parsing itself is the server role's (server/mellanox.py)."""
    try:
        parsed = parse_mlnx_qos(text or "")
    except ValueError:
        return None
    return {"trust": parsed["trust"], "pfc": [p for p, on in enumerate(parsed["pfc"]) if on]}
