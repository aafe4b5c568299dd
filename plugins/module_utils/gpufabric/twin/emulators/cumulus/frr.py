"""The FRR configuration a Cumulus Linux switch runs for an applied NVUE configuration.

On Cumulus Linux, NVUE owns FRR: an apply renders /etc/frr/frr.conf from the NVUE object tree and
reloads FRR with frr-reload.py (user guide 5.14, "NVUE CLI": do not edit frr.conf while NVUE manages
it). This module is the twin's version of that rendering, for the objects the collection's builds set:
``router bgp``, the default VRF's BGP (peer groups, numbered neighbours, timers, BFD, multipath, networks,
aggregates, redistribution, outbound policy), tenant VRFs' BGP (their connected routes, route leaking to and
from the default VRF by route-map), prefix lists, community lists and route maps. An object it has no FRR form
for raises Unsupported naming its NVUE path: the apply fails, nothing half done. The twin runs each tenant VRF
in a namespace of its own (twin/vrf.py, docs/twin.md); this is the file a switch's FRR is given.
"""
import re


class Unsupported(ValueError):
    """An NVUE object the twin cannot turn into FRR configuration (its path in the message)."""


def _on(value):
    return value in ("on", "enabled", "enable")


def _num(key):
    return int(key) if str(key).isdigit() else key


def _prefix_lists(policy):
    lines = []
    for name, plist in sorted((policy.get("prefix-list") or {}).items()):
        if plist.get("type", "ipv4") != "ipv4":
            raise Unsupported("router.policy.prefix-list.%s.type: only ipv4 on the twin" % name)
        for seq, rule in sorted((plist.get("rule") or {}).items(), key=lambda kv: _num(kv[0])):
            for prefix, match in sorted((rule.get("match") or {}).items()):
                text = "ip prefix-list %s seq %s %s %s" % (name, seq, rule.get("action", "permit"), prefix)
                if "min-prefix-len" in match:
                    text += " ge %s" % match["min-prefix-len"]
                if "max-prefix-len" in match:
                    text += " le %s" % match["max-prefix-len"]
                lines.append(text)
    return lines


def _community_lists(policy):
    lines = []
    for name, clist in sorted((policy.get("community-list") or {}).items()):
        for seq, rule in sorted((clist.get("rule") or {}).items(), key=lambda kv: _num(kv[0])):
            communities = " ".join(sorted(rule.get("community") or {}))
            lines.append("bgp community-list standard %s seq %s %s %s"
                         % (name, seq, rule.get("action", "permit"), communities))
    return lines


def _route_maps(policy):
    lines = []
    for name, rmap in sorted((policy.get("route-map") or {}).items()):
        for seq, rule in sorted((rmap.get("rule") or {}).items(), key=lambda kv: _num(kv[0])):
            where = "router.policy.route-map.%s.rule.%s" % (name, seq)
            action = rule.get("action") or {}
            verb = "deny" if "deny" in action else "permit"
            lines.append("route-map %s %s %s" % (name, verb, seq))
            for key, value in sorted((rule.get("match") or {}).items()):
                if key == "type":
                    continue
                if key == "ip-prefix-list":
                    lines.append(" match ip address prefix-list %s" % value)
                elif key == "community-list":
                    lines.append(" match community %s" % value)
                elif key == "source-vrf":
                    lines.append(" match source-vrf %s" % value)
                else:
                    raise Unsupported("%s.match.%s: no FRR form on the twin" % (where, key))
            for key, value in sorted((rule.get("set") or {}).items()):
                if key == "as-path-prepend":
                    lines.append(" set as-path prepend %s" % " ".join(str(value.get("as", "")).split(",")))
                elif key == "community":
                    lines.append(" set community %s additive" % " ".join(sorted(value)))
                else:
                    raise Unsupported("%s.set.%s: no FRR form on the twin" % (where, key))
            lines.append("exit")
            lines.append("!")
    return lines


def _neighbor_lines(name, conf, where, is_group):
    lines = []
    if is_group:
        lines.append(" neighbor %s peer-group" % name)
    if conf.get("remote-as") is not None:
        lines.append(" neighbor %s remote-as %s" % (name, conf["remote-as"]))
    if conf.get("peer-group"):
        lines.append(" neighbor %s peer-group %s" % (name, conf["peer-group"]))
    if conf.get("description"):
        lines.append(" neighbor %s description %s" % (name, conf["description"]))
    if conf.get("type", "numbered") != "numbered":
        raise Unsupported("%s.type %s: only numbered neighbours on the twin" % (where, conf["type"]))
    timers = conf.get("timers") or {}
    if timers:
        lines.append(" neighbor %s timers %s %s" % (name, timers.get("keepalive", 3), timers.get("hold", 9)))
    bfd = conf.get("bfd") or {}
    if _on(bfd.get("enable")):
        lines.append(_bfd_line(name, bfd, where))
    return lines


