"""What the NVUE REST API stand-in checks a revision against: this home's schema gate (NVIDIA's NVUE object model), or
the model's top level when that is absent; and at apply, the dependencies NVIDIA's guide shows failing."""
DEFAULT_RELEASE = "5.14"
# The top-level objects of the NVUE object model (user guide, "NVUE API", Supported Objects), the
# fallback check when NVIDIA's models (the nvueschema package, behind this home's schema gate) are absent.
ROOT_OBJECTS = ("acl", "bridge", "evpn", "interface", "maintenance", "mlag", "nve", "platform", "qos", "router",
                "service", "system", "vrf")


def _subtree(tree, keys):
    for key in keys:
        if not isinstance(tree, dict) or key not in tree:
            return None
        tree = tree[key]
    return tree


def schema_validator(release=DEFAULT_RELEASE):
    """The check of a candidate configuration: this home's schema gate (NVIDIA's NVUE object model of
    ``release`` through nvueschema, strict), else the object model's top level only."""
    try:
        from ....nos.cumulus import schema
    except ImportError:
        schema = None
    if schema is not None and release in schema.releases():
        def check(hostname, config):
            return schema.problems([{"set": config}], hostname, release, source="revision")
        check("boot", {})  # the models load now, as a switch loads its object model when it boots, not mid-request
        return check

    def top_level(hostname, config):
        return ["%s: revision set.%s: not an object of the NVUE model (it has %s)" % (hostname, key, ", ".join(ROOT_OBJECTS))
                for key in sorted(config) if key not in ROOT_OBJECTS]
    return top_level


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
