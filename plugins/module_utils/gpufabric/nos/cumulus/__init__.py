"""Cumulus Linux's home (NVIDIA Spectrum switches): everything the collection knows that is specific to
Cumulus Linux (docs/spectrum-x.md).

- nvue.py: a structured config rendered as the NVUE object tree of a startup.yaml
- schema.py: the schema gate, NVIDIA's NVUE object model of the chosen release (nvueschema, strict)
- nvue_client.py, deploy.py: the deploy flow over the NVUE REST API; twin/: the twin's stand-in for that API
- tenancy.py: which tenant each port of a running rail leaf is bound to (tenants.yml reads the leaves)

Neutral code reaches this module through ``nos.home("cumulus")``; it imports only neutral code.
"""
from .. import DEFAULT_NOS
from . import collectors, tenancy  # noqa: F401  (interface)
from ...errors import SpecError
from ...render import yaml_text
from .nvue import RENDERED_RELEASES, check_rendered, startup  # noqa: F401  (interface)
from .schema import (DEFAULT_RELEASE, NvueSchemaError, check_release, load_startup, problems,  # noqa: F401
                     releases, validate_many)

NAME = "cumulus"
# The structured config schema version this home reads (structured/switch.py).
STRUCTURED_SCHEMA = (1, 0)
FILE = "startup.yaml"
# The files render_device writes per switch, under devices/<host>/.
CONFIG_FILES = (FILE,)
# Roles whose structured config this renderer turns into NVUE (every switch role of the plan); another
# role is refused, not half rendered.
ROLES = ("backend_leaf", "backend_spine", "backend_superspine", "backend_core", "frontend_leaf", "frontend_spine",
         "frontend_superspine", "oob_switch")


def release_of(spec):
    """The Cumulus Linux release of a fabric (``switch_config.cumulus_release``)."""
    return (spec.get("switch_config") or {}).get("cumulus_release") or DEFAULT_RELEASE


def check_role(cfg, key="nos"):
    if cfg["role"] not in ROLES:
        raise SpecError(key, "%s (%s) would run Cumulus Linux, which this collection renders only for %s so far: "
                        "set nos: %s on that role" % (cfg["hostname"], cfg["role"], ", ".join(ROLES), DEFAULT_NOS))


def documents(cfg, release=DEFAULT_RELEASE):
    """The startup.yaml documents of one switch (a list of `- header:` / `- set:`), unchecked."""
    check_role(cfg)
    check_release(release)
    check_rendered(release)
    return startup(cfg, release)


def text(cfg, docs, release=DEFAULT_RELEASE):
    """The text of one switch's startup.yaml: its documents in block YAML whose strings are quoted wherever
    YAML 1.1 would read them otherwise, so NVUE (YAML 1.2) and Ansible/PyYAML (1.1) read the same values."""
    return "# %s: NVUE startup configuration (Cumulus Linux %s), rendered by gpucluster.fabric\n%s" % (
        cfg["hostname"], release, yaml_text.dump(docs))


def render_device(cfg, release=DEFAULT_RELEASE):
    """{file name: text} for one switch (unchecked: render_switches checks a fabric's switches at once)."""
    return {FILE: text(cfg, documents(cfg, release), release)}


def render_switches(cfgs, spec):
    """{host: {file name: text}} of the switches ``cfgs`` ({host: structured config}), every startup.yaml
    checked against NVIDIA's NVUE object model of the spec's release; one that fails raises NvueSchemaError
    naming switch, path and NVIDIA's field type, before anything is written."""
    release = release_of(spec)
    docs = {host: documents(cfg, release) for host, cfg in cfgs.items()}
    found = validate_many(docs, release)
    if found:
        raise NvueSchemaError(found, release)
    return {host: {FILE: text(cfgs[host], docs[host], release)} for host in cfgs}


def check_configs(models_dir, cfgs):
    """The build's external-models gate (its yang_models directory): nothing to add here, since every startup.yaml
    is checked against NVIDIA's NVUE model by render_switches, whenever it is rendered."""
    return []


# ZTP (ztp.py), loaded when provisioning asks for it.
def ztp_switch_files(cfgs, settings, spec=None):
    from . import ztp
    return ztp.switch_files(cfgs, settings, spec)


def ztp_boot_option(host, settings):
    from . import ztp
    return ztp.boot_option(host, settings)


def port_aliases(native_by_host):
    from . import ztp
    return ztp.port_aliases(native_by_host)


def ztp_config_problems(native_by_host, models_dir):
    from . import ztp
    return ztp.config_problems(native_by_host, models_dir)


def twin_plane():
    """The twin's Cumulus switches (twin/plane.py of this home: the NVUE API stand-in of each switch, applying
    into its namespace): twin/ reaches it here, through nos.home("cumulus"), and loads it only when the twin runs."""
    from .twin import plane
    return plane
