"""`show version` and `show interfaces status` of a twin switch, in sonic-utilities' words and layout.

show version: sonic-utilities show/main.py ``version`` (device_info.get_sonic_version_info() is sonic_version.yml,
get_platform_info() the platform and hwsku of DEVICE_METADATA, with machine.conf's platform when DEVICE_METADATA has
none, platform.get_chassis_info() STATE_DB ``CHASSIS_INFO|chassis 1``, ``uptime``, the date as "%a %d %b %Y %X",
then ``docker images`` as a table).
show interfaces status: sonic-utilities scripts/intfutil ``IntfStatus``: one row per front-panel port of CONFIG_DB PORT
that APPL_DB PORT_TABLE has, then one per PortChannel; its values from APPL_DB PORT_TABLE (lanes, mtu, fec, alias,
oper_status, admin_status, pfc_asym: "N/A" when missing), the speed from STATE_DB when the port is up, else APPL_DB,
as "400G" ("{:.0f}G", "2.5G", "100M"), Vlan "routed", "trunk" (a VLAN member) or its PortChannel, Type from STATE_DB
TRANSCEIVER_INFO (no transceivers on the twin: "N/A"); printed as tabulate's "simple" table, right-aligned, in
natural order.
"""
import datetime
import hashlib
import re
import subprocess

HEADER = ("Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type", "Asym PFC")
# The SONiC containers whose work the twin does (redis, orchagent, FRR, lldpd), as `docker images` names them.
IMAGES = ("docker-database", "docker-orchagent", "docker-fpm-frr", "docker-lldp")


def natural(name):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def speed_text(value):
    """intfutil's port_speed_parse: Mb/s as "400G", "2.5G", "100M"."""
    speed = int(value)
    if speed < 1000:
        return "%dM" % speed
    if speed % 1000 >= 100:
        return "{:.1f}G".format(speed / 1000)
    return "{:.0f}G".format(speed / 1000)


def table(rows, header):
    """tabulate(rows, header, tablefmt="simple", stralign="right"): each column as wide as its widest cell or its
    header and two, cells right-aligned, two spaces between columns, a dashed rule under the header."""
    widths = [max([len(h) + 2] + [len(str(row[i])) for row in rows]) for i, h in enumerate(header)]
    lines = ["  ".join(str(h).rjust(w) for h, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(cell).rjust(w) for cell, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


def interfaces_status(config, appl, state):
    """The text of `show interfaces status` from CONFIG_DB ``config``, APPL_DB ``appl`` and STATE_DB ``state``
    (get_config() forms: {table: {key: row}})."""
    ports, lags = appl.get("PORT_TABLE", {}), appl.get("LAG_TABLE", {})
    states = state.get("PORT_TABLE", {})
    vlan_members = {key.split("|", 1)[1] for key in config.get("VLAN_MEMBER", {})}
    members = {}
    for key in config.get("PORTCHANNEL_MEMBER", {}):
        lag, _sep, port = key.partition("|")
        members.setdefault(lag, []).append(port)
    in_lag = {port: lag for lag, ports_of in members.items() for port in ports_of}
    rows = []
    for name in config.get("PORT", {}):
        if name not in ports:
            continue
        row = ports[name]
        speed = states.get(name, {}).get("speed") if row.get("oper_status") == "up" else None
        speed = speed or row.get("speed")
        mode = config["PORT"][name].get("mode") or ("trunk" if name in vlan_members else "routed")
        rows.append((name, row.get("lanes", "N/A"), speed_text(speed) if speed and speed != "N/A" else "N/A",
                     row.get("mtu", "N/A"), row.get("fec", "N/A"), row.get("alias", "N/A"), in_lag.get(name, mode),
                     row.get("oper_status", "N/A"), row.get("admin_status", "N/A"), "N/A", row.get("pfc_asym", "N/A")))
    for lag in sorted(members, key=natural):
        total = sum(int(ports.get(m, {}).get("speed") or 0) for m in members[lag])
        lag_row = lags.get(lag, {})
        rows.append((lag, "N/A", speed_text(total) if total else "N/A", config.get("PORTCHANNEL", {}).get(lag, {})
                     .get("mtu", "N/A"), "N/A", "N/A", "trunk" if lag in vlan_members else "routed",
                     lag_row.get("oper_status", "N/A"), lag_row.get("admin_status", "N/A"), "N/A", "N/A"))
    rows.sort(key=lambda r: natural(r[0]))
    return table(rows, HEADER) + "\n"


def _uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def docker_images(build_version):
    """`docker images --format "table {{.Repository}}\\t{{.Tag}}\\t{{.ID}}\\t{{.Size}}"`: the twin has no images;
    the rows name the containers it stands in for, tagged with the build and latest (IDs from their names)."""
    rows = []
    for image in IMAGES:
        digest = hashlib.sha256((image + build_version).encode()).hexdigest()[:12]
        rows += [(image, build_version, digest, "0B"), (image, "latest", digest, "0B")]
    widths = [max(10, len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(("REPOSITORY", "TAG", "IMAGE ID"))]
    out = ["   ".join(h.ljust(w) for h, w in zip(("REPOSITORY", "TAG", "IMAGE ID"), widths)) + "   SIZE"]
    out += ["   ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "   " + r[3] for r in rows]
    return "\n".join(out) + "\n"


def version(info, metadata, twin, chassis, brief=False, now=None):
    """The text of `show version`: ``info`` sonic_version.yml, ``metadata`` DEVICE_METADATA|localhost, ``twin``
    gpufabric-twin.json (the machine.conf platform), ``chassis`` STATE_DB CHASSIS_INFO|chassis 1."""
    import os
    now = now or datetime.datetime.now()
    lines = ["", "SONiC Software Version: SONiC.%s" % info.get("build_version", "N/A"),
             "SONiC OS Version: %s" % info.get("sonic_os_version", "N/A"),
             "Distribution: Debian %s" % info.get("debian_version", "N/A"),
             "Kernel: %s" % info.get("kernel_version", os.uname().release),
             "Build commit: %s" % info.get("commit_id", ""), "Build date: %s" % info.get("build_date", ""),
             "Built by: %s" % info.get("built_by", ""), "",
             "Platform: %s" % (metadata.get("platform") or twin.get("platform", "")),
             "HwSKU: %s" % metadata.get("hwsku", ""), "ASIC: %s" % info.get("asic_type", ""), "ASIC Count: 1",
             "Serial Number: %s" % chassis.get("serial", "N/A"), "Model Number: %s" % chassis.get("model", "N/A"),
             "Hardware Revision: %s" % chassis.get("revision", "N/A"), "Uptime: %s" % _uptime(),
             "Date: %s" % now.strftime("%a %d %b %Y %X")]
    text = "\n".join(lines) + "\n"
    if not brief:
        text += "\nDocker images:\n" + docker_images(info.get("build_version", "")) + "\n"
    return text
