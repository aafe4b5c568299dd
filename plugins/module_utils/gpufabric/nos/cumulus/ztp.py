"""Cumulus Linux ZTP: per switch a provisioning script and the startup.yaml it applies.

Behaviour followed: the Cumulus Linux 5.x user guide, "Zero Touch Provisioning - ZTP". Over DHCP, the switch's
ZTP reads the URL of a script from DHCP option 239 (cumulus-provision-url), fetches it and runs it once; it runs
only a script that holds the marker CUMULUS-AUTOPROVISIONING, and a script that exits non-zero is a failed ZTP.
Option 239 is handed out per cabling position (ztp/kea.py), so each switch fetches the script of the switch planned
at its position, and that script fetches the same switch's startup.yaml. The script merges it into the switch's
configuration with `nv config patch` (the default accounts of a new switch stay, as the deploy role keeps
system.aaa), applies it answering NVUE's prompt (`nv config apply -y`) and saves it (`nv config save`).
"""
import shlex

from .render import FILE, render_switches

SCRIPT = "cumulus-ztp.sh"
MARKER = "CUMULUS-AUTOPROVISIONING"
# DHCP option 239 has no standard name: Kea needs its definition (a string) to send it by name.
PROVISION_OPTION = "cumulus-provision-url"
PROVISION_OPTION_DEF = {"name": PROVISION_OPTION, "code": 239, "type": "string", "space": "dhcp4"}


def script(host, settings):
    """The provisioning script of one switch (bash, as ZTP runs it)."""
    url = settings.url("ztp/%s/startup.yaml" % host)
    return "\n".join([
        "#!/bin/bash",
        "# %s" % MARKER,
        "# %s: rendered by gpucluster.fabric. Fetches this switch's NVUE startup.yaml and applies it." % host,
        "set -euo pipefail",
        "expected=%s" % shlex.quote(host),
        "startup=$(mktemp /tmp/gpufabric-startup.XXXXXX.yaml)",
        "trap 'rm -f \"$startup\"' EXIT",
        "curl --fail --silent --show-error --retry 5 --retry-delay 5 -o \"$startup\" %s" % shlex.quote(url),
        # The file names the switch it is for: a script and a file of two different positions never mix.
        "grep -q \"hostname: \\\"\\?${expected}\\\"\\?$\" \"$startup\" || { echo \"$startup is not ${expected}'s\" >&2; exit 1; }",
        "nv config patch \"$startup\"",
        "nv config apply -y",
        "nv config save",
        "exit 0",
        ""])


def switch_files(cfgs, settings, spec=None):
    """{path under www/: text} of every switch ({host: structured config}), and {host: startup.yaml text}. The
    startup.yaml is the build's, rendered and checked against NVIDIA's NVUE model the same way."""
    rendered = render_switches(cfgs, spec or {})
    files, native = {}, {}
    for host in cfgs:
        native[host] = rendered[host][FILE]
        base = "www/ztp/%s/" % host
        files[base + FILE] = native[host]
        files[base + SCRIPT] = script(host, settings)
    return files, native


def boot_option(host, settings):
    """What DHCP hands this switch's position: option 239 with its script's URL (and the option's definition)."""
    return {"name": PROVISION_OPTION, "data": settings.url("ztp/%s/%s" % (host, SCRIPT)), "def": PROVISION_OPTION_DEF}


def port_aliases(native_by_host):
    """A Cumulus switch names its ports swpN in option 82 as the plan does: no aliases."""
    return {}


def config_problems(native_by_host, models_dir):
    """Nothing beyond the build's gate: every startup.yaml is checked against NVIDIA's NVUE model when rendered."""
    return []
