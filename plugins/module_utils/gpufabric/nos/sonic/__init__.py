"""SONiC's home: everything the collection knows that is specific to SONiC.

- render.py, config_db.py, platform.py (+ platforms.yml), ranges.py, templates/: a structured config
  rendered as config_db.json and frr.conf
- schema.py (+ templates/config_db.schema.yml) and yang/: the schema gates (table formats; SONiC YANG)
- deploy.py: what a deploy sends (the running config_db, without what `show runningconfiguration all` adds to it,
  with our tables put in); deploy_read.py: the deploy's one read of a switch and what it decides from it (action
  sonic_deploy_read); roles/sonic_deploy runs them
- collectors.py: the switch's own command output (sonic-cfggen) turned into the neutral facts validation checks
- tenancy.py: which tenant each port of a running rail leaf is bound to (tenants.yml reads the leaves)
- ztp.py: ZTP artefacts (ztp.json, the config_db and FRR files it hands out)

Neutral code reaches this module through ``nos_registry.home("sonic")``; the names below are the home's interface.
"""
from ...frr_linux import bgp as bgp_gate  # noqa: F401  (interface: SONiC's BGP is FRR's)
from ...frr_linux import drain  # noqa: F401  (interface)
from . import collectors  # noqa: F401  (interface)
from . import deploy  # noqa: F401  (interface)
from . import deploy_read  # noqa: F401  (interface)
from . import tenancy  # noqa: F401  (interface)
from .config_db import config_db as native_config  # noqa: F401  (interface)
from .deploy import running_config_db, target_config  # noqa: F401  (interface)
from .render import frr_conf, render_device  # noqa: F401  (interface)
from .ztp import config_problems as ztp_config_problems  # noqa: F401  (interface)
from .ztp import port_aliases  # noqa: F401  (interface)
from .ztp import switch_files as ztp_switch_files  # noqa: F401  (interface)
from .ztp import boot_option as ztp_boot_option  # noqa: F401  (interface)

NAME = "sonic"
# The version of the structured config schema (structured/switch.py) this home is written against.
STRUCTURED_SCHEMA = (1, 0)
# The files render_device writes per switch, under devices/<host>/.
CONFIG_FILES = ("config_db.json", "frr.conf")


def render_switches(cfgs, spec):
    """{host: {file name: text}} of the switches ``cfgs`` ({host: structured config}) of one fabric."""
    return {host: render_device(cfg) for host, cfg in cfgs.items()}


def check_configs(models_dir, cfgs):
    """{host: structured config} checked against SONiC's YANG models in ``models_dir``: [] or problems, each
    naming switch, table, key, field and rule."""
    from . import yang  # libyang only where validation is asked for
    return yang.validate_many(models_dir, {host: native_config(cfg) for host, cfg in cfgs.items()})


def yang_problems(config, models_dir, device="config_db"):
    """One config_db (dict) checked against the YANG models in ``models_dir``; raises ValueError (yang.ModelsError)
    when the models cannot be loaded."""
    from . import yang  # libyang only where validation is asked for
    return yang.validate(yang.load(models_dir), config, device)


def gcu_load_plan(running, target, sonic_version, load_tables):
    """What the Generic Config Updater would refuse of ``target`` over ``running`` on a switch of ``sonic_version``
    (its sonic_version.yml as data), and which new rows go in first with config load: the deploy's own pre-check
    of GCU's field-operation checks (gcu_precheck.py; the twin's GCU emulator judges it, written apart). Raises
    ValueError on a change it cannot read."""
    from . import gcu_precheck
    return gcu_precheck.load_plan(running, target, sonic_version or {}, list(load_tables))
