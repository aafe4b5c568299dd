"""One call for the ztp action: settings from its arguments, the tree written, the checks run."""
import os
import shutil
import subprocess

from .positions import access_ports, management_positions
from .report import findings
from .settings import ZtpSettings
from ..build_tree import write_tree
from ..nos_registry import home, nos_of
from .tree import SUBDIR, port_aliases, structured, ztp_files

SETTING_KEYS = ("nos_images", "onie_image", "lease_seconds", "kea_interfaces", "kea_lease_file", "kea_log_file",
                "pxe_interface", "bios_attributes")
SHOWN = 10


def settings_from(plan, args):
    return ZtpSettings(plan.spec["oob"]["provisioning_host"],
                       **{k: args[k] for k in SETTING_KEYS if args.get(k) is not None})


def config_problems(plan, native, models_dir):
    """The schema check of every switch config ZTP hands out, by the home of the switch's NOS (e.g. YANG
    models); the one place provisioning calls it. [] without a models directory."""
    if not models_dir:
        return []
    cfgs = structured(plan)
    by_nos = {}
    for host, config in native.items():
        by_nos.setdefault(nos_of(cfgs[host]), {})[host] = config
    problems = []
    for name, configs in sorted(by_nos.items()):
        problems.extend(home(name).ztp_config_problems(configs, models_dir))
    return problems


def kea_check(path):
    """(ran, problem): `kea-dhcp4 -t` on the written configuration when Kea is installed here."""
    if shutil.which("kea-dhcp4") is None:
        return False, None
    proc = subprocess.run(["kea-dhcp4", "-t", path], capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        return True, None
    lines = [line for line in (proc.stderr + proc.stdout).splitlines() if "ERROR" in line or "failed" in line]
    return True, (lines or (proc.stderr + proc.stdout).splitlines() or ["exit %d" % proc.returncode])[-1]


def provision(plan, build_dir, args, check=False):
    """Write build_dir/<cluster>/ztp/ and check it; a result dict for the action (``failed`` + ``msg``
    on a problem, nothing written then)."""
    settings = settings_from(plan, args)
    root = os.path.join(build_dir, plan.summary["cluster"], SUBDIR)
    files, tables = ztp_files(plan, settings)
    problems = config_problems(plan, tables, args.get("yang_models"))
    if problems:
        return {"failed": True, "msg": "switch config not valid for its NOS's models, ZTP would hand it out: %s" % "; ".join(
            problems[:SHOWN]), "yang_problems": problems}
    changed = write_tree(root, files, check=check)
    result = {"changed": bool(changed), "ztp_root": root, "provisioning_host": settings.server, "changed_count": len(changed),
              "changed_paths": changed[:50], "kea_config": os.path.join(root, "kea-dhcp4.conf"),
              "yang_checked": bool(args.get("yang_models"))}
    aliases = port_aliases(plan, tables)
    positions = management_positions(plan, aliases)
    result["positions"] = len(positions)
    if not check or not changed:
        ran, problem = kea_check(result["kea_config"])
        result["kea_checked"] = ran
        if problem:
            return dict(result, failed=True, msg="kea-dhcp4 -t rejects %s: %s" % (result["kea_config"], problem))
    if args.get("kea_log"):
        with open(args["kea_log"], encoding="utf-8", errors="replace") as f:
            result["findings"] = findings(f, positions, access_ports(plan, aliases))
    return result
