"""The SONiC management plane of the twin's switches: each SONiC switch gets its own /etc/sonic, a redis-server
with its databases (CONFIG_DB loaded from config_db.json, as at boot) and SONiC's commands on its PATH.

    /etc/sonic/<host>/                 the switch's /etc/sonic (the netns connection binds it there)
    /run/gpufabric-twin/<cluster>/<host>/redis.sock, redis.pid, redis.log
    /run/gpufabric-twin/<cluster>/<host>/netns-env.json
                                       tells the netns connection to bind /etc/sonic/<host> over /etc/sonic and to
                                       put /run/gpufabric-sonic/bin first on PATH (twin/netns_env.py)
    /run/gpufabric-sonic/bin/          config, show, sonic-cfggen, sonic-db-cli

The redis-server runs in the switch's namespace, so 127.0.0.1:6379 there is the switch's own, as on SONiC.

The twin reaches this module through twin.emulators.plane("sonic") and asks it (docs/twin.md, "NOS stand-ins"):
SELF_APPLYING (False: the twin builds the namespace from ``layout``), CONFIG_FILE, PORT_PATTERN, REQUIRES,
``layout(text)``, ``apply``, ``forget``, ``remove``, ``leftovers``, PlaneError. ``reconcile`` is this plane's own: the
switch's commands call it when its configuration changed.
"""
import contextlib
import json
import os
import shlex
import shutil
import sys

from ... import daemons, netns_env
from . import factory, mgmt, orchagent, redis_db
from .configdb import RedisConfigDb
from . import layout as _layout
from .cli import CALLER_UID

# The twin builds a SONiC switch's namespace from its rendered config_db.json (layout); the management plane
# (redis, config) runs beside it.
SELF_APPLYING = False
CONFIG_FILE = _layout.CONFIG_FILE
# lldpd -I pattern: SONiC's front-panel port names.
PORT_PATTERN = "Ethernet*"
# What the machine needs for the twin's SONiC switches: (path, what installs it).
REQUIRES = (("/usr/bin/redis-server", "redis-server, the SONiC switches' databases (apt-get install redis-server)"),)
# An error of the plane the twin reports as its own (one line).
PlaneError = redis_db.RedisError

ETC_ROOT = "/etc/sonic"
BIN_DIR = "/run/gpufabric-sonic/bin"
# Not under /run/gpufabric-twin, whose listing says which twins are up.
LOCK_FILE = "/run/gpufabric-sonic.lock"
# frr-reload.py: the bgp container's, which on the twin also gives a leaf's tenant VRFs their namespaces (orchagent.py).
COMMANDS = ("config", "show", "sonic-cfggen", "sonic-db-cli", "frr-reload.py")
# systemd's, for the transient timers the deploy arms (systemd.py).
SYSTEMD_COMMANDS = ("systemd-run", "systemctl")
# The release whose rules the twin's `config` commands apply (gcu_releases.yml), as SONiC's build_version names an
# image of branch 202511 (sonic_version.yml has it without "SONiC."; `show version` adds it), and the rest of that file.
BUILD_VERSION = "20251130.06"
VERSION = {"build_date": "Sun Nov 30 04:12:33 UTC 2025", "built_by": "gpufabric-twin", "branch": "202511",
           "release": "202511", "commit_id": "gpufabric-twin", "build_number": "6"}
# Where the YANG models come from: GPUFABRIC_SONIC_YANG_MODELS, else the reference copy beside a checkout.
YANG_ENV = "GPUFABRIC_SONIC_YANG_MODELS"


def layout(text):
    """What the switch's namespace is made of, from its rendered config_db.json text (layout.py)."""
    return _layout.layout(text)


def etc_dir(host):
    return os.path.join(ETC_ROOT, host)


def yang_models():
    if os.environ.get(YANG_ENV):
        return os.environ[YANG_ENV]
    here = os.path.dirname(os.path.realpath(__file__))   # through the collection link to the checkout
    for up in range(5, 9):
        candidate = os.path.join(here, *([".."] * up), "shared", "sonic-reference", "yang-models")
        if os.path.isdir(candidate):
            return os.path.realpath(candidate)
    return "/usr/local/yang-models"


# The switches' own identity, as the hardware reports it to SONiC: the ONIE platform string of each switch model
# (/host/machine.conf), and the default SKU and ASIC vendor of that platform when its files are not at hand (Dell's
# data sheets; sonic-buildimage device/dell/<platform>/default_sku, platform_asic). The emulator's own table.
HARDWARE = {
    "Z9332F-ON": ("x86_64-dellemc_z9332f_d1508-r0", "DellEMC-Z9332f-O32", "broadcom"),
    "Z9664F-ON": ("x86_64-dell_z9664f-r0", "DellEMC-Z9664f-O64", "broadcom"),
    "Z9864F-ON": ("x86_64-dell_z9864f-r0", "Dell-Z9864f-O64", "broadcom"),
    "S5232F-ON": ("x86_64-dellemc_s5232f_c3538-r0", "DellEMC-S5232f-C32", "broadcom"),
    "S5296F-ON": ("x86_64-dellemc_s5296f_c3538-r0", "DellEMC-S5296f-P-25G", "broadcom"),
    "S3248T-ON": ("x86_64-dell_s3248t-r0", "DELL-S3248T", "broadcom"),
}
# Where a platform's files are (sonic-buildimage's device/<vendor>/<platform>/, /usr/share/sonic/device on a
# switch): GPUFABRIC_SONIC_PLATFORMS, else the reference copy beside a checkout.
PLATFORMS_ENV = "GPUFABRIC_SONIC_PLATFORMS"


