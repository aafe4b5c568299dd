"""The CONFIG_DB a SONiC switch holds after its first boot, for its platform and hwsku.

First boot (sonic-buildimage files/image_config/config-setup/config-setup, ``generate_config factory``) reads the
platform's ``default_sku`` ("<hwsku> <preset>", e.g. "DellEMC-Z9332f-O32 t1") and writes
``sonic-cfggen -H -k <hwsku> --preset <preset>`` to /etc/sonic/config_db.json, then `config reload` loads it over
/etc/sonic/init_cfg.json. Followed here (sonic-buildimage src/sonic-config-engine: sonic-cfggen, portconfig.py,
config_samples.py; files/build_templates/init_cfg.json.j2):
- ``-k``: DEVICE_METADATA hwsku, PORT from the hwsku's port_config.ini (name, lanes, alias, index, speed and any
  further column), and BREAKOUT_CFG (each interface's ``default_brkout_mode`` of hwsku.json) when the platform's
  platform.json lists interfaces (the port config is then platform.json; for the reference SKUs its default modes
  give the rows of port_config.ini);
- ``-H``: DEVICE_METADATA platform and mac (the twin's system MAC: from the switch's name);
- the ``t1`` preset (generate_t1_sample_config, after generate_common_config): hostname "sonic", type LeafRouter,
  bgp_asn 65100, every port admin up with MTU 9100, Loopback0 10.1.0.1/32, a /31 from 10.0.0.0 on every port in
  natural order and a BGP neighbour at its other end (ARISTA<nn>T2 AS 65200 for the first half, T0 AS 64001 on),
  FLEX_COUNTER_TABLE ACL disabled; the ``empty`` preset: DEVICE_METADATA only, with hostname and type;
- init_cfg.json (loaded first, the file's tables on top): DEVICE_METADATA buffer_model, default_bgp_status,
  default_pfcwd_status, timezone; CRM thresholds; FLEX_COUNTER_TABLE; BGP_DEVICE_GLOBAL. Its FEATURE, AAA, SYSLOG
  and other service tables are not modelled.
"""
import hashlib
import json
import os

from .show_status import natural

CRM_RESOURCES = ("ipv4_route", "ipv6_route", "ipv4_nexthop", "ipv6_nexthop", "ipv4_neighbor", "ipv6_neighbor",
                 "nexthop_group_member", "nexthop_group", "acl_table", "acl_group", "acl_entry", "acl_counter",
                 "fdb_entry", "snat_entry", "dnat_entry", "ipmc_entry", "mpls_inseg", "mpls_nexthop")
COUNTERS = ("PORT", "PORT_PHY_ATTR", "RIF", "QUEUE", "PFCWD", "PG_WATERMARK", "PG_DROP", "QUEUE_WATERMARK",
            "BUFFER_POOL_WATERMARK", "PORT_BUFFER_DROP")


class FactoryError(ValueError):
    """The platform's files do not say what first boot needs (one line)."""


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def port_config(path):
    """{port: row} of a port_config.ini: its header line names the columns (# name lanes alias index speed ...)."""
    text = _read(path)
    if text is None:
        raise FactoryError("no port_config.ini at %s" % path)
    columns, ports = None, {}
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0].startswith("#"):
            columns = [w for w in (" ".join(words).lstrip("#").split()) if w]
            continue
        columns = columns or ["name", "lanes", "alias", "index", "speed"]
        row = dict(zip(columns[1:], words[1:]))
        ports[words[0]] = row
    return ports


def init_cfg():
    """The tables of init_cfg.json the twin models (its template with a traditional buffer model, BGP up and the PFC
    watchdog off at start, as sonic-buildimage builds by default)."""
    crm = {"polling_interval": "300"}
    for resource in CRM_RESOURCES:
        crm.update({resource + "_threshold_type": "percentage", resource + "_low_threshold": "70",
                    resource + "_high_threshold": "85"})
    counters = {name: {"FLEX_COUNTER_STATUS": "enable"} for name in COUNTERS}
    counters["ACL"] = {"FLEX_COUNTER_STATUS": "enable", "POLL_INTERVAL": "10000"}
    return {"DEVICE_METADATA": {"localhost": {"buffer_model": "traditional", "default_bgp_status": "up",
                                              "default_pfcwd_status": "disable", "timezone": "UTC"}},
            "CRM": {"Config": crm}, "FLEX_COUNTER_TABLE": counters,
            "BGP_DEVICE_GLOBAL": {"STATE": {"tsa_enabled": "false", "wcmp_enabled": "false",
                                            "idf_isolation_state": "unisolated"}}}


