"""A SONiC switch's factory config_db, built the way the switch builds it from its platform files.

PORT comes from the HWSKU's port_config.ini (and hwsku.json's default breakout, when there is one),
DEVICE_METADATA names platform and HWSKU, and the buffer and QoS tables are what `config qos reload`
writes: the HWSKU's buffers.json.j2 and qos.json.j2 rendered with sonic-buildimage's build templates,
as sonic-cfggen renders them. Reads ../shared/sonic-reference; nothing of it is copied here.
"""
import json
import os
import re

import jinja2

# DEVICE_METADATA type per fabric role: the same map the renderer uses (one source).
from gpufabric.nos.sonic.config_db import DEVICE_TYPE


def _ports(hwsku_dir):
    lines = [ln.split() for ln in open(os.path.join(hwsku_dir, "port_config.ini")) if ln.strip()]
    header = [h for h in lines[0] if h != "#"]
    ports = {}
    for row in lines[1:]:
        if row[0].startswith("#"):
            continue
        fields = dict(zip(header, row))
        name = fields.pop("name")
        fields["admin_status"] = "down"
        fields.setdefault("mtu", "9100")
        ports[name] = fields
    return ports


def _sort_by_port_index(ports):
    # sonic-cfggen's filter: sorts the list in place by the port's number (its templates test the result).
    ports.sort(key=lambda p: int(re.sub(r"[^0-9]", "", p) or 0))
    return ports


def _as_config_db_holds_it(tables):
    """Two rewrites between a template's output and what GCU sees. db_migrator turns references written
    "[BUFFER_POOL|name]" into "name" (SONiC's QoS field-value reference migration). And some platform
    templates (S5296F) key rows by comma-joined port lists ("Ethernet0,Ethernet1|0"), which the YANG
    models reject: such rows are written one per port here, as newer templates do."""
    out = {}
    for table, rows in tables.items():
        out[table] = {}
        for key, fields in rows.items():
            fields = {f: re.sub(r"^\[[A-Z_]+\|(.*)\]$", r"\1", v) if isinstance(v, str) else v for f, v in fields.items()}
            head, sep, rest = key.partition("|")
            for port in head.split(",") if "," in head else [head]:
                out[table][port + sep + rest] = dict(fields)
    return out


def factory_config(reference_dir, platform, role):
    """The config_db a freshly installed switch of ``platform`` in ``role`` has before our deploy."""
    platform_dir = os.path.join(reference_dir, "platforms", platform)
    with open(os.path.join(platform_dir, "default_sku")) as f:
        hwsku = f.read().split()[0]
    hwsku_dir = os.path.join(platform_dir, hwsku)
    db = {"DEVICE_METADATA": {"localhost": {"hostname": "sonic", "hwsku": hwsku, "platform": platform,
                                            "mac": "52:54:00:12:34:56", "type": DEVICE_TYPE[role]}},
          "PORT": _ports(hwsku_dir)}
    env = jinja2.Environment(loader=jinja2.FileSystemLoader([hwsku_dir, os.path.join(reference_dir, "build_templates")]),
                             extensions=["jinja2.ext.do"])
    # The two helpers sonic-cfggen gives its templates.
    env.globals["template_exists"] = lambda name: name in env.list_templates()
    env.filters["sort_by_port_index"] = _sort_by_port_index
    for template in ("buffers.json.j2", "qos.json.j2"):
        try:
            text = env.get_template(template).render(**db)
        except jinja2.TemplateNotFound:  # S3248T's qos_config_t1.j2 is not in sonic-reference: no QoS tables
            continue
        db.update(_as_config_db_holds_it(json.loads(text)))
    return db
