"""The provisioning tree of one cluster, build/<cluster>/ztp/:

    kea-dhcp4.conf                 Kea's configuration (installed as /etc/kea/kea-dhcp4.conf)
    positions.csv                  every management port by position: what Kea hands out where
    www/ztp/<switch>/ztp.json      SONiC ZTP (DHCP option 67), with config_db.json, frr.conf, frr.sh
    www/idrac/<server>.json        iDRAC server configuration profile (DHCP option 43)

www/ is what the provisioning host's HTTP server serves at its root; operators add images/ there.
"""
import csv
import io
import json

from ..build import structured, write_tree
from ..ipam import fmt
from ..render.sonic import render_device
from ..render.sonic_config_db import config_db
from .idrac import autoconfig_option, profile_path, server_profile
from .kea import boot_options, kea_config
from .positions import Position, access_ports, aliases_from_config_db, management_positions
from .sonic_ztp import frr_script, ztp_json, ztp_json_problems

SUBDIR = "ztp"


def _json(doc):
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def _positions_csv(positions):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(Position._fields)
    writer.writerows(positions)
    return out.getvalue()


def switch_files(plan, settings):
    """{path under www/: text} of every switch, and {host: config_db tables} for validation."""
    files, tables = {}, {}
    for host, cfg in structured(plan).items():
        tables[host] = config_db(cfg)
        rendered = render_device(cfg)
        mode = tables[host]["DEVICE_METADATA"]["localhost"].get("docker_routing_config_mode")
        doc = ztp_json(host, mode, settings)
        problems = ztp_json_problems(doc)
        if problems:  # a bug here, not bad input: the generator and the format check disagree
            raise AssertionError("%s ztp.json: %s" % (host, "; ".join(problems)))
        base = "www/ztp/%s/" % host
        files[base + "ztp.json"] = _json(doc)
        files[base + "config_db.json"] = rendered["config_db.json"]
        if "03-provisioning-script" in doc["ztp"]:
            files[base + "frr.conf"] = rendered["frr.conf"]
            files[base + "frr.sh"] = frr_script(host, settings)
    return files, tables


def ztp_files(plan, settings):
    """{path relative to build/<cluster>/ztp/: text}: the whole provisioning tree, sorted."""
    files, tables = switch_files(plan, settings)
    aliases = aliases_from_config_db(tables)
    positions = management_positions(plan, aliases)
    boots = {}
    for pos in positions:
        option43 = autoconfig_option(pos.device, settings) if pos.kind == "bmc" else None
        boots[pos.circuit_id] = boot_options(pos, settings, "ztp/%s/ztp.json" % pos.device, option43)
        if pos.kind == "bmc":
            files["www/" + profile_path(pos.device)] = _json(server_profile(pos.model, settings))
    kea = kea_config(access_ports(plan, aliases), positions, boots, settings, plan.spec["oob"]["pool"], fmt(plan.mgmt_gateway))
    files["kea-dhcp4.conf"] = _json(kea)
    files["positions.csv"] = _positions_csv(positions)
    return dict(sorted(files.items())), tables


def write_ztp(plan, settings, build_root, check=False):
    """Write build_root/<cluster>/ztp/ atomically; returns (changed paths, {host: config_db tables})."""
    files, tables = ztp_files(plan, settings)
    target = "%s/%s/%s" % (build_root, plan.summary["cluster"], SUBDIR)
    return write_tree(target, files, check=check), tables
