"""The Arista EOS switches of the twin: each switch's eAPI (eapi.py behind http.py), served from one process per twin,
each committed configuration taking effect in the switch's network namespace (translate.py: links and FRR).

    /run/gpufabric-twin/<cluster>/eos-eapi/       ca.pem, ca.key (the twin's CA), password (0600), switches.json,
                                                  daemon.pid, daemon.log, ready
    /run/gpufabric-twin/<cluster>/<host>/eos/     startup-config (the switch's flash:startup-config, written at
                                                  ``write memory``), eapi.pem/.key (issued by the twin's CA), eapi.port
    /run/gpufabric-twin/<cluster>/<host>/netns-env.json  Cli's directory first on PATH for the netns connection
    /run/gpufabric-eos/bin/Cli                    EOS's CLI as a login's bash runs it, ``Cli -p 15 -c`` (cli_tool.py)

Each switch's eAPI listens on 127.0.0.1 at the port in its eapi.port (a switch listens on its management address at
443; the twin's controller is not on the OOB network). A switch boots from its startup-config: the rendered one
(twin.yml's default), or, when the twin boots its switches empty (``frr_config: blank``/``factory``), EOS's factory
configuration (cli.FACTORY_CONFIG). docs/twin.md, "The eAPI stand-in (Arista EOS switches)".
"""
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time

from ... import daemons, netns_env
from . import namespace

SELF_APPLYING = True
CONFIG_FILE = "startup-config"
PORT_PATTERN = "Ethernet*"
REQUIRES = ()
USER = "admin"
READY_TIMEOUT = 60.0
MGMT_PORT = "Management1"
TICK = 0.25
BIN_DIR = "/run/gpufabric-eos/bin"
STATE_ROOT = "/run/gpufabric-twin"


class PlaneError(RuntimeError):
    """The eAPI of the twin's EOS switches could not start (the message says why)."""


def api_dir(state_dir):
    return os.path.join(state_dir, "eos-eapi")


def switch_dir(state_dir, host):
    return os.path.join(state_dir, host, "eos")


def _write(path, text, mode=0o644):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def _module_utils():
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def _write_commands():
    os.makedirs(BIN_DIR, exist_ok=True)
    text = ("#!%s\n# EOS's Cli on an EOS switch of the twin (gpufabric twin/emulators/eos/cli_tool.py).\nimport sys\n"
            "sys.path.insert(0, %r)\nfrom gpufabric.twin.emulators.eos.cli_tool import main\nsys.exit(main(sys.argv[1:]))\n"
            % (sys.executable, _module_utils()))
    return daemons.write_if_changed(os.path.join(BIN_DIR, "Cli"), text, 0o755, owner=None)


kernel_port = namespace.kernel_port   # the twin's desired.py asks the plane for the namespace's port names


def with_model(release, model):
    """What the twin hands ``apply`` as a switch's release: the EOS release and the switch's model (show version)."""
    return "%s@%s" % (release, model)


def boot_facts(text):
    """(EOS release, {Management1: [address]}) of a rendered startup-config: the management port's address, which
    the twin gives the switch as DHCP would."""
    from .cli import CliError, Config
    from .show import EOS_VERSION
    from .translate import interfaces

    try:
        config = Config.parse(text)
    except CliError as exc:
        raise PlaneError("the rendered startup-config does not load: %s" % exc)
    mgmt = interfaces(config).get(MGMT_PORT) or {}
    return EOS_VERSION, ({MGMT_PORT: list(mgmt["addrs"])} if mgmt.get("addrs") else {})


def empty_frr_conf(host):
    """The frr.conf FRR starts with, before the switch boots: what an empty configuration translates to."""
    from .cli import Config
    from .translate import frr_conf
    return frr_conf(Config(), host)


def _pid(state_dir):
    try:
        with open(os.path.join(api_dir(state_dir), "daemon.pid")) as f:
            pid = int(f.read().strip())
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return pid if b"twin.emulators.eos.plane" in f.read() else None
    except (OSError, ValueError):
        return None


def _stop(state_dir):
    pid = _pid(state_dir)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
        except ChildProcessError:
            pass
        time.sleep(0.05)
    if os.path.exists("/proc/%d" % pid):
        os.kill(pid, signal.SIGKILL)
    return True


