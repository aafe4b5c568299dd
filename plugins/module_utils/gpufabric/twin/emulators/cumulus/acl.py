"""NVUE's ipv4 ACLs of an applied revision as nftables on a Cumulus switch of the twin: the control-plane ACL on the
switch's input hook (table ``inet gpufabric_cp``), ACLs bound ``inbound`` to ports on each port's ingress hook (table
``netdev gpufabric_acl``), rules in rule-number order, first match decides, every rule counted."""
from .frr import Unsupported

CP_TABLE = "inet gpufabric_cp"
PORT_TABLE = "netdev gpufabric_acl"


def _nft_match(match, where, family):
    """nft match expressions of one NVUE ACL rule's ``match``."""
    ip = dict(match.get("ip") or {})
    if set(match) - {"ip"}:
        raise Unsupported("%s.match.%s: only ip matches on the twin" % (where, sorted(set(match) - {"ip"})[0]))
    parts = ["meta protocol ip" if family == "netdev" else "meta nfproto ipv4"]
    for key, nft in (("source-ip", "ip saddr"), ("dest-ip", "ip daddr")):
        value = ip.pop(key, None)
        if value not in (None, "ANY"):
            parts.append("%s %s" % (nft, value))
    proto = ip.pop("protocol", None)
    if proto is not None:
        if proto not in ("tcp", "udp", "icmp"):
            raise Unsupported("%s.match.ip.protocol %s: tcp, udp or icmp on the twin" % (where, proto))
        parts.append("ip protocol %s" % proto)
    for l4 in ("tcp", "udp"):
        ports = ip.pop(l4, None)
        if ports is None:
            continue
        if proto != l4 or set(ports) - {"dest-port", "source-port"}:
            raise Unsupported("%s.match.ip.%s: dest-port/source-port with protocol %s" % (where, l4, l4))
        for key, nft in (("source-port", "sport"), ("dest-port", "dport")):
            if ports.get(key):
                numbers = sorted(ports[key], key=lambda p: int(p) if str(p).isdigit() else 0)
                if not all(str(p).isdigit() for p in numbers):
                    raise Unsupported("%s.match.ip.%s.%s: port numbers on the twin" % (where, l4, key))
                parts.append("%s %s { %s }" % (l4, nft, ", ".join(str(p) for p in numbers)))
    if ip:
        raise Unsupported("%s.match.ip.%s: not modelled on the twin" % (where, sorted(ip)[0]))
    return parts


def _nft_rules(config, name, family):
    acl = (config.get("acl") or {}).get(name)
    if acl is None:
        raise Unsupported("acl %s is bound but not defined" % name)
    if acl.get("type") != "ipv4":
        raise Unsupported("acl.%s.type %s: only ipv4 ACLs on the twin" % (name, acl.get("type")))
    out = []
    for number, rule in sorted((acl.get("rule") or {}).items(), key=lambda kv: int(kv[0])):
        where = "acl.%s.rule.%s" % (name, number)
        action = rule.get("action") or {}
        if set(action) - {"permit", "deny"} or len(action) != 1:
            raise Unsupported("%s.action: permit or deny on the twin" % where)
        verdict = "accept" if "permit" in action else "drop"
        out.append("  %s counter %s comment \"%s rule %s\"" % (" ".join(_nft_match(rule.get("match") or {}, where, family)),
                                                               verdict, name, number))
    return out


def nft_script(config, ports):
    """One nft transaction replacing the switch's ACL tables with ``config``'s (``ports``: the ports that
    exist in the namespace; a binding to another is an uncabled port of the switch and has nothing to filter)."""
    lines = []
    for table in (CP_TABLE, PORT_TABLE):
        lines += ["table %s {}" % table, "delete table %s" % table]
    cp = ((config.get("system") or {}).get("control-plane") or {}).get("acl") or {}
    chain = []
    for name, binding in sorted(cp.items()):
        if set(binding) != {"inbound"}:
            raise Unsupported("system.control-plane.acl.%s: inbound only on the twin" % name)
        chain += _nft_rules(config, name, "inet")
    lines += ["table %s {" % CP_TABLE, " chain input {", "  type filter hook input priority 0; policy accept;"]
    lines += chain + [" }", "}"]
    port_chains = []
    for port, conf in sorted((config.get("interface") or {}).items()):
        bound = conf.get("acl") or {}
        for name, binding in sorted(bound.items()):
            if set(binding) != {"inbound"}:
                raise Unsupported("interface.%s.acl.%s: inbound only on the twin" % (port, name))
        if not bound or port not in ports:
            continue
        rules = []
        for name in sorted(bound):
            rules += _nft_rules(config, name, "netdev")
        port_chains += [" chain %s {" % port, "  type filter hook ingress device \"%s\" priority 0; policy accept;" % port]
        port_chains += rules + [" }"]
    lines += ["table %s {" % PORT_TABLE] + port_chains + ["}"]
    return "\n".join(lines) + "\n"
