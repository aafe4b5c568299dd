"""SONiC's commands on a twin switch, with SONiC's syntax, output and exit codes (sonic-utilities config/main.py,
show/main.py, sonic-cfggen, sonic-db-cli), over the switch's redis and its /etc/sonic.

    main(["config", "replace", "/tmp/config_db.json"], etc_sonic="/etc/sonic")  -> exit code

Like click, which SONiC's CLI is built on: a failed command prints its own line, then the usage, then
"Error: <reason>" on stderr and exits 2; an unanswered confirmation prints "Aborted!" and exits 1.
"""
import argparse
import collections
import json
import os
import sys

from . import gcu
from .configdb import DATABASES, MemoryConfigDb, RedisConfigDb
from ....netns_process import machine_process

USAGE = {"apply-patch": "PATCH_FILE_PATH", "replace": "TARGET_FILE_PATH", "rollback": "CHECKPOINT_NAME",
         "checkpoint": "CHECKPOINT_NAME", "delete-checkpoint": "CHECKPOINT_NAME", "list-checkpoints": "",
         "save": "[FILENAME]", "load": "[FILENAME]", "reload": "[FILENAME]"}


NOT_ROOT = "Root privileges are required for this operation"
# Set by the twin's command wrappers (plane.py) when a login user who is not root ran the command: its uid.
CALLER_UID = "GPUFABRIC_TWIN_CALLER_UID"


def caller_uid():
    """The uid SONiC would see run the command: the login user's, when the wrapper ran it as root for them."""
    return int(os.environ.get(CALLER_UID) or os.geteuid())


class Failed(Exception):
    """A command's failure: ``line`` first (red on a switch), then click's usage and Error."""

    def __init__(self, line, reason, code=2):
        super().__init__(reason)
        self.line, self.reason, self.code = line, reason, code


class Switch:
    """The switch a command runs on: its /etc/sonic and the redis database_config.json names."""

    def __init__(self, etc_sonic):
        self.etc = etc_sonic
        with open(os.path.join(etc_sonic, "database_config.json"), encoding="utf-8") as f:
            self.databases = json.load(f)
        self.socket = self.databases["INSTANCES"]["redis"]["unix_socket_path"]
        self.version = _yaml_pairs(os.path.join(etc_sonic, "sonic_version.yml"))
        with open(os.path.join(etc_sonic, "gpufabric-twin.json"), encoding="utf-8") as f:
            self.twin = json.load(f)

    def db(self, name="CONFIG_DB"):
        return RedisConfigDb(self.socket, name)

    def release(self):
        """The release branch in build_version ("SONiC.202511.0" -> "202511"), or the newest modelled."""
        return gcu.release_of(self.version.get("build_version")) or gcu.releases()[-1]

    def updater(self, out, dry_run=False):
        """GCU over this switch's CONFIG_DB; with ``dry_run`` over a copy of it (GCU's DryRunChangeApplier):
        every check runs, nothing is written."""
        from ..yang import load
        state = self.db("STATE_DB").get_config().get("PORT_TABLE", {})
        switch = gcu.Switch(self.release(), self.version.get("asic_type", "vs"),
                            str(self.version.get("build_version", "")), state_ports=state)
        db = MemoryConfigDb(self.db().get_config()) if dry_run else self.db()
        return gcu.Updater(db, switch, lambda: load(self.twin["yang_models"]), os.path.join(self.etc, "checkpoints"),
                           log=out)


def _yaml_pairs(path):
    pairs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, sep, value = line.partition(":")
            if sep:
                pairs[key.strip()] = value.strip().strip("'\"")
    return pairs


def sort_dict(data):
    """sonic-utilities' sort_dict: keys in order at every level, as `config save` writes config_db.json."""
    if isinstance(data, dict):
        return collections.OrderedDict((k, sort_dict(data[k])) for k in sorted(data))
    return data


def _dump(config):
    return json.dumps(sort_dict(config), indent=4)


def _write_config_file(path, config):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(_dump(config))
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Failed("Failed to %s" % what, "[Errno %d] %s: '%s'" % (e.errno, e.strerror, path)) from e
    except ValueError as e:
        raise Failed("Failed to %s" % what, str(e)) from e


def _confirm(prompt, out, err, answer):
    out.write("%s [y/N]: " % prompt)
    if (answer or "").strip().lower() not in ("y", "yes"):
        err.write("Aborted!\n")
        raise Failed(None, None, code=1)


