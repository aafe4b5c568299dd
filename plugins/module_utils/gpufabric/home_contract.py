"""What the home of a NOS provides (``nos/<name>/``, reached through ``nos_registry.home(name)``), declared once.

``NosHome`` and the protocols it names are the contract: neutral code calls nothing else on a home, and
``problems(name)`` checks a home against it (tests/unit/test_home_contract.py runs it over every NOS of the
registry), naming each missing piece and what needs it. Pieces:

- render: ``CONFIG_FILES``, ``render_device(cfg)``, ``render_switches(cfgs, spec)`` (the build's call: all of the
  NOS's switches at once), ``STRUCTURED_SCHEMA`` (the structured config version it reads);
- schema gate: ``check_configs(models_dir, cfgs)`` (a gate run inside render_switches returns [] here);
- deploy semantics: ``deploy``, the NOS's own transaction and rollback, run by the role its platform facts name
  (``deploy.role`` in data/platforms.yml; the role's ``tasks/pending.yml`` is its read-only entry point);
- observations: ``collectors`` (a command and a parser for each observation validation checks,
  ``VALIDATION_OBSERVATIONS``, and how its tools are reached over SSH), ``bgp_gate`` (what the deploy's BGP gate
  asks and how it reads the answer), ``drain`` (the lines that drain a running switch and the line that shows it
  is drained). A home whose switches run FRR, lldpd and iproute2 may give frr_linux/'s;
- tenancy: ``tenancy`` (the command reading a running rail leaf and which tenant each port is bound to), when its
  deploy role serves tenants.yml (``tenants`` in the platform's ``deploy.plays``);
- ZTP: ``ztp_switch_files``, ``ztp_boot_option``, ``port_aliases``, ``ztp_config_problems``.

A home has no part on the twin: the twin's emulator of the NOS is ``twin/emulators/<name>/``, found by name
there (``twin.emulators.plane(name)``, its own contract ``twin.emulators.TwinPlane``), and judges the home
from outside it.
"""
from typing import Any, Callable, Dict, List, Mapping, Optional, Protocol, Tuple

from . import nos_registry

# The observations validation collects from every switch, each a command and a parser into its fact
# (validate/checks: cabling reads lldp, bgp and routing read bgp and routes, interfaces read links, QoS reads qos).
# ``sysfs`` (carrier changes, speed) is optional: a home without it leaves those two values unknown.
VALIDATION_OBSERVATIONS = ("lldp", "bgp", "routes", "links", "qos")
# The platform facts every NOS has (data/platforms.yml); neutral builders and the inventory read them.
PLATFORM_FACTS = ("interface_name", "mgmt_interface", "loopback", "lag", "vlan_interface")


class Collectors(Protocol):
    """collectors.py of a home: observation -> Command(tool, text); observation -> (fact, parser of the command's
    output); tool -> how it is run over SSH on the switch ({q}: the text shell-quoted, {text}: as it is)."""
    COMMANDS: Mapping[str, Tuple[str, str]]
    PARSERS: Mapping[str, Tuple[str, Callable[[str], Any]]]
    SSH_TOOLS: Mapping[str, str]


class BgpGateReader(Protocol):
    """What the deploy role runs after a change, in one call, and its output read as bgp_gate.py's facts."""
    GATE_COMMANDS: Tuple[str, ...]

    def observe(self, text: str) -> Optional[Dict[str, Any]]: ...

    def sessions(self, summary_text: str) -> Dict[str, str]: ...


class DrainLines(Protocol):
    """How a running switch is drained without a reload (day2/drain.py decides what a drain is)."""
    RUNNING_MARKER: str

    def commands(self, bgp: Mapping[str, Any], drain: bool = True) -> List[str]: ...


class Tenancy(Protocol):
    """Which tenant each port of a running rail leaf is bound to (tenants/live.py joins the leaves)."""
    RUNNING_COMMAND: str

    def bindings(self, running: str) -> Dict[str, Any]: ...


