"""What the NVUE REST API emulator checks a revision against: NVIDIA's NVUE object model of the switch's release
(the nvueschema package's generated classes, read here directly: not the deploy's schema gate), or the model's top
level when that is absent; and at apply, the dependencies NVIDIA's guide shows failing. Also how the switch reads
its startup.yaml (YAML 1.2: NVUE's on/off stay strings)."""
import functools
import importlib.util
import json
import re
import sys

DEFAULT_RELEASE = "5.14"
# The top-level objects of the NVUE object model (user guide, "NVUE API", Supported Objects), the
# fallback check when NVIDIA's models (the nvueschema package) are absent.
ROOT_OBJECTS = ("acl", "bridge", "evpn", "interface", "maintenance", "mlag", "nve", "platform", "qos", "router",
                "service", "system", "vrf")
MODELS = "nvueschema.models"


def _subtree(tree, keys):
    for key in keys:
        if not isinstance(tree, dict) or key not in tree:
            return None
        tree = tree[key]
    return tree


def model_releases():
    """The releases whose NVUE model nvueschema holds (none when it is not installed)."""
    try:
        return tuple(importlib.import_module(MODELS + "._versions").VERSIONS)
    except ImportError:
        return ()


@functools.lru_cache(maxsize=None)
def _switch_model(release):
    """NVIDIA's root configuration class of ``release``, from the emulator's own copy of nvueschema's generated
    module (loaded under a name of its own, so that what the switch refuses is set on its classes only, never on the
    classes the deploy's gate loads): a switch refuses keys its model does not declare, which the generated classes
    would let through, so each of them forbids them here."""
    from pydantic import BaseModel

    found = importlib.util.find_spec("%s.v%s" % (MODELS, release.replace(".", "_")))
    name = "_gpufabric_twin_nvue_model_v" + release.replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, found.origin)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module   # the classes' forward references resolve in their own module
    spec.loader.exec_module(module)
    own = [v for v in vars(module).values()
           if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == name]
    for cls in own:
        cls.model_config["extra"] = "forbid"
    for cls in own:   # in the module's order, the classes a class uses first
        cls.model_rebuild(force=True)
    return module.NvueConfig


def _where(config, loc):
    """The path into ``config`` an error's location names: its steps that are keys of the data (the rest name the
    union member or type pydantic tried)."""
    path, node = [], config
    for step in loc:
        if isinstance(node, dict) and str(step) in node:
            path.append(str(step))
            node = node[str(step)]
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            path.append(str(step))
            node = node[step]
    return ".".join(path)


def model_problems(hostname, config, release):
    """[] or one line per place NVIDIA's model of ``release`` refuses ``config`` (no coercion: "9216" is not 9216)."""
    from pydantic import ValidationError

    model = _switch_model(release)
    try:
        model.model_validate_json(json.dumps(config), strict=True)
    except ValidationError as exc:
        said = {}
        for error in exc.errors():
            where = _where(config, error["loc"])
            said.setdefault(where, (error.get("input"), []))[1].append(error["msg"])
        return ["%s: revision set.%s = %s: refused by NVUE %s's object model (%s)"
                % (hostname, where, json.dumps(value)[:60] if not isinstance(value, (dict, list)) else "{...}",
                   release, "; ".join(messages)) for where, (value, messages) in said.items()]
    return []


def schema_validator(release=DEFAULT_RELEASE):
    """The check of a candidate configuration: NVIDIA's NVUE object model of ``release`` (strict), else the
    object model's top level only."""
    if release in model_releases():
        def check(hostname, config):
            return model_problems(hostname, config, release)
        check("boot", {})  # the model loads now, as a switch loads its object model when it boots, not mid-request
        return check

    def top_level(hostname, config):
        return ["%s: revision set.%s: not an object of the NVUE model (it has %s)" % (hostname, key, ", ".join(ROOT_OBJECTS))
                for key in sorted(config) if key not in ROOT_OBJECTS]
    return top_level


@functools.lru_cache(maxsize=1)
def _yaml_1_2():
    import yaml

    class Loader(yaml.SafeLoader):
        """YAML 1.2's core schema for booleans: true/false only (NVUE's on, off, yes, no are strings)."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(true|True|TRUE|false|False|FALSE)$"),
                                 list("tTfF"))
    return Loader


def startup_documents(text):
    """The documents of a startup.yaml as the switch reads them."""
    import yaml

    return yaml.load(text, Loader=_yaml_1_2())  # noqa: S506 - a SafeLoader


def dependency_issues(config):
    """What NVUE refuses at apply although every field is valid, as the guide's examples show it."""
    issues = []
    bgp = _subtree(config, ("router", "bgp")) or {}
    if bgp.get("enable") == "on" and not bgp.get("router-id"):
        vrfs = config.get("vrf") or {}
        missing = [name for name, vrf in sorted(vrfs.items())
                   if (_subtree(vrf, ("router", "bgp")) or {}).get("enable") == "on"
                   and not (_subtree(vrf, ("router", "bgp")) or {}).get("router-id")]
        if missing or not vrfs:
            issues.append(("router.bgp.enable", "BGP requires router-id to be set globally or in the VRF.\n"))
    return issues
