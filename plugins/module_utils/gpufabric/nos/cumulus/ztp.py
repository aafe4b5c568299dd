"""Cumulus Linux ZTP: per switch a provisioning script and the startup.yaml it applies.

Behaviour followed: the Cumulus Linux 5.x user guide, "Zero Touch Provisioning - ZTP". Over DHCP, the switch's
ZTP reads the URL of a script from DHCP option 239 (cumulus-provision-url), fetches it and runs it once; it runs
only a script that holds the marker CUMULUS-AUTOPROVISIONING, and a script that exits non-zero is a failed ZTP.
Option 239 is handed out per cabling position (ztp/kea.py), so each switch fetches the script of the switch planned
at its position, and that script fetches the same switch's startup.yaml. The script merges it into the switch's
configuration as the deploy role would (deploy.py): the startup.yaml replaces what the switch runs (`nv config
replace`), except what the switch has under the kept paths and the file does not set (the default accounts of a new
switch, its API and NVUE's own settings: DEFAULT_KEEP); applies it answering NVUE's prompt (`nv config apply -y`) and
saves it (`nv config save`). So a switch provisioned by ZTP runs what a deploy would leave, and the first deploy after
it changes nothing; a `nv config patch` would leave the factory configuration's rest beside it (eth0 asking DHCP beside
its planned address, the hostname's neighbours of the factory file), which the deploy would then take away.
"""
import shlex

from .deploy import DEFAULT_KEEP
from .render import FILE, render_switches

# Run on the switch by the script (python3 and PyYAML are NVUE's own), after the deploy's own merge and kept paths
# (_program): the startup.yaml's `set` documents merged, plus what `nv config show -o json` has under each kept path
# the file does not set, written as one NVUE document (JSON is YAML) for `nv config replace`.
_MAIN = """import json, sys, yaml
keep = %s
def sets(docs):
    config = {}
    for doc in docs if isinstance(docs, list) else [docs]:
        if isinstance(doc, dict) and isinstance(doc.get("set"), dict):
            config = merge(config, doc["set"])
    return config
with open(sys.argv[1]) as f:
    docs = yaml.safe_load(f) or []
with open(sys.argv[2]) as f:
    running = sets(json.load(f))
target = with_kept(sets(docs), running, keep)
header = next((d["header"] for d in docs if isinstance(d, dict) and "header" in d), {})
with open(sys.argv[3], "w") as f:
    json.dump([{"header": header}, {"set": target}], f)
"""


def _program():
    """The merge the script runs on the switch: the deploy's own functions (nvue_client.merge, deploy.with_kept), as
    their source, so that ZTP and a deploy merge one way, and _MAIN over them."""
    import inspect

    from . import deploy, nvue_client

    return "".join(inspect.getsource(f) + "\n\n" for f in (nvue_client.merge, deploy._get, deploy.with_kept)) \
        + _MAIN % (list(DEFAULT_KEEP),)


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
        "running=$(mktemp /tmp/gpufabric-running.XXXXXX.json)",
        "target=$(mktemp /tmp/gpufabric-target.XXXXXX.yaml)",
        "trap 'rm -f \"$startup\" \"$running\" \"$target\"' EXIT",
        "curl --fail --silent --show-error --retry 5 --retry-delay 5 -o \"$startup\" %s" % shlex.quote(url),
        # The file names the switch it is for: a script and a file of two different positions never mix.
        "grep -q \"hostname: \\\"\\?${expected}\\\"\\?$\" \"$startup\" || { echo \"$startup is not ${expected}'s\" >&2; exit 1; }",
        "nv config show -o json > \"$running\"",
        "python3 - \"$startup\" \"$running\" \"$target\" <<'GPUFABRIC_MERGE'",
        _program() + "GPUFABRIC_MERGE",
        "nv config replace \"$target\"",
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
