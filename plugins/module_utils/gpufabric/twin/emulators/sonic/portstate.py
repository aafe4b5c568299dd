"""What SONiC's port daemons write about each port besides CONFIG_DB, for a twin switch.

- portmgrd/portsyncd copy each CONFIG_DB PORT row into APPL_DB ``PORT_TABLE:<port>``, where portsorch adds
  ``oper_status`` (the ASIC's link state; on the twin the kernel link's carrier);
- portsyncd (sonic-swss portsyncd/linksync.cpp, LinkSync::onMsg) writes STATE_DB ``PORT_TABLE|<port>`` ``state`` "ok",
  ``admin_status`` (IFF_UP), ``netdev_oper_status`` (IFF_RUNNING) and ``mtu`` of the port's netdev;
- portsorch (orchagent/portsorch.cpp) adds ``speed`` (the port's speed) and ``supported_speeds`` (what the ASIC
  says the port can run: on the twin the speeds the platform's platform.json lists for breakout modes giving a port
  as many lanes as this one has; left out where the platform files list none, as GCU then checks no speed);
- teamsyncd/teammgrd: APPL_DB ``LAG_TABLE:<PortChannel>`` with ``admin_status``, ``mtu`` and ``oper_status``.

The twin has no ASIC and no netlink listener: ``sync`` writes them all from CONFIG_DB and the namespace's links when
the switch boots, after each `config` command that changed CONFIG_DB, and when a command reads them (``show
interfaces status``, ``sonic-db-cli``), as the daemons would have written them by then. A switch with no namespace
of its own (the OOB switches) has no links: its ports are oper up when admin up.
"""
import functools
import json
import os
import re

# A breakout mode of platform.json: "1x400G", "2x200G[100G,40G]", "1x100G(4)" (N ports of speed S, other speeds,
# the lanes used when not all of the cage's).
MODE = re.compile(r"^(\d+)x(\d+)G(?:\[([\dG,]+)\])?(?:\((\d+)\))?")
PORT_FIELDS = ("admin_status", "alias", "description", "fec", "index", "lanes", "mtu", "pfc_asym", "speed", "autoneg",
               "tpid")


@functools.lru_cache(maxsize=16)
def _platform_interfaces(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("interfaces") or {}
    except (OSError, ValueError):
        return {}


def _mode_speeds(mode, cage_lanes, port_lanes):
    found = MODE.match(mode)
    if not found:
        return []
    count, speed, others, used = found.groups()
    if (int(used) if used else cage_lanes) // int(count) != port_lanes:
        return []
    speeds = [int(speed)] + [int(s.rstrip("G")) for s in (others or "").split(",") if s]
    return [s * 1000 for s in speeds]


def supported_speeds(platform_dir, lanes):
    """The speeds (Mb/s) a port with ``lanes`` ("33,34,...") can run on that platform, from platform.json: every
    breakout mode of its cage that gives a port as many lanes; [] when the platform files do not say."""
    port_lanes = [lane for lane in str(lanes or "").split(",") if lane.strip()]
    if not port_lanes or not platform_dir:
        return []
    for cage in _platform_interfaces(os.path.join(platform_dir, "platform.json")).values():
        cage_lanes = [lane.strip() for lane in str(cage.get("lanes", "")).split(",")]
        if port_lanes[0].strip() in cage_lanes:
            speeds = set()
            for mode in cage.get("breakout_modes") or {}:
                speeds.update(_mode_speeds(mode, len(cage_lanes), len(port_lanes)))
            return sorted(speeds)
    return []


def kernel_links(argv_prefix=()):
    """{port: (admin up, oper up, mtu)} of the links ``ip -j link show`` lists (in the namespace ``argv_prefix``
    enters, e.g. ["ip", "netns", "exec", host])."""
    import subprocess
    proc = subprocess.run(list(argv_prefix) + ["ip", "-j", "link", "show"], capture_output=True, text=True, check=False)
    links = {}
    for link in json.loads(proc.stdout or "[]") if proc.returncode == 0 else []:
        flags = link.get("flags", [])
        links[link["ifname"]] = ("UP" in flags, "LOWER_UP" in flags and link.get("operstate") != "DOWN", link.get("mtu"))
    return links


def _state_rows(config, links, platform_dir):
    appl, state = {}, {}
    for port, row in config.get("PORT", {}).items():
        admin = row.get("admin_status", "down") == "up"
        link = links.get(port) if links is not None else (admin, admin, row.get("mtu"))
        admin_up, oper_up, mtu = link if link is not None else (admin, False, row.get("mtu"))
        appl[port] = dict({f: row[f] for f in PORT_FIELDS if f in row}, admin_status="up" if admin else "down",
                          oper_status="up" if oper_up and admin else "down")
        if "mtu" not in appl[port]:
            appl[port]["mtu"] = "9100"
        state[port] = {"state": "ok", "admin_status": "up" if admin_up else "down",
                       "netdev_oper_status": "up" if oper_up else "down", "mtu": str(mtu or appl[port]["mtu"])}
        if row.get("speed"):
            state[port]["speed"] = str(row["speed"])
        speeds = supported_speeds(platform_dir, row.get("lanes"))
        if speeds:
            state[port]["supported_speeds"] = ",".join(str(s) for s in speeds)
    lags = {}
    for name, row in config.get("PORTCHANNEL", {}).items():
        members = [m.split("|", 1)[1] for m in config.get("PORTCHANNEL_MEMBER", {}) if m.startswith(name + "|")]
        up = row.get("admin_status", "up") == "up" and any(appl.get(m, {}).get("oper_status") == "up" for m in members)
        lags[name] = {"admin_status": row.get("admin_status", "up"), "mtu": str(row.get("mtu", "9100")),
                      "oper_status": "up" if up else "down"}
    return appl, state, lags


def sync(socket, config, links, platform_dir):
    """Write APPL_DB PORT_TABLE and LAG_TABLE and STATE_DB PORT_TABLE of a switch (``socket``: its redis) from its
    CONFIG_DB ``config`` and ``links`` (kernel_links(), None for a switch without links of its own)."""
    import redis
    appl, state, lags = _state_rows(config, links, platform_dir)
    for db, rows, prefix in ((0, {**{"PORT_TABLE:" + k: v for k, v in appl.items()},
                                  **{"LAG_TABLE:" + k: v for k, v in lags.items()}}, ("PORT_TABLE:", "LAG_TABLE:")),
                             (6, {"PORT_TABLE|" + k: v for k, v in state.items()}, ("PORT_TABLE|",))):
        client = redis.Redis(unix_socket_path=socket, db=db, decode_responses=True)
        pipe = client.pipeline(transaction=True)
        for key in client.scan_iter(count=1000):
            if key.startswith(prefix) and key not in rows:
                pipe.delete(key)
        for key, row in rows.items():
            pipe.delete(key)
            pipe.hset(key, mapping=row)
        pipe.execute()


def refresh(switch):
    """``sync`` for a twin switch (cli.Switch): its links read in its namespace when the twin gave it one."""
    host = switch.twin.get("host", "")
    links = None
    if switch.twin.get("dataplane") and host and os.path.exists(os.path.join("/run/netns", host)):
        links = kernel_links(["ip", "netns", "exec", host])
    sync(switch.socket, switch.db().get_config(), links, switch.twin.get("platform_dir", ""))
