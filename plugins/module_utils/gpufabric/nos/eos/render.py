"""An Arista EOS switch's startup-config: its eos_cli_config_gen input (avd_input.py) validated by pyavd's own schema
and rendered by pyavd's own templates (``pyavd.validate_structured_config``, ``pyavd.get_device_config``). The
collection writes no EOS template: what pyavd's schema refuses fails the build in one line per problem, naming the
switch and the key, before anything is written."""
from ...catalog import Catalog
from ...errors import SpecError
from . import avd_input

FILE = "startup-config"
# The files render_device writes per switch, under devices/<host>/.
CONFIG_FILES = (FILE,)
# The AVD release whose eos_cli_config_gen schema and templates render EOS here (requirements.txt pins it).
AVD_VERSION = "6.4.0"
# How many of a build's schema problems the error shows (a fabric's switches often share one).
SHOWN = 20


class AvdSchemaError(SpecError):
    """Input that pyavd's eos_cli_config_gen schema refuses: one line per problem, naming switch and key."""

    def __init__(self, problems):
        self.problems = problems
        shown = problems[:SHOWN] + (["... and %d more" % (len(problems) - SHOWN)] if len(problems) > SHOWN else [])
        super().__init__("nos", "the EOS configuration pyavd's eos_cli_config_gen schema (AVD %s) refuses:\n  %s"
                         % (AVD_VERSION, "\n  ".join(shown)))


def _pyavd():
    try:
        import pyavd
    except ImportError as exc:
        raise SpecError("nos", "Arista EOS configurations are rendered by pyavd %s, which is not installed: pip "
                        "install -r requirements.txt" % AVD_VERSION) from exc
    if pyavd.__version__ != AVD_VERSION:
        raise SpecError("nos", "Arista EOS configurations are rendered by pyavd %s, not the installed %s: pip install "
                        "-r requirements.txt" % (AVD_VERSION, pyavd.__version__))
    return pyavd


def cage_lanes(cfg, spec=None):
    """{cage name: SerDes lanes} of the switch's model as EOS runs it (an EOS speed names its lanes)."""
    model = Catalog((spec or {}).get("models")).switch(cfg["model"], "models.switches", "eos")
    return {name: model.lanes[i] for i, (name, _speed, _use, _ff) in enumerate(model.ports)}


def eos_input(cfg, spec=None):
    """The eos_cli_config_gen input of one switch, unvalidated."""
    return avd_input.structured(cfg, cage_lanes(cfg, spec))


def _where(path):
    return ".".join(str(p) for p in path)


def validate(host, data):
    """(pyavd's validated data, [problem]) of one switch's input: each problem names the switch, the key's path in
    eos_cli_config_gen's schema and pyavd's word for it."""
    result = _pyavd().validate_structured_config(data)
    found = ["%s: %s: %s" % (host, _where(v.path), v.message) for v in result.validation_result.violations]
    found += ["%s: %s: deprecated in AVD %s (%s)" % (host, _where(d.path), AVD_VERSION, getattr(d, "message", ""))
              for d in result.validation_result.deprecations]
    return result.validated_data, found


def text(validated):
    return _pyavd().get_device_config(validated)


def render_device(cfg, spec=None):
    """{file name: text} of one switch, checked against pyavd's schema."""
    return render_switches({cfg["hostname"]: cfg}, spec or {})[cfg["hostname"]]


def render_switches(cfgs, spec):
    """{host: {file name: text}} of the switches ``cfgs`` ({host: structured config}): every switch's input checked
    against pyavd's eos_cli_config_gen schema first; any problem raises AvdSchemaError naming switch and key, before
    anything is rendered or written."""
    lanes_by_model = {}
    validated, problems = {}, []
    for host, cfg in cfgs.items():
        if cfg["model"] not in lanes_by_model:
            lanes_by_model[cfg["model"]] = cage_lanes(cfg, spec)
        validated[host], found = validate(host, avd_input.structured(cfg, lanes_by_model[cfg["model"]]))
        problems += found
    if problems:
        raise AvdSchemaError(problems)
    return {host: {FILE: text(validated[host])} for host in cfgs}
