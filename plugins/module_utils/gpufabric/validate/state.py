"""One device's state, collected once and shared by every check.

``collect_commands`` runs, through a Transport, only the commands the selected checks need (each once) and
parses them; ``collect_napalm`` fills the same fields from NAPALM getters. A source the device lacks is
recorded in ``unavailable`` (checks SKIP), a command that failed in ``errors`` (checks report ERROR).
"""
import json
import os
import shlex
import time

from .. import nos
from . import parsers
from . import probe as probe_script
from .transport import Command, CommandFailed, Unavailable

SWITCH_COMMANDS = {
    "lldp": Command("lldpcli", "-f json show neighbors details"),
    "bgp": Command("vtysh", "show bgp vrf default ipv4 unicast summary json"),
    "routes": Command("vtysh", "show ip route json"),
    "links": Command("sh", "ip -j -s link show"),
    "sysfs": Command("sh", "grep -H . /sys/class/net/*/carrier_changes /sys/class/net/*/speed 2>/dev/null; true"),
}
SERVER_COMMANDS = {
    "lldp": SWITCH_COMMANDS["lldp"],
    "links": SWITCH_COMMANDS["links"],
    "sysfs": SWITCH_COMMANDS["sysfs"],
    "addrs": Command("sh", "ip -j addr show"),
    "rules": Command("sh", "ip -j rule show"),
    "route_tables": Command("sh", "ip -j route show table all"),
}
NIC_QOS_SCRIPT = ("command -v mlnx_qos >/dev/null || { echo NO_MLNX_QOS; exit 0; }; for nic in %s; do "
                  "echo \"### $nic\"; mlnx_qos -i \"$nic\" 2>&1; "
                  "grep -H . /sys/class/net/$nic/ecn/roce_np/enable/* /sys/class/net/$nic/ecn/roce_rp/enable/* "
                  "2>/dev/null; done; true")


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


def nic_qos(text):
    """The NIC QoS script's output -> {nic: {"trust", "pfc", "ecn"}}; raises Unavailable without mlnx_qos."""
    if text.strip() == "NO_MLNX_QOS":
        raise Unavailable("mlnx_qos is not installed (no ConnectX tools on this host)")
    out = {}
    for block in text.split("### ")[1:]:
        nic, _nl, body = block.partition("\n")
        parsed = parsers.mlnx_qos(body)
        if parsed is None:
            continue
        enabled = {}
        for path, value in parsers.sysfs_values(body).get(nic.strip(), {}).items():
            # ecn/roce_np/enable/3 and ecn/roce_rp/enable/3: ECN is on for a priority when both are 1.
            prio = path.rsplit("/", 1)[-1]
            enabled.setdefault(int(prio), []).append(value == 1)
        parsed["ecn"] = sorted(p for p, flags in enabled.items() if len(flags) == 2 and all(flags))
        out[nic.strip()] = parsed
    return out


def _interfaces(links, sysfs):
    out = {}
    for name, link in (links or {}).items():
        extra = (sysfs or {}).get(name, {})
        speed = extra.get("speed")
        out[name] = dict(link, flaps=extra.get("carrier_changes"),
                         speed=speed if isinstance(speed, int) and speed > 0 else None)
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
    A switch's NOS (``nos_name``, default nos.DEFAULT) adds its own collectors (its home's collectors.py)."""
    started = time.perf_counter()
    state = DeviceState(device, role, virtual=transport.virtual)
    collectors = None if role == "gpu_server" else nos.home(nos_name).collectors
    table = SERVER_COMMANDS if collectors is None else dict(SWITCH_COMMANDS, **collectors.COMMANDS)
    raw, wanted = {}, []
    for source in sources:
        if source == "nic_qos":
            command = Command("sh", NIC_QOS_SCRIPT % " ".join(nics)) if role == "gpu_server" and nics else None
        elif source == "reach":
            command = Command("sh", probe) if probe else None
            if command is None:
                state.unavailable[source] = "nothing to probe (no other server)"
        else:
            command = table.get(source)
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
    parse = {
        "lldp": ("lldp", parsers.lldp_neighbors), "bgp": ("bgp", parsers.bgp_summary),
        "routes": ("routes", parsers.routes), "addrs": ("addrs", parsers.ip_addrs),
        "rules": ("rules", parsers.ip_rules), "route_tables": ("route_tables", parsers.ip_routes),
        "nic_qos": ("nic_qos", nic_qos), "reach": ("reach", json.loads),
    }
    if collectors is not None:
        parse.update(collectors.PARSERS)
    for source, text in raw.items():
        if source not in parse:
            continue
        field, fn = parse[source]
        try:
            setattr(state, field, fn(text))
        except Unavailable as exc:
            state.unavailable[source] = str(exc)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            state.errors[source] = "unparsable output (%s: %s)" % (type(exc).__name__, exc)
    if state.bgp is not None:
        state.bgp["peers"] = {ip: peer for ip, peer in state.bgp["peers"].items() if not transport.internal_peer(ip)}
    if "links" in raw and "links" not in state.errors:
        try:
            state.interfaces = _interfaces(parsers.ip_links(raw["links"]), parsers.sysfs_values(raw.get("sysfs")))
        except (ValueError, KeyError, TypeError) as exc:
            state.errors["links"] = "unparsable output (%s: %s)" % (type(exc).__name__, exc)
    state.seconds = time.perf_counter() - started
    return state