class NosHome(Protocol):
    """The home of one NOS, as neutral code sees it."""
    NAME: str
    STRUCTURED_SCHEMA: Tuple[int, int]
    CONFIG_FILES: Tuple[str, ...]
    deploy: Any
    collectors: Collectors
    bgp_gate: BgpGateReader
    drain: DrainLines
    tenancy: Tenancy

    def render_device(self, cfg: Mapping[str, Any]) -> Dict[str, str]: ...

    def render_switches(self, cfgs: Mapping[str, Any], spec: Mapping[str, Any]) -> Dict[str, Dict[str, str]]: ...

    def check_configs(self, models_dir: str, cfgs: Mapping[str, Any]) -> List[str]: ...

    def ztp_switch_files(self, cfgs: Mapping[str, Any], settings: Any, spec: Any = None) -> Any: ...

    def ztp_boot_option(self, host: str, settings: Any) -> Any: ...

    def port_aliases(self, native_by_host: Mapping[str, Any]) -> Dict[str, Any]: ...

    def ztp_config_problems(self, native_by_host: Mapping[str, Any], models_dir: str) -> List[str]: ...


# The pieces that are themselves checked member by member.
NESTED = (Collectors, BgpGateReader, DrainLines, Tenancy)
# What needs each piece: the words a problem names it with.
NEEDED_BY = {
    "NAME": "the registry (its name)", "STRUCTURED_SCHEMA": "render (the structured config version it reads)",
    "CONFIG_FILES": "render (the files it writes per switch)", "render_device": "render",
    "render_switches": "render (the build)", "check_configs": "the schema gate", "deploy": "deploy semantics",
    "collectors": "validation", "bgp_gate": "the deploy's BGP gate", "drain": "the drain (drain.yml, deploy's waves)",
    "tenancy": "tenancy (tenants.yml reads the running leaves)", "ztp_switch_files": "ZTP", "ztp_boot_option": "ZTP",
    "port_aliases": "ZTP", "ztp_config_problems": "ZTP",
}


def members(protocol):
    """The names a protocol declares, in order: its annotated attributes, then its methods."""
    names = list(protocol.__dict__.get("__annotations__", {}))
    return names + [n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_") and n not in names]


def _declared(protocol, name):
    return protocol.__dict__.get("__annotations__", {}).get(name)


def _missing(obj, protocol, path):
    """[(dotted piece, what it is)] that ``obj`` lacks of ``protocol``."""
    out = []
    for name in members(protocol):
        where = "%s.%s" % (path, name) if path else name
        if not hasattr(obj, name):
            out.append((where, "missing"))
            continue
        value = getattr(obj, name)
        kind = _declared(protocol, name)
        if kind is None and not callable(value):
            out.append((where, "not callable"))
        elif kind in NESTED:
            out += _missing(value, kind, where)
    return out


def _observations(collectors):
    out = []
    for observation in VALIDATION_OBSERVATIONS:
        command = (getattr(collectors, "COMMANDS", None) or {}).get(observation)
        parser = (getattr(collectors, "PARSERS", None) or {}).get(observation)
        if not (isinstance(command, tuple) and len(command) == 2):
            out.append(("collectors.COMMANDS[%r]" % observation, "no command for the %s observation" % observation))
        if not (isinstance(parser, tuple) and len(parser) == 2 and callable(parser[1])):
            out.append(("collectors.PARSERS[%r]" % observation, "no parser for the %s observation" % observation))
        tool = command[0] if isinstance(command, tuple) and command else None
        if tool not in (None, "sh") and tool not in (getattr(collectors, "SSH_TOOLS", None) or {}):
            out.append(("collectors.SSH_TOOLS[%r]" % tool, "no way to run %r over SSH" % tool))
    return out


def problems(name, home=None):
    """[problem] of NOS ``name``'s home (``home``: the module, or what stands in for it in a test) against the
    contract, each naming the piece and what needs it; [] when it keeps it."""
    home = nos_registry.home(name) if home is None else home
    facts = nos_registry.deploy_facts(name)
    found = []
    for piece, what in _missing(home, NosHome, ""):
        top = piece.split(".")[0]
        if top == "tenancy" and "tenants" not in (facts.get("plays") or ()):
            continue
        found.append((piece, what, NEEDED_BY.get(top, top)))
    if hasattr(home, "collectors"):
        found += [(piece, what, "validation") for piece, what in _observations(home.collectors)]
    if getattr(home, "NAME", name) != name:
        found.append(("NAME", "is %r, not %r" % (home.NAME, name), NEEDED_BY["NAME"]))
    platform = nos_registry.platform(name)
    found += [("platforms.yml %s.default.%s" % (name, fact), "missing", "the structured config and the inventory")
              for fact in PLATFORM_FACTS if fact not in platform]
    if not facts.get("role"):
        found.append(("platforms.yml %s.deploy.role" % name, "missing", NEEDED_BY["deploy"]))
    return ["nos %s: %s %s (needed by %s)" % (name, piece, what, needed) for piece, what, needed in found]