def platform_files():
    if os.environ.get(PLATFORMS_ENV):
        return os.environ[PLATFORMS_ENV]
    here = os.path.dirname(os.path.realpath(__file__))
    for up in range(5, 9):
        candidate = os.path.join(here, *([".."] * up), "shared", "sonic-reference", "platforms")
        if os.path.isdir(candidate):
            return os.path.realpath(candidate)
    return "/usr/share/sonic/device"


def _first_word(path):
    try:
        with open(path, encoding="utf-8") as f:
            words = f.read().split()
    except OSError:
        return None
    return words[0] if words else None


def switch_facts(model_name, config_db=None):
    """{"asic_type", "hwsku", "platform"} of a switch model as the switch knows them: its platform, and the
    platform's default SKU and ASIC from the platform's own files (default_sku, platform_asic); "" for a model
    the emulator does not know (a stand-in model)."""
    platform, sku, asic = HARDWARE.get(model_name, ("", "", ""))
    if platform:
        where = os.path.join(platform_files(), platform)
        sku = _first_word(os.path.join(where, "default_sku")) or sku
        asic = _first_word(os.path.join(where, "platform_asic")) or asic
    if not asic:
        # GCU reads asic_type from sonic_version.yml; Mellanox SKUs are named Mellanox-*/ACS-*, the rest Broadcom.
        asic = "mellanox" if sku.startswith(("Mellanox-", "ACS-")) else "broadcom"
    return {"asic_type": asic, "hwsku": sku, "platform": platform}


def host_version():
    """sonic_version.yml's fields that describe the machine: the twin's switches run this machine's kernel and
    Debian."""
    release = _first_word("/etc/debian_version") or "N/A"
    return dict(VERSION, kernel_version=os.uname().release, debian_version=release,
                sonic_os_version=release.split(".")[0])


def chassis_info(host, model_name):
    """STATE_DB CHASSIS_INFO|chassis 1 as pmon's chassisd writes it: the twin's serial from the switch's name."""
    import hashlib
    return {"serial": "TW" + hashlib.sha256(host.encode()).hexdigest()[:8].upper(), "model": model_name or "N/A",
            "revision": "N/A"}


def factory_text(host, model_name):
    """The config_db.json a switch boots from when it has not been deployed: the one it saved (config save) if it has
    one, else what SONiC's first boot writes for its platform and hwsku (factory.py)."""
    try:
        with open(os.path.join(etc_dir(host), "config_db.json"), encoding="utf-8") as f:
            return f.read()
    except OSError:
        pass
    platform = switch_facts(model_name)["platform"]
    if not platform:
        raise factory.FactoryError("model %s has no platform files the twin knows: it cannot boot from its factory "
                                   "state" % model_name)
    return json.dumps(factory.first_boot(os.path.join(platform_files(), platform), host), indent=4)


def boot_config(config_db, facts):
    """The config_db.json a switch boots with: the rendered one, with the hwsku and platform a switch's own
    DEVICE_METADATA carries."""
    config = json.loads(json.dumps(config_db))
    meta = config.setdefault("DEVICE_METADATA", {}).setdefault("localhost", {})
    for key in ("hwsku", "platform"):
        if facts.get(key):
            meta.setdefault(key, facts[key])
    return config


def _write_commands():
    os.makedirs(BIN_DIR, exist_ok=True)
    module_utils = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))
    changed = False
    code = "import sys; sys.path.insert(0, %r); from gpufabric.twin.emulators.sonic.cli import main; sys.exit(main(sys.argv[1:]))" \
        % module_utils
    for name in COMMANDS + SYSTEMD_COMMANDS:
        if name in SYSTEMD_COMMANDS:    # systemd.py, systemctl.py: the switch's transient timers
            code = "import sys; sys.path.insert(0, %r); from gpufabric.twin.emulators.sonic.systemctl import main; " \
                "sys.exit(main(sys.argv[1:]))" % module_utils
        # The stand-in is Python of the controller's checkout, which a switch's login user may not read: run by one, it
        # runs as root through sudo (the login user has it, as SONiC's admin) and is told who called it (CALLER_UID),
        # whom it judges as SONiC would judge the caller (config refuses one who is not root).
        text = ("#!/bin/sh\n# SONiC's %s on a twin switch (gpufabric twin/emulators/sonic/cli.py).\n"
                "if [ \"$(id -u)\" != 0 ]; then exec sudo -n %s=\"$(id -u)\" \"$0\" \"$@\"; fi\n"
                "exec %s -c %s \"$0\" \"$@\"\n"
                % (name, CALLER_UID, shlex.quote(sys.executable), shlex.quote(code)))
        # Machine-wide: twins of other clusters may write the same wrapper at the same time (a temporary file each).
        changed = daemons.write_if_changed(os.path.join(BIN_DIR, name), text, 0o755, owner=None) or changed
    return changed


