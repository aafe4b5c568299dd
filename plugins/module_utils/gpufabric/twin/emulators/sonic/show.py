"""SONiC's reading commands on a twin switch: `show runningconfiguration all` (CONFIG_DB and FRR's running config as
"bgpraw"), `show version` and `show interfaces status` (show_status.py), `sonic-cfggen` (-d, -j, -v, --print-data,
--write-to-db) and `sonic-db-cli`, after sonic-utilities."""
import argparse
import json
import os

from . import portstate, show_status
from .configdb import DATABASES, mod_config, sort_dict


# sonic-utilities 202511 show/main.py `show runningconfiguration all`, single-ASIC: CONFIG_DB as `sonic-cfggen -d
# --print-data` prints it, then "bgpraw", FRR's running config from `sudo rvtysh -c 'show running-config'`
# (utilities_common/bgp_util.run_bgp_command; rvtysh is vtysh on a single-ASIC switch).
BGPRAW_COMMAND = "show running-config"
VTYSH = "vtysh"
FRR_RUN = "/run/frr"


def _bgpraw_argv(switch):
    """vtysh of the switch's own FRR: through the netns connection /run/frr is the switch's pathspace already; from a
    plain `ip netns exec` (validation's transport) it is reached with -N. Not root: through sudo, as SONiC runs it."""
    host = switch.twin.get("host")
    argv = [VTYSH] + (["-N", host] if host and os.path.isdir(os.path.join(FRR_RUN, host)) else [])
    return (["sudo"] if os.geteuid() != 0 else []) + argv + ["-c", BGPRAW_COMMAND]


def bgpraw(switch, out, err):
    """What run_bgp_command gives: vtysh's output; when it fails, that output echoed and ""; when it cannot start,
    None (the exception is swallowed with exit_on_fail=False)."""
    import subprocess
    try:
        proc = subprocess.run(_bgpraw_argv(switch), capture_output=True, text=True, check=False)
    except OSError:
        return None
    err.write(proc.stderr)
    if proc.returncode:
        out.write(proc.stdout.rstrip("\n") + "\n")
        return ""
    return proc.stdout


def show(args, switch, out, err):
    if args[:1] == ["version"]:
        portstate.refresh(switch)
        metadata = switch.db().get_config().get("DEVICE_METADATA", {}).get("localhost", {})
        chassis = switch.db("STATE_DB").get_config().get("CHASSIS_INFO", {}).get("chassis 1", {})
        out.write(show_status.version(switch.version, metadata, switch.twin, chassis,
                                      brief="--brief" in args or "-b" in args))
        return 0
    if args[:2] == ["interfaces", "status"]:
        portstate.refresh(switch)
        out.write(show_status.interfaces_status(switch.db().get_config(), switch.db("APPL_DB").get_config(),
                                                switch.db("STATE_DB").get_config()))
        return 0
    if args[:2] != ["runningconfiguration", "all"]:
        err.write("Error: the twin's show models 'show runningconfiguration all', 'show version' and "
                  "'show interfaces status'\n")
        return 2
    running = sort_dict(switch.db().get_config())
    running["bgpraw"] = bgpraw(switch, out, err)
    out.write(json.dumps(running, indent=4) + "\n")
    return 0


def sonic_cfggen(args, switch, out, err):
    parser = argparse.ArgumentParser(prog="sonic-cfggen", add_help=False)
    parser.add_argument("-d", "--from-db", action="store_true")
    parser.add_argument("-j", "--json", action="append", default=[])
    parser.add_argument("-v", "--var")
    parser.add_argument("--print-data", action="store_true")
    parser.add_argument("--write-to-db", action="store_true")
    opts = parser.parse_args(args)
    data = {}
    if opts.from_db:
        data.update(switch.db().get_config())
    for path in opts.json:
        with open(path, encoding="utf-8") as f:
            data.update(json.load(f))
    if opts.write_to_db:
        mod_config(switch.db(), data)
    if opts.var:
        value = data
        for part in opts.var.split("."):
            value = value.get(part, "") if isinstance(value, dict) else ""
        out.write("%s\n" % value)
    if opts.print_data:
        out.write(json.dumps(sort_dict(data), indent=4) + "\n")
    return 0


def sonic_db_cli(args, switch, out, err):
    if not args or args[0] not in DATABASES:
        err.write("Usage: sonic-db-cli [OPTIONS] DB_NAME [CMD [ARG ...]]\nError: database %s is not in "
                  "database_config.json\n" % (args[0] if args else "(none)"))
        return 1
    import redis
    if args[0] in ("APPL_DB", "STATE_DB"):
        portstate.refresh(switch)      # what portsyncd and portsorch would have written by now
    client = redis.Redis(unix_socket_path=switch.socket, db=DATABASES[args[0]], decode_responses=True)
    if len(args) == 1:
        err.write("sonic-db-cli %s: give a redis command\n" % args[0])
        return 1
    try:
        result = client.execute_command(*args[1:])
    except redis.ResponseError as e:
        err.write("%s\n" % e)
        return 1
    if isinstance(result, dict):
        out.write("%s\n" % result)
    elif isinstance(result, (list, tuple, set)):
        out.write("".join("%s\n" % item for item in result))
    elif result is True:
        out.write("True\n")
    elif result is not None:
        out.write("%s\n" % result)
    return 0
