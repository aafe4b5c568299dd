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

from ... import netns_env, plane_process
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


def _write_commands():
    return plane_process.write_command(BIN_DIR, 'nv', 'twin.emulators.cumulus.nv_cli', "NVUE's nv on a Cumulus switch of the twin")


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


PLANE = "twin.emulators.cumulus.plane"   # this module, as its serving process runs it (python -m gpufabric.<PLANE>)


def _stop(state_dir):
    return plane_process.plane_stop(api_dir(state_dir), PLANE)


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
    plane_process.plane_password(base)
    for host, _release, startup in switches:
        os.makedirs(switch_dir(state_dir, host), exist_ok=True)
        # Commands reaching the switch through the netns connection find nv first on PATH, as on the switch.
        if netns_env.write(state_dir, host, path=[BIN_DIR]):
            changes.append("%s: nv given to the netns connection" % host)
        path = os.path.join(switch_dir(state_dir, host), "startup.yaml")
        if not os.path.exists(path):
            # No startup configuration delivered (ZTP, the build): the switch boots its factory one, as a new switch.
            plane_process.write_state(path, startup if startup is not None else factory.factory_startup(_release or factory.RELEASE))
    return changes + plane_process.plane_start(base, PLANE, state_dir, switches, ("NVUE API", "Cumulus switches"),
                                               READY_TIMEOUT, PlaneError)


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
        plane_process.write_state(applied_file, json.dumps(config, indent=1, sort_keys=True) + "\n")

    switch = NvueSwitch(host, {USER: password}, release=release, validator=validator, applier=applier,
                        startup_path=os.path.join(directory, "startup.yaml"))
    switch.reachable = lambda: mgmt.reachable(switch.applied, boot)
    return host, directory, applier, switch


def serve(state_dir):
    from .nvue_api import ApplyError, schema_validator
    from .nvue_http import NvueApiServer, self_signed_certificate

    base = api_dir(state_dir)
    listing, password = plane_process.plane_listing(base)
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

    plane_process.plane_boot(boot, switches, 8)
    servers = []
    for host, directory, _applier, switch in switches:
        cert = os.path.join(directory, "nvue-api.pem")
        key = os.path.join(directory, "nvue-api.key")
        if not (os.path.exists(cert) and os.path.exists(key)):
            cert, key = self_signed_certificate(directory, names=(host, "localhost"), addresses=("127.0.0.1",))
        server = NvueApiServer(switch, cert, key, host="127.0.0.1", port=0).start()
        plane_process.write_state(os.path.join(directory, "api.port"), "%d\n" % server.port)
        servers.append(server)
    plane_process.plane_serve(base, servers, 3600)


def main(argv=None):
    plane_process.plane_main(serve, "the NVUE API of the twin's Cumulus switches", argv)


if __name__ == "__main__":
    main()
