"""The provisioning tree of one cluster, build/<cluster>/ztp/:

    kea-dhcp4.conf                 Kea's configuration (installed as /etc/kea/kea-dhcp4.conf)
    positions.csv                  every management port by position: what Kea hands out where
    www/ztp/<switch>/...           the switch's NOS's ZTP files (its home's ztp_switch_files, e.g.
                                   a ztp.json for DHCP option 67 and the configuration files it names)
    www/idrac/<server>.json        iDRAC server configuration profile (DHCP option 43)
    www-bundle.json                the files under www/ as one JSON file, what the ztp_server role installs

www/ is what the provisioning host's HTTP server serves at its root; operators add images/ there.
"""
import csv
import io
import json

from ..build import structured
from ..build_tree import write_tree
from ..ipam import fmt
from ..nos_registry import home, nos_of
from .idrac import autoconfig_option, profile_path, server_profile
from .kea import boot_options, kea_config
from .positions import Position, access_ports, management_positions

SUBDIR = "ztp"
BUNDLE = "www-bundle.json"


def _json(doc):
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def _positions_csv(positions):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(Position._fields)
    writer.writerows(positions)
    return out.getvalue()


def switch_files(plan, settings):
    """{path under www/: text} of every switch, and {host: NOS-native config} for validation, each switch's
    from the home of its NOS."""
    by_nos = {}
    for host, cfg in structured(plan).items():
        by_nos.setdefault(nos_of(cfg), {})[host] = cfg
    files, native = {}, {}
    for name, cfgs in sorted(by_nos.items()):
        more_files, more_native = home(name).ztp_switch_files(cfgs, settings, plan.spec)
        files.update(more_files)
        native.update(more_native)
    return files, native


def port_aliases(plan, native):
    """{relay: {port: alias}}: the port names each OOB switch's relay writes into option 82."""
    cfgs = structured(plan)
    by_nos = {}
    for host, config in native.items():
        by_nos.setdefault(nos_of(cfgs[host]), {})[host] = config
    out = {}
    for name, configs in sorted(by_nos.items()):
        out.update(home(name).port_aliases(configs))
    return out


def ztp_files(plan, settings):
    """{path relative to build/<cluster>/ztp/: text}: the whole provisioning tree, sorted."""
    files, tables = switch_files(plan, settings)
    aliases = port_aliases(plan, tables)
    positions = management_positions(plan, aliases)
    cfgs = structured(plan)
    boots, defs = {}, {}
    for pos in positions:
        option43 = autoconfig_option(pos.device, settings) if pos.kind == "bmc" else None
        # A switch's boot option is its NOS's (the URL its ZTP reads, and the option that carries it).
        boot = home(nos_of(cfgs[pos.device])).ztp_boot_option(pos.device, settings) if pos.kind == "switch" else None
        boots[pos.circuit_id] = boot_options(pos, settings, boot, option43)
        if boot and boot.get("def"):
            defs[boot["def"]["code"]] = boot["def"]
        if pos.kind == "bmc":
            files["www/" + profile_path(pos.device)] = _json(server_profile(pos.model, settings))
    kea = kea_config(access_ports(plan, aliases), positions, boots, settings, plan.spec["oob"]["pool"], fmt(plan.mgmt_gateway),
                     option_defs=list(defs.values()))
    files["kea-dhcp4.conf"] = _json(kea)
    files["positions.csv"] = _positions_csv(positions)
    # The same www/ files as one file, which the ztp_server role installs with one copy (install.py).
    files[BUNDLE] = _json({path[len("www/"):]: text for path, text in files.items() if path.startswith("www/")})
    return dict(sorted(files.items())), tables


def write_ztp(plan, settings, build_root, check=False):
    """Write build_root/<cluster>/ztp/ atomically; returns (changed paths, {host: config_db tables})."""
    files, tables = ztp_files(plan, settings)
    target = "%s/%s/%s" % (build_root, plan.summary["cluster"], SUBDIR)
    return write_tree(target, files, check=check), tables
