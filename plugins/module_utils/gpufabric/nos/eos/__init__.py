"""Arista EOS's home: everything the collection knows that is specific to EOS (docs/eos.md).

- avd_input.py, avd_qos.py: a structured config as the input of AVD's eos_cli_config_gen (pyavd's schema keys)
- render.py: that input validated by pyavd's own schema and rendered by pyavd's own templates, a fabric's switches
  checked together before anything is written
- deploy.py: a configuration session per change over a napalm eos driver (session diff, commit timer, BGP gate,
  confirm or roll back, the deploy's record in the running config and the hand-change guard); bgp.py: the BGP gate's
  reader of eAPI JSON; drain.py: the drain's lines; collectors.py: validation's observations over eAPI JSON
- tenancy.py: which tenant each port of a running rail leaf is bound to (tenants.yml reads the leaves)

ZTP comes next (docs/eos.md, "What comes next"); tests/unit/test_home_contract.py names each
piece still missing.

Neutral code reaches this module through ``nos_registry.home("eos")``; it imports only neutral code.
"""
from . import bgp as bgp_gate  # noqa: F401  (interface: eAPI's JSON read as the BGP gate's facts)
from . import collectors, deploy, drain, tenancy  # noqa: F401  (interface)
from .render import (AVD_VERSION, CONFIG_FILES, FILE, AvdSchemaError, eos_input, render_device,  # noqa: F401
                     render_switches, validate)

NAME = "eos"
# The structured config schema version this home reads (structured/switch.py).
STRUCTURED_SCHEMA = (1, 0)


def check_configs(models_dir, cfgs):
    """The build's external-models gate: nothing to add, since every EOS input is checked against pyavd's
    eos_cli_config_gen schema by render_switches, whenever it is rendered."""
    return []


def __getattr__(name):
    """A piece this home does not have yet, asked for by a playbook (ztp.yml, validate.yml, drain.yml on an EOS
    switch): one line naming it and what needs it, instead of Python's bare "has no attribute"."""
    from ...home_contract import NEEDED_BY
    if name in NEEDED_BY:
        raise AttributeError("nos eos: %s is not built yet, so %s does not run on EOS switches (issue 43's next parts, "
                             "docs/eos.md \"What comes next\")" % (name, NEEDED_BY[name]))
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