# bfdd's defaults: multiplier 3, receive and transmit intervals 300 ms (FRR 8.4 lib/bfd.h).
BFD_DEFAULTS = (3, 300, 300)


def _bfd_line(name, bfd, where):
    """The neighbour's BFD line as FRR 8.4 with bfdd shows it: `neighbor X bfd` alone (bgpd's
    bgp_bfd_peer_config_write writes no timers; they belong in a bfdd profile). A line FRR shows otherwise
    is deleted and added again by every frr-reload, and taking BFD away resets every BGP session over it.
    Other timers than bfdd's defaults would need a BFD profile, which this rendering does not model."""
    timers = tuple(int(bfd.get(key, default)) for key, default in zip(
        ("detect-multiplier", "min-rx-interval", "min-tx-interval"), BFD_DEFAULTS))
    if timers != BFD_DEFAULTS:
        raise Unsupported("%s.bfd: only bfdd's default timers (detect-multiplier 3, min-rx-interval and "
                          "min-tx-interval 300) on the twin, not %d/%d/%d" % ((where,) + timers))
    return " neighbor %s bfd" % name


def _af_neighbor_lines(name, conf, where):
    lines = []
    af = (conf.get("address-family") or {}).get("ipv4-unicast") or {}
    if _on(af.get("enable")):
        lines.append("  neighbor %s activate" % name)
    allow = (af.get("aspath") or {}).get("allow-my-asn") or {}
    if _on(allow.get("enable")):
        lines.append("  neighbor %s allowas-in %s" % (name, allow.get("occurrences", 1)))
    policy = af.get("policy") or {}
    for direction, key in (("inbound", "in"), ("outbound", "out")):
        rmap = (policy.get(direction) or {}).get("route-map")
        if rmap:
            lines.append("  neighbor %s route-map %s %s" % (name, rmap, key))
    for other in sorted(set(af) - {"enable", "aspath", "policy"}):
        raise Unsupported("%s.address-family.ipv4-unicast.%s: no FRR form on the twin" % (where, other))
    return lines


def _import_lines(af, where, peers):
    """VRF route leaking (``route-import.from-vrf``) as FRR shows it, last in the address family: the route-map, then
    each VRF (``peers``: the VRFs a tenant VRF may import from)."""
    imports = af.get("route-import") or {}
    if not imports:
        return []
    source = imports.get("from-vrf") or {}
    if set(imports) != {"from-vrf"} or not _on(source.get("enable")):
        raise Unsupported("%s.address-family.ipv4-unicast.route-import: only from-vrf, enabled, on the twin" % where)
    lines = ["  import vrf route-map %s" % source["route-map"]] if source.get("route-map") else []
    for name in sorted(source.get("list") or {}):
        if name not in peers:
            raise Unsupported("%s.address-family.ipv4-unicast.route-import.from-vrf.list.%s: no such VRF" % (where, name))
        lines.append("  import vrf %s" % name)
    return lines