def config(args, switch, out, err, stdin):
    parser = argparse.ArgumentParser(prog="config", add_help=False)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("apply-patch", "replace"):
        p = sub.add_parser(name, add_help=False)
        p.add_argument("path")
        p.add_argument("-f", "--format", default="CONFIGDB")
        for flag in (("-d", "--dry-run"), ("-v", "--verbose"), ("-n", "--ignore-non-yang-tables"), ("-p", "--parallel")):
            p.add_argument(*flag, action="store_true")
    for name in ("rollback", "checkpoint", "delete-checkpoint"):
        p = sub.add_parser(name, add_help=False)
        p.add_argument("name")
        p.add_argument("-d", "--dry-run", action="store_true")
        p.add_argument("-v", "--verbose", action="store_true")
    p = sub.add_parser("list-checkpoints", add_help=False)
    p.add_argument("-t", "--time", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true")
    for name in ("save", "load", "reload"):
        p = sub.add_parser(name, add_help=False)
        p.add_argument("filename", nargs="?")
        p.add_argument("-y", "--yes", action="store_true")
        p.add_argument("-f", "--force", action="store_true")
        p.add_argument("-n", "--no_service_restart", action="store_true")
    # click resolves the subcommand, then runs the group's callback, which refuses a user who is not root
    # (sonic-utilities 202511 config/main.py, `config`: sys.exit(...), exit code 1), then parses the subcommand.
    if args and args[0] in USAGE and caller_uid() != 0:
        err.write(NOT_ROOT + "\n")
        return 1
    opts = parser.parse_args(args)
    code = _config(opts, switch, out, err, stdin)
    if code == 0 and opts.command in WRITES_CONFIG_DB and not getattr(opts, "dry_run", False):
        code = orchagent(switch, err)
    return code


# The config commands that change CONFIG_DB, after which SONiC's orchagent programs the ASIC from it.
WRITES_CONFIG_DB = ("apply-patch", "replace", "rollback", "load", "reload")


def program_ports(config, run):
    """portsorch's part: each PORT row's admin_status and mtu onto the namespace's link of that name (the cable
    the twin made; a port with no cable has no link, and is left alone). A LAG member's MTU is its LAG's, so
    only links that belong to no master take the row's MTU. Returns the changes made."""
    links = {link["ifname"]: link for link in json.loads(run(["ip", "-j", "link", "show"]).stdout or "[]")}
    changes = []
    for name, row in sorted(config.get("PORT", {}).items()):
        link = links.get(name)
        if link is None:
            continue
        up = row.get("admin_status", "up") == "up"
        if up != ("UP" in link.get("flags", [])):
            run(["ip", "link", "set", "dev", name, "up" if up else "down"])
            changes.append("%s %s" % (name, "up" if up else "down"))
        mtu = row.get("mtu")
        if mtu and not link.get("master") and int(mtu) != link.get("mtu"):
            run(["ip", "link", "set", "dev", name, "mtu", str(int(mtu))])
            changes.append("%s mtu %s" % (name, mtu))
    return changes


def orchagent(switch, err):
    """What SONiC's orchagent does with a CONFIG_DB change, for the dataplane the twin has: PORT rows' admin
    state and MTU become the switch namespace's links' (``program_ports``), and the L3 ingress ACLs of
    ACL_TABLE/ACL_RULE its nftables port filters (acl.py), so a spare swap or a tenant change reaches
    the twin the way it reaches a switch, through config replace. Only on a switch of a running twin
    (gpufabric-twin.json "dataplane"); VRFs and the rest are not reprogrammed here (docs/twin.md). A CONFIG_DB
    the twin cannot enforce is an error (on SONiC, orchagent's log)."""
    if not switch.twin.get("dataplane"):
        return 0
    from ....twin import nftables
    from ....twin.run import CommandError, run
    from .acl import AclError, ruleset
    config = switch.db().get_config()
    try:
        program_ports(config, run)
    except (CommandError, OSError, ValueError) as e:
        err.write("orchagent: the PORT table in CONFIG_DB could not be programmed: %s\n" % e)
        return 1
    try:
        nftables.apply_local(ruleset(config))
    except (AclError, CommandError, OSError) as e:
        err.write("orchagent: the ACLs in CONFIG_DB could not be programmed: %s\n" % e)
        return 1
    if has_vrfs(switch, config.get("VRF")):
        return vrfmgr(switch, err, "vrfmgrd")
    return 0


# plane.reconcile in the machine's namespaces: its error as one line, the exit code 1.
RECONCILE = ("import sys; sys.path.insert(0, sys.argv[1]); from gpufabric.nos.sonic.twin import plane; "
             "from gpufabric.twin import TwinError\n"
             "try:\n    plane.reconcile(sys.argv[2], reload_frr=sys.argv[3] == 'reload')\n"
             "except (TwinError, OSError, ValueError) as e:\n    sys.exit('%s' % e)")


def has_vrfs(switch, vrf_table, frr_text=""):
    """Whether the switch has tenant VRFs in CONFIG_DB or its frr.conf, or VRF namespaces still on the twin (to go)."""
    host = switch.twin.get("host", "")
    try:
        left = any(name.startswith(host + "-Vrf") for name in os.listdir("/run/netns"))
    except OSError:
        left = False
    return bool(vrf_table) or left or any(line.startswith("router bgp ") and " vrf " in line
                                          for line in frr_text.splitlines())


def vrfmgr(switch, err, who, reload_frr=False):
    """SONiC's vrfmgrd and intfmgrd for the twin: the switch's VRFs and their ports from CONFIG_DB, and their BGP from
    its frr.conf, become namespaces joined to the switch's (twin/vrf.py, docs/twin.md), from the machine's namespaces
    (plane.reconcile). Returns the exit code."""
    import subprocess
    module_utils = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))
    pid = machine_process()
    if pid is None:
        err.write("%s: not run in a twin switch's namespace, where its tenant VRFs are programmed\n" % who)
        return 1
    proc = subprocess.run(["nsenter", "--target", str(pid), "--mount", "--net", "--", sys.executable, "-c", RECONCILE,
                           module_utils, switch.twin["host"], "reload" if reload_frr else "-"],
                          capture_output=True, text=True, check=False)
    if proc.returncode:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        err.write("%s: the tenant VRFs could not be programmed: %s\n" % (who, lines[-1] if lines else proc.returncode))
        return 1
    return 0


