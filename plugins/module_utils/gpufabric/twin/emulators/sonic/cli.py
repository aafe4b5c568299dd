"""SONiC's commands on a twin switch, with SONiC's syntax, output and exit codes (sonic-utilities config/main.py,
show/main.py, sonic-cfggen, sonic-db-cli), over the switch's redis and its /etc/sonic.

    main(["config", "replace", "/tmp/config_db.json"], etc_sonic="/etc/sonic")  -> exit code

Like click, which SONiC's CLI is built on: a failed command prints its own line, then the usage, then
"Error: <reason>" on stderr and exits 2; an unanswered confirmation prints "Aborted!" and exits 1.
"""
import argparse
import json
import os
import sys

from . import apply_patch, gcu, mgmt, portstate
from .configdb import MemoryConfigDb, RedisConfigDb, mod_config, sort_dict
from .orchagent import Portsorch, frr_reload, orchagent
from .show import show, sonic_cfggen, sonic_db_cli

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
        from .yang_check import load
        portstate.refresh(self)       # what portsorch has written for the ports by now (supported_speeds)
        state = self.db("STATE_DB").get_config().get("PORT_TABLE", {})
        switch = gcu.Switch(self.release(), self.version.get("asic_type", "vs"),
                            str(self.version.get("build_version", "")), state_ports=state)
        db = MemoryConfigDb(self.db().get_config()) if dry_run else self.db()
        if self.twin.get("dataplane") and not dry_run:
            from ....twin.run import run
            db = Portsorch(db, run)
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
        mgmt.publish(os.path.dirname(switch.socket), switch.db().get_config())    # eth0 follows MGMT_INTERFACE
        code = orchagent(switch, err)
        portstate.refresh(switch)
    return code


# The config commands that change CONFIG_DB, after which SONiC's orchagent programs the ASIC from it.
WRITES_CONFIG_DB = ("apply-patch", "replace", "rollback", "load", "reload")


def _apply_patch(updater, path, out, err):
    try:        # config/main.py's own steps before GCU (apply_patch.py)
        patch = apply_patch.prepare(_read_json(path, "apply patch"), updater.running(),
                                    updater.switch.rules["apply_patch_adds_missing_tables"])
    except apply_patch.InvalidPatch as e:
        err.write("Failed to apply patch due to: %s\n" % e)
        raise Failed(None, str(e)) from e
    try:
        updater.apply_patch(patch)
    except (gcu.GcuError, ValueError) as e:
        err.write("Failed to apply patch due to: Failed to apply patch on the following scopes:\n"
                  "- localhost: %s\n" % e)
        raise Failed(None, "Failed to apply patch on the following scopes:\n- localhost: %s" % e) from e
    out.write("Patch applied successfully.\n")


def _config(opts, switch, out, err, stdin):
    verbose = getattr(opts, "verbose", False)
    log = (lambda line: out.write(line + "\n")) if verbose else None
    command = opts.command
    try:
        dry_run = command in ("apply-patch", "replace", "rollback") and opts.dry_run
        if dry_run:
            out.write("** DRY RUN EXECUTION **\n")
        if command == "apply-patch":
            _apply_patch(switch.updater(log, dry_run), opts.path, out, err)
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
                mod_config(db, config_db)
        return 0
    except Failed as e:
        if e.code == 2:
            if e.line:
                err.write(e.line + "\n")
            err.write('Usage: config %s [OPTIONS] %s\nTry "config %s -h" for help.\n\nError: %s\n'
                      % (command, USAGE[command], command, e.reason))
        return e.code


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
