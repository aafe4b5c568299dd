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
import os

from ... import netns_env, plane_process
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


def _write_commands():
    return plane_process.write_command(BIN_DIR, 'Cli', 'twin.emulators.eos.cli_tool', "EOS's Cli on an EOS switch of the twin")


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


PLANE = "twin.emulators.eos.plane"   # this module, as its serving process runs it (python -m gpufabric.<PLANE>)


def _stop(state_dir):
    return plane_process.plane_stop(api_dir(state_dir), PLANE)


def apply(state_dir, switches, namespaced=True):
    """Serve the eAPI of ``switches`` ([(host, release@model, startup-config text or None)]): a switch's
    startup-config is written once, when it has none (None: it boots EOS's factory configuration). The serving
    process is started, or restarted when the set of switches changed. Returns changes."""
    if not switches:
        return []
    base = api_dir(state_dir)
    os.makedirs(base, exist_ok=True)
    changes = []
    plane_process.plane_password(base)
    if _write_commands():
        changes.append("Cli written to %s" % BIN_DIR)
    for host, _release, startup in switches:
        os.makedirs(switch_dir(state_dir, host), exist_ok=True)
        # Commands reaching the switch through the netns connection find Cli first on PATH, as a login's bash does.
        if namespaced and netns_env.write(state_dir, host, path=[BIN_DIR]):
            changes.append("%s: Cli given to the netns connection" % host)
        path = os.path.join(switch_dir(state_dir, host), "startup-config")
        if startup is not None and not os.path.exists(path):
            plane_process.write_state(path, startup)
    return changes + plane_process.plane_start(base, PLANE, state_dir, switches, ("eAPI", "EOS switches"), READY_TIMEOUT,
                                               PlaneError)


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
            plane_process.write_state(path, switch.startup.text())
            switch._saved = switch.startup
    return save


def serve(state_dir):
    from .eapi import EosSwitch, mac_of, serial_of
    from .http import EapiServer, issue, make_ca

    base = api_dir(state_dir)
    listing, password = plane_process.plane_listing(base)
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

    plane_process.plane_boot(boot, switches, 4)
    for switch in switches:
        switch.oper.name_ports()
    servers = []
    save = _save_startup(state_dir)
    for switch in switches:
        directory = switch_dir(state_dir, switch.host)
        cert, key = issue(base, directory, switch.host)
        server = EapiServer(switch, cert, key, USER, password).start()
        plane_process.write_state(os.path.join(directory, "eapi.port"), "%d\n" % server.port)
        servers.append(server)

    def tick():
        # Commit timers run out without a request; write memory lands in the switch's startup-config file.
        for switch in switches:
            switch.tick()
            save(switch)
    plane_process.plane_serve(base, servers, TICK, tick)


def main(argv=None):
    plane_process.plane_main(serve, "the eAPI of the twin's EOS switches", argv)


if __name__ == "__main__":
    main()
