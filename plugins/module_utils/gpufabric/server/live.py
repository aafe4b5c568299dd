"""What `ip` commands bring a host's live state to the rail NIC plan (see network.backend), from the JSON of
`ip -j`. Pure: the caller runs the reads and the commands."""


def link_commands(nic, link):
    """``link``: one entry of `ip -j link show dev NAME`."""
    cmds = []
    if int(link.get("mtu", 0)) != nic["mtu"]:
        cmds.append(["link", "set", "dev", nic["name"], "mtu", str(nic["mtu"])])
    if "UP" not in link.get("flags", []):
        cmds.append(["link", "set", "dev", nic["name"], "up"])
    return cmds


def addr_commands(nic, addrs):
    """``addrs``: `ip -j -4 addr show dev NAME` (a list with one entry holding addr_info)."""
    have = {"%s/%s" % (a["local"], a["prefixlen"]) for entry in addrs for a in entry.get("addr_info", [])
            if a.get("family") == "inet"}
    return [] if nic["cidr"] in have else [["addr", "add", nic["cidr"], "dev", nic["name"]]]


def route_commands(nic, routes):
    """``routes``: `ip -j -4 route show table T`. The table holds the /31 and a default via the rail leaf."""
    cmds = []
    connected = [r for r in routes if r.get("dst") == nic["network"] and r.get("dev") == nic["name"]]
    if not connected or connected[0].get("prefsrc") != nic["address"]:
        cmds.append(["route", "replace", nic["network"], "dev", nic["name"], "src", nic["address"], "scope", "link",
                     "table", str(nic["table"])])
    default = [r for r in routes if r.get("dst") == "default"]
    if not default or default[0].get("gateway") != nic["gateway"] or default[0].get("dev") != nic["name"]:
        cmds.append(["route", "replace", "default", "via", nic["gateway"], "dev", nic["name"],
                     "table", str(nic["table"])])
    return cmds


def rule_commands(nic, rules):
    """``rules``: `ip -j -4 rule show`. One rule ``from ADDRESS lookup TABLE`` at the NIC's priority; any other rule
    at that priority (an older plan's) goes."""
    cmds, ok = [], False
    for r in rules:
        if r.get("priority") != nic["priority"]:
            continue
        if r.get("src") == nic["address"] and r.get("srclen", 32) == 32 and str(r.get("table")) == str(nic["table"]):
            ok = True
        else:
            cmds.append(["rule", "del", "priority", str(nic["priority"])])
    if not ok:
        cmds.append(["rule", "add", "from", nic["address"] + "/32", "table", str(nic["table"]),
                     "priority", str(nic["priority"])])
    return cmds
