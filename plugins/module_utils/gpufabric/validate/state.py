"""One device's state, collected once and shared by every check.

What to run for each source and how to read its output is not this module's: a switch's come from its NOS's home
(``collectors.COMMANDS``/``PARSERS``), a GPU server's from frr_linux/host.py. Here they are run once each, and
their facts (``links`` with ``sysfs`` joined into ``interfaces``) put on the DeviceState.

``collect_commands`` runs, through a Transport, only the commands the selected checks need (each once) and
parses them; ``collect_napalm`` fills the same fields from NAPALM getters. A source the device lacks is
recorded in ``unavailable`` (checks SKIP), a command that failed in ``errors`` (checks report ERROR).
"""
import json
import os
import shlex
import time

from .. import nos_registry
from ..device_command import Command, CommandFailed, Unavailable
from ..frr_linux import host as linux_host
from . import probe as probe_script


class DeviceState:
    __slots__ = ("name", "role", "lldp", "bgp", "routes", "interfaces", "addrs", "rules", "route_tables",
                 "qos", "nic_qos", "optics", "reach", "errors", "unavailable", "virtual", "seconds")

    def __init__(self, name, role, virtual=False):
        self.name = name
        self.role = role
        self.lldp = self.bgp = self.routes = self.interfaces = self.addrs = None
        self.rules = self.route_tables = self.qos = self.nic_qos = self.optics = self.reach = None
        self.errors = {}        # source -> why it could not be collected (ERROR)
        self.unavailable = {}   # source -> why the device has none (SKIP)
        self.virtual = virtual
        self.seconds = 0.0

    def problem(self, *sources):
        """("ERROR" | "SKIP", message) when one of ``sources`` is missing, else None."""
        for source in sources:
            if source in self.errors:
                return "ERROR", "could not collect %s from %s: %s" % (source, self.name, self.errors[source])
        for source in sources:
            if source in self.unavailable:
                return "SKIP", "%s: %s" % (source, self.unavailable[source])
        return None


def _interfaces(links, sysfs):
    out = {}
    for name, link in (links or {}).items():
        extra = (sysfs or {}).get(name, {})
        speed = extra.get("speed")
        out[name] = dict(link, flaps=extra.get("carrier_changes"),
                         speed=speed if isinstance(speed, int) and speed > 0 else None,
                         speed_reported=bool(extra.get("reported")))
        # A NOS that reports its ports itself (its own port table, "reported") is believed over its netdevs.
        out[name].update({key: extra[key] for key in ("oper_up", "admin_up") if key in extra})
    return out


def probe_command(pairs, timeout=2.0):
    """A shell command running validate/probe.py for [(source address, destination address)]: ICMP
    from each source address, one process for all (needs root, hence sudo -n when not root)."""
    with open(os.path.splitext(probe_script.__file__)[0] + ".py", encoding="utf-8") as f:
        source = f.read()
    by_src = {}
    for src, dst in pairs:
        by_src.setdefault(src, []).append(dst)
    args = " ".join("%s=%s" % (src, ",".join(dsts)) for src, dsts in sorted(by_src.items()))
    return ('if [ "$(id -u)" = 0 ]; then s=; else s="sudo -n"; fi; $s python3 -c %s %s %s'
            % (shlex.quote(source), timeout, args))


def collect_commands(transport, device, role, sources, nics=(), probe=None, nos_name=None):
    """DeviceState of ``device`` from the command outputs of ``sources`` (each command run once);
    ``probe`` is the reachability probe command of a server, None when there is nothing to probe.
    A switch's NOS (``nos_name``, default nos_registry.DEFAULT_NOS) adds its own collectors (its home's collectors.py)."""
    started = time.perf_counter()
    state = DeviceState(device, role, virtual=transport.virtual)
    collectors = linux_host if role == "gpu_server" else nos_registry.home(nos_name).collectors
    raw, wanted = {}, []
    for source in sources:
        if source == "nic_qos":
            command = linux_host.nic_qos_command(nics) if role == "gpu_server" else None
        elif source == "reach":
            command = Command("sh", probe) if probe else None
            if command is None:
                state.unavailable[source] = "nothing to probe (no other server)"
        else:
            command = collectors.COMMANDS.get(source)
        if command is not None:
            wanted.append((source, command))
    try:
        outputs = transport.run_many(device, [command for _source, command in wanted])
    except CommandFailed as exc:  # the device cannot be reached, or its batch of commands failed as a whole
        outputs = [exc] * len(wanted)
    for (source, _command), output in zip(wanted, outputs):
        if isinstance(output, Unavailable):
            state.unavailable[source] = str(output)
        elif isinstance(output, Exception):
            state.errors[source] = str(output)
        else:
            raw[source] = output
    parse = dict(collectors.PARSERS, reach=("reach", json.loads))
    facts = {}   # the facts that are parts of one on the DeviceState (links and sysfs: interfaces)
    for source, text in raw.items():
        if source not in parse:
            continue
        field, fn = parse[source]
        try:
            value = fn(text)
        except Unavailable as exc:
            state.unavailable[source] = str(exc)
            continue
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            state.errors[source] = "unparsable output (%s: %s)" % (type(exc).__name__, exc)
            continue
        if field in DeviceState.__slots__:
            setattr(state, field, value)
        else:
            facts[field] = value
    if state.bgp is not None:
        state.bgp["peers"] = {ip: peer for ip, peer in state.bgp["peers"].items() if not transport.internal_peer(ip)}
    if "links" in facts:
        state.interfaces = _interfaces(facts["links"], facts.get("sysfs"))
    state.seconds = time.perf_counter() - started
    return state
