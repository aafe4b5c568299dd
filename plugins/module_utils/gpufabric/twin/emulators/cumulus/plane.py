"""The Cumulus switches of the twin: the NVUE API of each, served from one process per twin, each switch's
applied revision taking effect in its network namespace (switch.py), and ``nv`` inside the namespace.

    /run/gpufabric-twin/<cluster>/nvue-api/          password (0600), switches.json, daemon.pid, daemon.log, ready
    /run/gpufabric-twin/<cluster>/<host>/nvue/       startup.yaml (the switch's /etc/nvue.d/startup.yaml),
                                                     nvue-api.pem/.key (its self-signed certificate), api.port,
                                                     applied.json (what ``nv`` shows)
    /run/gpufabric-twin/<cluster>/<host>/netns-env.json  nv's directory first on PATH for the netns connection
    /run/gpufabric-cumulus/bin/nv                    NVUE's CLI for ``nv show`` / ``nv config show`` (nv_cli.py)

Each switch's API listens on 127.0.0.1 at the port in its api.port (a switch listens on its management
address at 8765; the twin's controller is not on the OOB network, and the namespaces share no port
numbers with it). One process serves every switch of the twin, so NVIDIA's object model is loaded
once; each switch keeps its own revisions, users, certificate and startup file.
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
from . import factory

# The twin's desired state (twin/desired.py) asks these: a Cumulus switch applies its own configuration.
SELF_APPLYING = True
CONFIG_FILE = "startup.yaml"
PORT_PATTERN = "swp*"      # lldpd -I: Cumulus' front-panel ports
BIN_DIR = "/run/gpufabric-cumulus/bin"
# Nothing beyond what every twin needs (the NVUE API is this collection's Python).
REQUIRES = ()
USER = "cumulus"
READY_TIMEOUT = 60.0


class PlaneError(Exception):
    """The NVUE API of the twin's Cumulus switches could not start (the message says why)."""


def api_dir(state_dir):
    return os.path.join(state_dir, "nvue-api")


def switch_dir(state_dir, host):
    return os.path.join(state_dir, host, "nvue")


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
    text = ("#!%s\n# NVUE's nv on a Cumulus switch of the twin (gpufabric twin/emulators/cumulus/nv_cli.py).\nimport sys\n"
            "sys.path.insert(0, %r)\nfrom gpufabric.twin.emulators.cumulus.nv_cli import main\nsys.exit(main(sys.argv[1:]))\n"
            % (sys.executable, _module_utils()))
    return daemons.write_if_changed(os.path.join(BIN_DIR, "nv"), text, 0o755, owner=None)


def empty_frr_conf(host):
    """The frr.conf FRR starts with on a Cumulus switch of the twin: NVUE's rendering of the factory configuration
    (no routing; FRR's hostname the switch's namespace name, switch.py), which a switch booting it then finds in place
    (no frr-reload at boot)."""
    from .frr import frr_conf
    return frr_conf(factory.factory_config(), host)


def boot_facts(text):
    """(release, {management port: [address]}) of a rendered startup.yaml: the release its header names, and
    the management port's address, which the twin gives the switch as DHCP/ZTP would."""
    from .nvue_checks import startup_documents

    release, mgmt = None, {}
    for doc in startup_documents(text) or []:
        version = (doc.get("header") or {}).get("version") if isinstance(doc, dict) else None
        if version:
            release = ".".join(version.split()[-1].split(".")[:2])
        for name, conf in ((doc.get("set") or {}).get("interface") or {}).items() if isinstance(doc, dict) else ():
            if conf.get("type") == "eth":
                mgmt[name] = sorted((conf.get("ip") or {}).get("address") or {})
    return release, mgmt


def _pid(state_dir):
    try:
        with open(os.path.join(api_dir(state_dir), "daemon.pid")) as f:
            pid = int(f.read().strip())
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return pid if b"twin.emulators.cumulus.plane" in f.read() else None
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