@contextlib.contextmanager
def _machine_lock():
    """Held while a twin writes or removes what its SONiC switches share with other twins on the machine (the
    commands, /etc/sonic): two twins coming up and going down at once (two test chains) never remove the commands
    the other has just written."""
    import fcntl
    with open(LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def apply(state_dir, switches, namespaced=True):
    """Start what is missing: ``switches`` is [(host, model name, config_db)]. Returns the changes made.
    ``namespaced`` False: switches with no namespace of their own (the OOB switches, one bridge of the twin): their
    redis listens on its unix socket only and their CONFIG_DB programs no dataplane."""
    with _machine_lock():
        return _apply(state_dir, switches, namespaced)


def _apply(state_dir, switches, namespaced):
    changes = []
    problem = redis_db.missing()
    if problem:
        raise redis_db.RedisError("the twin's SONiC switches need redis: " + problem)
    if switches and _write_commands():
        changes.append("SONiC commands written to %s" % BIN_DIR)
    for host, model_name, config_db, role in switches:
        facts = switch_facts(model_name, config_db)
        etc, run = etc_dir(host), os.path.join(state_dir, host)
        # Commands reaching the switch through the netns connection see its /etc/sonic and SONiC's commands.
        if netns_env.write(state_dir, host, binds=[(etc, ETC_ROOT)], path=[BIN_DIR]):
            changes.append("%s: its /etc/sonic and SONiC's commands given to the netns connection" % host)
        redis_db.switch_files(etc, run, facts["asic_type"], BUILD_VERSION, yang_models(),
                              config_db=boot_config(config_db, facts), dataplane=namespaced,
                              device={"cluster": os.path.basename(state_dir.rstrip("/")), "host": host,
                                      "role": role, "model": model_name, "platform": facts["platform"],
                                      "platform_dir": os.path.join(platform_files(), facts["platform"])
                                      if facts["platform"] else ""},
                              version=host_version())
        if redis_db.start(run, netns=host if namespaced else None):
            socket = redis_db.paths(run)["socket"]
            with open(os.path.join(etc, "config_db.json"), encoding="utf-8") as f:
                boot = json.load(f)
            RedisConfigDb(socket).load(boot)
            mgmt.publish(run, boot)     # eth0 as MGMT_INTERFACE sets it at boot
            RedisConfigDb(socket, "STATE_DB").set_entry("CHASSIS_INFO", "chassis 1", chassis_info(host, model_name))
            orchagent.remember_layout(etc, RedisConfigDb(socket).get_config())   # what its namespace was made from
            changes.append("%s: redis started, CONFIG_DB loaded from /etc/sonic/config_db.json" % host)
    return changes


def reconcile(host, reload_frr=False):
    """A twin switch's orchagent and vrfmgrd, run in the machine's namespaces (orchagent.py calls it through nsenter): its
    namespace and its tenant VRFs' made to match its CONFIG_DB and its frr.conf (twin/switch.py, reconcile_switch)."""
    from ...switch import reconcile_switch
    etc = etc_dir(host)
    with open(os.path.join(etc, "gpufabric-twin.json"), encoding="utf-8") as f:
        device = json.load(f)
    with open(os.path.join(etc, "database_config.json"), encoding="utf-8") as f:
        socket = json.load(f)["INSTANCES"]["redis"]["unix_socket_path"]
    config = RedisConfigDb(socket).get_config()
    return reconcile_switch(device["cluster"], host, device["role"], "sonic", device["model"], json.dumps(config),
                            reload_frr=reload_frr)


def remove(state_dir, hosts):
    """Stop the switches' redis and remove their /etc/sonic (and the commands with the last SONiC switch)."""
    with _machine_lock():
        return _remove(state_dir, hosts)


def _remove(state_dir, hosts):
    runs = {os.path.join(state_dir, host): host for host in hosts}
    changes = ["%s: redis stopped" % runs[run] for run in redis_db.stop(sorted(runs))]
    for host in hosts:
        netns_env.remove(state_dir, host)
        if redis_db.remove_switch_files(etc_dir(host)):
            changes.append("removed %s" % etc_dir(host))
    if os.path.isdir(ETC_ROOT) and not os.listdir(ETC_ROOT):
        os.rmdir(ETC_ROOT)
    if not os.path.isdir(ETC_ROOT) and os.path.isdir(os.path.dirname(BIN_DIR)):
        shutil.rmtree(os.path.dirname(BIN_DIR), ignore_errors=True)
        changes.append("removed %s" % os.path.dirname(BIN_DIR))
    return changes


def forget(state_dir, hosts):
    """The namespaces ``hosts`` left the twin: what this plane ran for them goes (remove)."""
    return remove(state_dir, hosts)


def leftovers(hosts):
    return sorted(etc_dir(h) for h in hosts if os.path.exists(etc_dir(h)))