def apply(state_dir, switches, namespaced=True):
    """Serve the eAPI of ``switches`` ([(host, release@model, startup-config text or None)]): a switch's
    startup-config is written once, when it has none (None: it boots EOS's factory configuration). The serving
    process is started, or restarted when the set of switches changed. Returns changes."""
    if not switches:
        return []
    changes = []
    base = api_dir(state_dir)
    os.makedirs(base, exist_ok=True)
    if _write_commands():
        changes.append("Cli written to %s" % BIN_DIR)
    password = os.path.join(base, "password")
    if not os.path.exists(password):
        _write(password, secrets.token_urlsafe(18) + "\n", 0o600)
    for host, _release, startup in switches:
        os.makedirs(switch_dir(state_dir, host), exist_ok=True)
        # Commands reaching the switch through the netns connection find Cli first on PATH, as a login's bash does.
        if namespaced and netns_env.write(state_dir, host, path=[BIN_DIR]):
            changes.append("%s: Cli given to the netns connection" % host)
        path = os.path.join(switch_dir(state_dir, host), "startup-config")
        if startup is not None and not os.path.exists(path):
            _write(path, startup)
    wanted = json.dumps({"switches": [[host, release] for host, release, _s in sorted(switches)]}, indent=1) + "\n"
    listing = os.path.join(base, "switches.json")
    try:
        with open(listing, encoding="utf-8") as f:
            same = f.read() == wanted
    except OSError:
        same = False
    if same and _pid(state_dir) and os.path.exists(os.path.join(base, "ready")):
        return changes
    if _stop(state_dir):
        changes.append("eAPI stopped")
    _write(listing, wanted)
    ready = os.path.join(base, "ready")
    if os.path.exists(ready):
        os.remove(ready)
    env = dict(os.environ, PYTHONPATH=_module_utils())
    with open(os.path.join(base, "daemon.log"), "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "gpufabric.twin.emulators.eos.plane", "--state-dir", state_dir],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True)
    _write(os.path.join(base, "daemon.pid"), "%d\n" % proc.pid)
    deadline = time.monotonic() + READY_TIMEOUT
    while not os.path.exists(ready):
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                proc.kill()
            with open(os.path.join(base, "daemon.log"), encoding="utf-8", errors="replace") as f:
                tail = f.read().strip().splitlines()[-1:] or ["no output"]
            raise PlaneError("the eAPI of the EOS switches did not start within %.0f s: %s" % (READY_TIMEOUT, tail[0]))
        time.sleep(0.1)
    changes.append("eAPI serving %d EOS switches" % len(switches))
    return changes


def remove(state_dir, names):
    """Stop the twin's eAPI process (its files go with the twin's state directory); ``Cli`` goes with the last twin."""
    changes = ["eAPI stopped"] if _stop(state_dir) else []
    # Cli is the machine's, for every twin's EOS switches: it goes when no other twin of the machine has any.
    others = [d for d in (os.listdir(STATE_ROOT) if os.path.isdir(STATE_ROOT) else ())
              if os.path.realpath(os.path.join(STATE_ROOT, d)) != os.path.realpath(state_dir)
              and os.path.isdir(os.path.join(STATE_ROOT, d, "eos-eapi"))]
    if not others and os.path.isdir(BIN_DIR):
        import shutil
        shutil.rmtree(os.path.dirname(BIN_DIR), ignore_errors=True)
        changes.append("removed %s" % os.path.dirname(BIN_DIR))
    return changes


def forget(state_dir, hosts):
    """Switches that left the twin: ``apply`` serves exactly the switches it is given; their connection environment
    goes."""
    for host in hosts:
        netns_env.remove(state_dir, host)
    return []


def leftovers(names):
    """What of the EOS plane outlives every twin (its process shows in the twin's own list): ``Cli``'s directory."""
    twins = [d for d in (os.listdir(STATE_ROOT) if os.path.isdir(STATE_ROOT) else ())
             if os.path.isdir(os.path.join(STATE_ROOT, d, "eos-eapi"))]
    return [os.path.dirname(BIN_DIR)] if os.path.isdir(BIN_DIR) and not twins else []


# --- the serving process ------------------------------------------------------------------------------------------

def _save_startup(state_dir):
    def save(switch):
        path = os.path.join(switch_dir(state_dir, switch.host), "startup-config")
        if getattr(switch, "_saved", None) is not switch.startup:
            _write(path, switch.startup.text())
            switch._saved = switch.startup
    return save


def serve(state_dir):
    from .eapi import EosSwitch, mac_of, serial_of
    from .http import EapiServer, issue, make_ca

    base = api_dir(state_dir)
    with open(os.path.join(base, "switches.json"), encoding="utf-8") as f:
        listing = json.load(f)["switches"]
    with open(os.path.join(base, "password"), encoding="utf-8") as f:
        password = f.read().strip()
    make_ca(base)
    switches = []
    cluster = os.path.basename(os.path.normpath(state_dir))    # /run/gpufabric-twin/<cluster>
    for host, release in listing:
        model = (release or "").partition("@")[2] or "7060X6-64PE"
        path = os.path.join(switch_dir(state_dir, host), "startup-config")
        text = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                text = f.read()
        switch = EosSwitch(host, model, serial_of(host), mac_of(host), startup_text=text,
                           applier=namespace.Applier(host, cluster), oper=namespace.LiveOper(state_dir, host))
        switch._saved = switch.startup
        switches.append(switch)

    def boot(switch):
        try:
            switch.boot()
        except ValueError as exc:
            return "%s: the startup-config does not apply: %s" % (switch.host, exc)
        return None

    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=4) as pool:
        failed = [problem for problem in pool.map(boot, switches) if problem]
    if failed:
        raise SystemExit(failed[0])
    for switch in switches:
        switch.oper.name_ports()
    servers = []
    save = _save_startup(state_dir)
    for switch in switches:
        directory = switch_dir(state_dir, switch.host)
        cert, key = issue(base, directory, switch.host)
        server = EapiServer(switch, cert, key, USER, password).start()
        _write(os.path.join(directory, "eapi.port"), "%d\n" % server.port)
        servers.append(server)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_a: stop.set())
    _write(os.path.join(base, "ready"), "%d\n" % os.getpid())
    # Commit timers run out without a request; write memory lands in the switch's startup-config file.
    while not stop.wait(TICK):
        for switch in switches:
            switch.tick()
            save(switch)
    for server in servers:
        server.stop()


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description="the eAPI of the twin's EOS switches")
    parser.add_argument("--state-dir", required=True)
    args = parser.parse_args(argv)
    serve(args.state_dir)


if __name__ == "__main__":
    main()
