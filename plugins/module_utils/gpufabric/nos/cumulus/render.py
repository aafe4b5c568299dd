"""A Cumulus Linux switch's startup.yaml: its NVUE documents (nvue.py) as text, and a fabric's switches rendered
and checked against NVIDIA's NVUE object model at once (schema.py)."""
from ...errors import SpecError
from ...nos_registry import DEFAULT_NOS
from ...render import yaml_text
from .nvue import check_rendered, startup
from .schema import DEFAULT_RELEASE, NvueSchemaError, check_release, validate_many

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
