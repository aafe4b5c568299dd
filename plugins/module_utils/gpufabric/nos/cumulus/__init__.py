"""Cumulus Linux's home (NVIDIA Spectrum switches): everything the collection knows that is specific to
Cumulus Linux (docs/spectrum-x.md).

- nvue.py: a structured config rendered as the NVUE object tree of a startup.yaml; render.py: as its text, the
  fabric's switches checked together
- schema.py: the schema gate, NVIDIA's NVUE object model of the chosen release (nvueschema, strict)
- nvue_client.py, deploy.py: the deploy flow over the NVUE REST API; twin/: the twin's stand-in for that API
- tenancy.py: which tenant each port of a running rail leaf is bound to (tenants.yml reads the leaves)

Neutral code reaches this module through ``nos_registry.home("cumulus")``; it imports only neutral code.
"""
from ...frr_linux import bgp as bgp_gate  # noqa: F401  (interface: Cumulus Linux routes with FRR)
from ...frr_linux import drain  # noqa: F401  (interface: its RUNNING_MARKER tells a drained switch)
from . import collectors, deploy, tenancy  # noqa: F401  (interface)
from .nvue import RENDERED_RELEASES, check_rendered, startup  # noqa: F401  (interface)
from .render import (CONFIG_FILES, FILE, ROLES, check_role, documents, release_of, render_device,  # noqa: F401
                     render_switches, text)
from .schema import (DEFAULT_RELEASE, NvueSchemaError, check_release, load_startup, problems,  # noqa: F401
                     releases, validate_many)

NAME = "cumulus"
# The structured config schema version this home reads (structured/switch.py).
STRUCTURED_SCHEMA = (1, 0)


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