def system_mac(host):
    """The twin's stand-in for the switch's base MAC (its EEPROM's): locally administered, from its name."""
    digest = hashlib.sha256(("sonic-system-mac " + host).encode()).digest()
    return ":".join("%02x" % b for b in (b"\x02" + digest[:5]))


def _t1(data):
    meta = data["DEVICE_METADATA"]["localhost"]
    meta.update(hostname="sonic", type="LeafRouter", bgp_asn="65100")
    data["LOOPBACK_INTERFACE"] = {"Loopback0": {}, "Loopback0|10.1.0.1/32": {}}
    data["INTERFACE"], data["BGP_NEIGHBOR"] = {}, {}
    ports = sorted(data["PORT"], key=natural)
    half = len(ports) // 2
    for count, port in enumerate(ports):
        data["PORT"][port].update(admin_status="up", mtu="9100")
        local = "10.0.%d.%d" % (2 * count // 256, 2 * count % 256)
        peer = "10.0.%d.%d" % (2 * count // 256, 2 * count % 256 + 1)
        data["INTERFACE"][port] = {}
        data["INTERFACE"]["%s|%s/31" % (port, local)] = {}
        name = "ARISTA%02d%s" % (1 + count % half if half else 1, "T2" if count < half else "T0")
        data["BGP_NEIGHBOR"][peer] = {"rrclient": "0", "name": name, "local_addr": local, "nhopself": "0", "holdtime": "180",
                                      "asn": str(65200 if count < half else 64001 + count - half), "keepalive": "60"}
    return data


def first_boot(platform_dir, host):
    """The CONFIG_DB (config_db.json form) first boot leaves on a switch of the platform whose files are at
    ``platform_dir`` (sonic-buildimage device/<vendor>/<platform>/), as above. FactoryError when they lack what it
    needs."""
    preset = (_read(os.path.join(platform_dir, "default_sku")) or "").split()
    if not preset:
        raise FactoryError("no default_sku in %s" % platform_dir)
    hwsku, kind = preset[0], (preset[1] if len(preset) > 1 else "empty")
    data = {"DEVICE_METADATA": {"localhost": {"hwsku": hwsku, "platform": os.path.basename(platform_dir.rstrip("/")),
                                              "mac": system_mac(host)}},
            "PORT": port_config(os.path.join(platform_dir, hwsku, "port_config.ini"))}
    platform_json = json.loads(_read(os.path.join(platform_dir, "platform.json")) or "{}")
    hwsku_json = json.loads(_read(os.path.join(platform_dir, hwsku, "hwsku.json")) or "{}")
    if platform_json.get("interfaces") and hwsku_json.get("interfaces"):
        data["BREAKOUT_CFG"] = {port: {"brkout_mode": row["default_brkout_mode"]}
                                for port, row in hwsku_json["interfaces"].items()}
    data["FLEX_COUNTER_TABLE"] = {"ACL": {"FLEX_COUNTER_STATUS": "disable", "POLL_INTERVAL": "10000"}}
    if kind == "t1":
        data = _t1(data)
    elif kind == "empty":
        meta = data["DEVICE_METADATA"]["localhost"]
        data = {"DEVICE_METADATA": {"localhost": dict(meta, hostname="sonic", type="LeafRouter")}}
    else:
        raise FactoryError("preset %s of %s/default_sku is not modelled (t1, empty)" % (kind, platform_dir))
    # config reload: init_cfg.json first, config_db.json's tables on top (sonic-cfggen -j init_cfg -j config_db).
    config = init_cfg()
    for table, rows in data.items():
        for key, row in rows.items():
            config.setdefault(table, {}).setdefault(key, {}).update(row)
    return config
