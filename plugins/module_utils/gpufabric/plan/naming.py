"""Hostnames: a pattern per role (the spec's `cluster.hostnames`, else a default for the design),
filled with the device's position; two devices never get one name."""
import re

from ..errors import SpecError

# RFC 1123 labels, lowercase: what switch NOSes, DNS and Ansible inventories all accept.
_HOSTNAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")


def default_patterns(sizing):
    cluster = "{cluster}"
    rail = "-r{rail}" if sizing.design == "rail_planes" else ""
    frontend = sizing.frontend
    if sizing.nic_planes > 1:
        # multi-plane NICs: each plane's switches carry it, so two planes' leaf r0 of unit 1 differ
        rail = "-p{fplane}"
    return {
        "server": cluster + "-gpu{n:04d}",
        "backend_leaf": cluster + ("-tor{n:03d}" if sizing.design == "top_of_rack" else
                                   ("-p{fplane}" if sizing.nic_planes > 1 else "") + "-r{rail}-leaf{n:02d}"),
        "backend_spine": cluster + rail + ("-pod{pod:02d}" if sizing.backend.tiers >= 3 else "") + "-spine{n:02d}",
        "backend_superspine": cluster + rail + ("-z{zone:02d}" if sizing.backend.tiers == 4 else "")
        + "-ssp{plane}-{n:02d}",
        "backend_core": cluster + rail + "-core{plane}-{n:02d}",
        "frontend_leaf": cluster + "-fe-leaf{n:02d}{side}",
        "frontend_spine": cluster + "-fe" + ("-pod{pod:02d}" if frontend and frontend.tiers == 3 else "")
        + "-spine{n:02d}",
        "frontend_superspine": cluster + "-fe-ssp{plane}-{n:02d}",
        "backend_host": cluster + "-{host}{n:02d}",
        "oob_switch": cluster + "-oob-{rack}" + ("-{n}" if sizing.oob_switches_per_rack > 1 else ""),
    }


class Namer:
    def __init__(self, spec, sizing):
        self.cluster = spec["cluster"]["name"]
        chosen = {role: pattern for role, pattern in spec["cluster"]["hostnames"].items() if pattern}
        self.patterns = dict(default_patterns(sizing), **chosen)
        self._taken = {}

    def name(self, role, **fields):
        pattern = self.patterns[role]
        fields["cluster"] = self.cluster
        try:
            name = pattern.format_map(fields)
        except (KeyError, IndexError, ValueError, AttributeError) as exc:
            raise SpecError("cluster.hostnames." + role, "cannot use %r (%s: %s); fields for this role: %s" % (
                pattern, type(exc).__name__, exc, ", ".join("{%s}" % k for k in sorted(fields))))
        if not _HOSTNAME.match(name):
            raise SpecError("cluster.hostnames." + role, "pattern %r gives %r, not a valid host name: use lowercase "
                            "letters, digits and dashes, at most 63, no dash at either end" % (pattern, name))
        other = self._taken.get(name)
        if other is not None:
            raise SpecError("cluster.hostnames." + role, "pattern %r gives the name %r to two devices (%s and %s): "
                            "add {n} or another field that tells them apart" % (pattern, name, other, role))
        self._taken[name] = role
        return name