def _router_bgp(bgp, asn, router_id, where, vrf_name, peers):
    """One ``router bgp`` block: the default VRF's (``vrf_name`` None) or a tenant VRF's."""
    lines = ["router bgp %s%s" % (asn, " vrf %s" % vrf_name if vrf_name else ""), " bgp router-id %s" % router_id]
    groups = {name: dict(conf) for name, conf in (bgp.get("peer-group") or {}).items()}
    neighbors = {name: dict(conf) for name, conf in (bgp.get("neighbor") or {}).items()}
    if vrf_name and (groups or neighbors):
        raise Unsupported("%s.neighbor: a tenant VRF's own BGP neighbours are not modelled on the twin" % where)
    if not vrf_name:
        lines.append(" no bgp default ipv4-unicast")
    multipath = (bgp.get("path-selection") or {}).get("multipath") or {}
    if _on(multipath.get("aspath-ignore")):
        lines.append(" bgp bestpath as-path multipath-relax")
    for name, conf in neighbors.items():
        if conf.get("peer-group") and conf["peer-group"] not in groups:
            raise Unsupported("%s.neighbor.%s.peer-group %s: no such peer group" % (where, name, conf["peer-group"]))
    # FRR keeps one remote-as per peer group or per member, never both: where a member states its own (which
    # NVUE lets override the group's), the group's is given to each member that states none.
    for group, conf in groups.items():
        members = [n for n in neighbors.values() if n.get("peer-group") == group]
        if conf.get("remote-as") is not None and any(m.get("remote-as") is not None for m in members):
            for member in members:
                member.setdefault("remote-as", conf["remote-as"])
            conf.pop("remote-as")
    for name, conf in sorted(groups.items()):
        lines += _neighbor_lines(name, conf, "%s.peer-group.%s" % (where, name), True)
    for name, conf in sorted(neighbors.items()):
        lines += _neighbor_lines(name, conf, "%s.neighbor.%s" % (where, name), False)
    af = (bgp.get("address-family") or {}).get("ipv4-unicast") or {}
    if _on(af.get("enable")):
        lines += [" !", " address-family ipv4 unicast"]
        for prefix in sorted(af.get("network") or {}):
            lines.append("  network %s" % prefix)
        for prefix, agg in sorted((af.get("aggregate-route") or {}).items()):
            lines.append("  aggregate-address %s%s" % (prefix, " summary-only" if _on(agg.get("summary-only")) else ""))
        for source, redist in sorted((af.get("redistribute") or {}).items()):
            if _on(redist.get("enable")):
                rmap = redist.get("route-map")
                lines.append("  redistribute %s%s" % (source, " route-map %s" % rmap if rmap else ""))
        for name, conf in sorted((bgp.get("peer-group") or {}).items()):
            lines += _af_neighbor_lines(name, conf, "%s.peer-group.%s" % (where, name))
        for name, conf in sorted((bgp.get("neighbor") or {}).items()):
            lines += _af_neighbor_lines(name, conf, "%s.neighbor.%s" % (where, name))
        ebgp = (af.get("multipaths") or {}).get("ebgp")
        if ebgp:
            lines.append("  maximum-paths %s" % ebgp)
        lines += _import_lines(af, where, peers)
        lines.append(" exit-address-family")
    lines += ["exit", "!"]
    return lines


def _bgp(config):
    """``router bgp`` of the default VRF, then one block per tenant VRF with BGP (``vrf.<name>.router.bgp``: its
    connected routes, its imports from the default VRF); the default VRF's ``route-import`` leaks theirs in. How the
    twin runs a tenant VRF (a namespace of its own) is twin/vrf.py's: this is the file a switch's FRR is given."""
    router = (config.get("router") or {}).get("bgp") or {}
    vrfs = config.get("vrf") or {}
    bgp = ((vrfs.get("default") or {}).get("router") or {}).get("bgp") or {}
    if not (_on(router.get("enable")) and _on(bgp.get("enable", "on")) and router.get("autonomous-system")):
        return []
    tenant = {name: (conf.get("router") or {}).get("bgp") for name, conf in vrfs.items()
              if name not in ("default", "mgmt") and _on(((conf.get("router") or {}).get("bgp") or {}).get("enable", "on"))
              and (conf.get("router") or {}).get("bgp")}
    router_id = bgp.get("router-id") or router.get("router-id")
    lines = _router_bgp(bgp, router["autonomous-system"], router_id, "vrf.default.router.bgp", None, set(tenant))
    for name in sorted(tenant):
        conf = tenant[name]
        lines += _router_bgp(conf, conf.get("autonomous-system") or router["autonomous-system"],
                             conf.get("router-id") or router_id, "vrf.%s.router.bgp" % name, name, {"default"})
    return lines


def _static(config):
    lines = []
    for vrf, conf in sorted((config.get("vrf") or {}).items()):
        routes = ((conf.get("router") or {}).get("static")) or {}
        if routes and vrf != "mgmt":
            raise Unsupported("vrf.%s.router.static: only the management VRF's routes on the twin" % vrf)
    return lines


def frr_conf(config, hostname):
    """The frr.conf of an applied NVUE configuration ``config`` (the `set` tree). The management VRF's
    default route is the management network's (docs/twin.md): the twin's management port is not in a VRF."""
    policy = (config.get("router") or {}).get("policy") or {}
    lines = ["frr defaults datacenter", "hostname %s" % hostname, "log syslog informational",
             "service integrated-vtysh-config", "!"]
    for block in (_prefix_lists(policy), _community_lists(policy)):
        if block:
            lines += block + ["!"]
    lines += _route_maps(policy)
    lines += _static(config)
    lines += _bgp(config)
    return "\n".join(lines) + "\n"


def daemons(config):
    """The FRR daemons an applied configuration needs (FRR's /etc/frr/daemons as NVUE enables them)."""
    text = frr_conf(config, "x")
    wanted = ["zebra"]
    if "router bgp " in text:
        wanted.append("bgpd")
    if re.search(r"^ neighbor \S+ bfd\b", text, re.M):
        wanted.append("bfdd")
    return wanted