def _vrf_table(switch):
    """CONFIG_DB's VRF table, or none when redis does not answer (the bgp container's frr-reload does not need it)."""
    try:
        return switch.db().get_config().get("VRF")
    except Exception:  # noqa: BLE001 -- a redis that is down: FRR's own frr-reload still runs
        return None


FRR_RELOAD = "/usr/lib/frr/frr-reload.py"
FRR_CONF = "/etc/frr/frr.conf"


def frr_reload(args, switch, out, err):
    """/usr/lib/frr/frr-reload.py of the bgp container. On a switch without tenant VRFs it is FRR's own, run as it
    is. A leaf with tenant VRFs runs them in namespaces of their own on the twin (twin/vrf.py), so there `--reload
    /etc/frr/frr.conf` applies the file's translation to the leaf and its VRFs, with their namespaces made to match
    CONFIG_DB and the file (vrfmgr)."""
    files = [a for a in args if not a.startswith("-")]
    text = ""
    if files:
        try:
            with open(files[-1], encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            err.write("frr-reload.py: %s\n" % e)
            return 1
    if not has_vrfs(switch, None, text) and not has_vrfs(switch, _vrf_table(switch)):
        os.execv(FRR_RELOAD, [FRR_RELOAD] + list(args))
    if "--reload" not in args or files != [FRR_CONF]:
        err.write("frr-reload.py: a twin leaf with tenant VRFs reloads only with --reload %s (docs/twin.md)\n"
                  % FRR_CONF)
        return 2
    return vrfmgr(switch, err, "frr-reload.py", reload_frr=True)


def _config(opts, switch, out, err, stdin):
    verbose = getattr(opts, "verbose", False)
    log = (lambda line: out.write(line + "\n")) if verbose else None
    command = opts.command
    try:
        dry_run = command in ("apply-patch", "replace", "rollback") and opts.dry_run
        if dry_run:
            out.write("** DRY RUN EXECUTION **\n")
        if command == "apply-patch":
            patch = _read_json(opts.path, "apply patch")
            try:
                switch.updater(log, dry_run).apply_patch(patch)
            except (gcu.GcuError, ValueError) as e:
                err.write("Failed to apply patch due to: Failed to apply patch on the following scopes:\n"
                          "- localhost: %s\n" % e)
                raise Failed(None, "Failed to apply patch on the following scopes:\n- localhost: %s" % e) from e
            out.write("Patch applied successfully.\n")
        elif command == "replace":
            target = _read_json(opts.path, "replace config")
            try:
                switch.updater(log, dry_run).replace(target)
            except (gcu.GcuError, ValueError) as e:
                raise Failed("Failed to replace config", str(e)) from e
            out.write("Config replaced successfully.\n")
        elif command == "rollback":
            try:
                switch.updater(log, dry_run).rollback(opts.name)
            except (gcu.GcuError, ValueError) as e:
                raise Failed("Failed to rollback config", str(e)) from e
            out.write("Config rolled back successfully.\n")
        elif command == "checkpoint":
            switch.updater(log).checkpoint(opts.name)
            out.write("Checkpoint created successfully.\n")
        elif command == "delete-checkpoint":
            try:
                switch.updater(log).delete_checkpoint(opts.name)
            except ValueError as e:
                raise Failed("Failed to delete config checkpoint", str(e)) from e
            out.write("Checkpoint deleted successfully.\n")
        elif command == "list-checkpoints":
            out.write(json.dumps(switch.updater(log).list_checkpoints(opts.time), indent=4) + "\n")
        elif command == "save":
            if not opts.yes:
                _confirm("Existing files will be overwritten, continue?", out, err, stdin())
            path = opts.filename or os.path.join(switch.etc, "config_db.json")
            out.write("Running command: /usr/local/bin/sonic-cfggen -d --print-data > %s\n" % path)
            _write_config_file(path, switch.db().get_config())
        elif command in ("load", "reload"):
            path = opts.filename or os.path.join(switch.etc, "config_db.json")
            if not opts.yes:
                _confirm("Load config from the %s ?" % ("file(s) " + opts.filename if opts.filename else
                                                        "default config file(s)")
                         if command == "load" else "Clear current config and reload config in config_db format "
                         "from the default config file(s) ?", out, err, stdin())
            if not os.path.exists(path):
                out.write("The config_db file %s doesn't exist\n" % path)
                return 0
            config_db = _read_json(path, command + " config")
            db = switch.db()
            if command == "reload":
                out.write("Running command: /usr/local/bin/sonic-cfggen -j %s --write-to-db\n" % path)
                db.load(config_db)
            else:
                out.write("Running command: /usr/local/bin/sonic-cfggen -j %s --write-to-db\n" % path)
                _mod_config(db, config_db)
        return 0
    except Failed as e:
        if e.code == 2:
            if e.line:
                err.write(e.line + "\n")
            err.write('Usage: config %s [OPTIONS] %s\nTry "config %s -h" for help.\n\nError: %s\n'
                      % (command, USAGE[command], command, e.reason))
        return e.code


def _mod_config(db, config):
    """sonic-cfggen --write-to-db: ConfigDBConnector.mod_config, each row's fields merged into what is there."""
    current = db.get_config()
    for table, rows in config.items():
        for key, row in rows.items():
            merged = dict(current.get(table, {}).get(key, {}))
            merged.update(row or {})
            db.set_entry(table, key, merged)


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
    if args[:2] != ["runningconfiguration", "all"]:
        err.write("Error: the twin's show models only 'show runningconfiguration all'\n")
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
        _mod_config(switch.db(), data)
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


def main(argv, etc_sonic="/etc/sonic", out=None, err=None, stdin=None):
    """Run one command (argv[0] is its name: config, show, sonic-cfggen, sonic-db-cli, frr-reload.py); returns the
    exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    stdin = stdin or (lambda: sys.stdin.readline() if not sys.stdin.isatty() else input())
    name = os.path.basename(argv[0])
    try:
        switch = Switch(etc_sonic)
    except OSError as e:
        err.write("%s: this is not a SONiC twin switch (%s)\n" % (name, e))
        return 1
    try:
        if name == "config":
            return config(argv[1:], switch, out, err, stdin)
        if name == "show":
            return show(argv[1:], switch, out, err)
        if name == "sonic-cfggen":
            return sonic_cfggen(argv[1:], switch, out, err)
        if name == "sonic-db-cli":
            return sonic_db_cli(argv[1:], switch, out, err)
        if name == "frr-reload.py":
            return frr_reload(argv[1:], switch, out, err)
    except SystemExit as e:   # argparse's usage errors
        return e.code if isinstance(e.code, int) else 2
    except Exception as e:  # noqa: BLE001 -- a redis that is down, a file that cannot be written: one line
        err.write("%s: %s\n" % (name, e))
        return 1
    err.write("%s: not a SONiC command of the twin\n" % name)
    return 127