def apply(state_dir, switches):
    """Serve the NVUE API of ``switches`` ([(host, release, startup text or None)]): a switch's startup.yaml
    is written once, when it has none (its boot configuration; None boots the factory configuration, factory.py).
    The serving process is started, or restarted when the set of switches changed. Returns changes."""
    if not switches:
        return []
    changes = []
    base = api_dir(state_dir)
    os.makedirs(base, exist_ok=True)
    if _write_commands():
        changes.append("nv written to %s" % BIN_DIR)
    password = os.path.join(base, "password")
    if not os.path.exists(password):
        _write(password, secrets.token_urlsafe(18) + "\n", 0o600)
    for host, _release, startup in switches:
        os.makedirs(switch_dir(state_dir, host), exist_ok=True)
        # Commands reaching the switch through the netns connection find nv first on PATH, as on the switch.
        if netns_env.write(state_dir, host, path=[BIN_DIR]):
            changes.append("%s: nv given to the netns connection" % host)
        path = os.path.join(switch_dir(state_dir, host), "startup.yaml")
        if not os.path.exists(path):
            # No startup configuration delivered (ZTP, the build): the switch boots its factory one, as a new switch.
            _write(path, startup if startup is not None else factory.factory_startup(_release or factory.RELEASE))
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
        changes.append("NVUE API stopped")
    _write(listing, wanted)
    ready = os.path.join(base, "ready")
    if os.path.exists(ready):
        os.remove(ready)
    env = dict(os.environ, PYTHONPATH=_module_utils())
    with open(os.path.join(base, "daemon.log"), "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "gpufabric.twin.emulators.cumulus.plane", "--state-dir", state_dir],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True)
    _write(os.path.join(base, "daemon.pid"), "%d\n" % proc.pid)
    deadline = time.monotonic() + READY_TIMEOUT
    while not os.path.exists(ready):
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                proc.kill()
            with open(os.path.join(base, "daemon.log"), encoding="utf-8", errors="replace") as f:
                tail = f.read().strip().splitlines()[-1:] or ["no output"]
            raise PlaneError("the NVUE API of the Cumulus switches did not start within %.0f s: %s"
                             % (READY_TIMEOUT, tail[0]))
        time.sleep(0.1)
    changes.append("NVUE API serving %d Cumulus switches" % len(switches))
    return changes


def remove(state_dir, names):
    """Stop the twin's NVUE API (its files go with the twin's state directory); ``nv`` goes with the last twin."""
    changes = ["NVUE API stopped"] if _stop(state_dir) else []
    root = os.path.dirname(state_dir)
    others = [d for d in (os.listdir(root) if os.path.isdir(root) else ())
              if os.path.join(root, d) != state_dir and os.path.isdir(os.path.join(root, d, "nvue-api"))]
    if not others and os.path.isdir(BIN_DIR):
        import shutil
        shutil.rmtree(os.path.dirname(BIN_DIR), ignore_errors=True)
        changes.append("removed %s" % os.path.dirname(BIN_DIR))
    return changes


def forget(state_dir, hosts):
    """Switches that left the twin: ``apply`` serves exactly the switches it is given (the serving process restarts
    when that set changes); their connection environment goes."""
    for host in hosts:
        netns_env.remove(state_dir, host)
    return []


def leftovers(names):
    """What of the Cumulus plane outlives every twin (the running process shows in the twin's own list)."""
    root = "/run/gpufabric-twin"
    twins = [d for d in (os.listdir(root) if os.path.isdir(root) else ()) if os.path.isdir(os.path.join(root, d, "nvue-api"))]
    return [os.path.dirname(BIN_DIR)] if os.path.isdir(BIN_DIR) and not twins else []


# --- the serving process --------------------------------------------------------------------------------

def _switch(state_dir, host, release, password, validator):
    """(host, directory, applier, NvueSwitch) of one switch: its applies made real in its namespace (switch.py) and
    its management port (mgmt.py), which decides whether the controller still reaches its API."""
    from . import mgmt
    from .nvue_api import ApplyError, NvueSwitch
    from .switch import Applier, SwitchError

    directory = switch_dir(state_dir, host)
    apply_to_namespace = Applier(host, os.path.basename(os.path.normpath(state_dir)))
    applied_file = os.path.join(directory, "applied.json")
    boot = mgmt.boot_addresses(host, directory)

    def applier(config, previous):
        try:
            apply_to_namespace(config, previous)
        except SwitchError as exc:
            raise ApplyError(str(exc))
        mgmt.sync(host, config, boot)
        _write(applied_file, json.dumps(config, indent=1, sort_keys=True) + "\n")

    switch = NvueSwitch(host, {USER: password}, release=release, validator=validator, applier=applier,
                        startup_path=os.path.join(directory, "startup.yaml"))
    switch.reachable = lambda: mgmt.reachable(switch.applied, boot)
    return host, directory, applier, switch


def serve(state_dir):
    from .nvue_api import ApplyError, schema_validator
    from .nvue_http import NvueApiServer, self_signed_certificate

    base = api_dir(state_dir)
    with open(os.path.join(base, "switches.json"), encoding="utf-8") as f:
        listing = json.load(f)["switches"]
    with open(os.path.join(base, "password"), encoding="utf-8") as f:
        password = f.read().strip()
    validators = {}
    switches = []
    for host, release in listing:
        if release not in validators:
            validators[release] = schema_validator(release)
        switches.append(_switch(state_dir, host, release, password, validators[release]))

    def boot(entry):
        # A switch comes up with its startup configuration (the factory one unless it was given another).
        host, _directory, applier, switch = entry
        try:
            applier(switch.applied, {})
        except ApplyError as exc:
            return "%s: the startup configuration does not apply: %s" % (host, exc)
        return None

    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=8) as pool:
        failed = [problem for problem in pool.map(boot, switches) if problem]
    if failed:
        raise SystemExit(failed[0])
    servers = []
    for host, directory, _applier, switch in switches:
        cert = os.path.join(directory, "nvue-api.pem")
        key = os.path.join(directory, "nvue-api.key")
        if not (os.path.exists(cert) and os.path.exists(key)):
            cert, key = self_signed_certificate(directory, names=(host, "localhost"), addresses=("127.0.0.1",))
        server = NvueApiServer(switch, cert, key, host="127.0.0.1", port=0).start()
        _write(os.path.join(directory, "api.port"), "%d\n" % server.port)
        servers.append(server)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_a: stop.set())
    _write(os.path.join(base, "ready"), "%d\n" % os.getpid())
    while not stop.wait(3600):
        pass
    for server in servers:
        server.stop()


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description="the NVUE API of the twin's Cumulus switches")
    parser.add_argument("--state-dir", required=True)
    args = parser.parse_args(argv)
    serve(args.state_dir)


if __name__ == "__main__":
    main()
