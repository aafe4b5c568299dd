"""SONiC's data-plane ACL tables on the twin: the rendered (or running) config_db's L3 ingress ACLs as the rule
text of the twin's nftables port filters (twin/nftables.py loads them).

Read from ACL_TABLE rows of type L3 and their ACL_RULE rows, so the twin enforces what a switch would be given.
Semantics followed (sonic-acl.yang, SONiC's ACL design document and its vendors' guides, see docs/twin.md): a
table is bound to the ports listed in ``ports`` at its ``stage``; its rules are tried by PRIORITY, highest first,
and the first match decides (FORWARD or DROP); a packet no rule matches is forwarded; IP_TYPE IPV4ANY matches
every IPv4 packet and nothing else (ARP passes). Every rule counts its hits, as SONiC's ACL counters do. Ingress
ACLs act on a packet as it enters the port, before routing, whether it is routed on or addressed to the switch
itself: nftables' netdev ingress hook is that point. Fields the stand-in cannot enforce faithfully are refused
rather than ignored; CTRLPLANE tables guard the switch's services, not its ports, and are left out.
"""
from ... import nftables

MATCHES = {"DST_IP": "ip daddr %s", "SRC_IP": "ip saddr %s"}
ACTIONS = {"FORWARD": "accept", "DROP": "drop"}
IP_TYPES = {"IPV4ANY": "meta protocol ip", "IPV4": "meta protocol ip", "IP": "meta protocol ip"}
KNOWN_RULE_FIELDS = set(MATCHES) | {"PRIORITY", "PACKET_ACTION", "IP_TYPE"}


class AclError(ValueError):
    """An ACL the stand-in cannot enforce as SONiC would; the message names the table and rule."""


def _rule(table, name, row):
    unknown = sorted(set(row) - KNOWN_RULE_FIELDS)
    if unknown:
        raise AclError("ACL_RULE %s|%s: the twin cannot enforce %s" % (table, name, ", ".join(unknown)))
    if row.get("PACKET_ACTION") not in ACTIONS:
        raise AclError("ACL_RULE %s|%s: PACKET_ACTION %r is not FORWARD or DROP" % (table, name, row.get("PACKET_ACTION")))
    words = []
    if "IP_TYPE" in row:
        if row["IP_TYPE"] not in IP_TYPES:
            raise AclError("ACL_RULE %s|%s: IP_TYPE %r is not modelled" % (table, name, row["IP_TYPE"]))
        words.append(IP_TYPES[row["IP_TYPE"]])
    for field in sorted(MATCHES):
        if field in row:
            words.append(MATCHES[field] % row[field])
    words += ["counter", ACTIONS[row["PACKET_ACTION"]], 'comment "%s"' % name]
    return " ".join(words)


def port_acls(config_db):
    """{port: [(table, [nft rule text in precedence order])]} of the data-plane ingress ACLs."""
    rules = {}
    for key, row in (config_db.get("ACL_RULE") or {}).items():
        table, name = key.split("|", 1)
        rules.setdefault(table, []).append((-int(row.get("PRIORITY", 0)), name, row))
    out = {}
    for table, row in sorted((config_db.get("ACL_TABLE") or {}).items()):
        if row.get("type") == "CTRLPLANE":
            continue   # the control plane's ACLs guard the switch's services, not its ports
        if row.get("type") != "L3" or row.get("stage", "ingress").lower() != "ingress":
            raise AclError("ACL_TABLE %s: type %s stage %s is not modelled by the twin (L3 ingress only)"
                           % (table, row.get("type"), row.get("stage")))
        ordered = [_rule(table, name, r) for _p, name, r in sorted(rules.get(table, []))]
        for port in row.get("ports") or ():
            out.setdefault(port, []).append((table, ordered))
    return out


def port_rules(config_db):
    """{port: [nft rule text in precedence order]}: one L3 ingress table per port, as the twin models it."""
    acls = port_acls(config_db)
    out = {}
    for port in sorted(acls):
        if len(acls[port]) > 1:
            raise AclError("port %s is bound to %d L3 ingress ACL tables (%s); the twin models one per port"
                           % (port, len(acls[port]), ", ".join(t for t, _r in acls[port])))
        out[port] = acls[port][0][1]
    return out


def ruleset(config_db):
    """The nft script that makes a namespace hold exactly the config_db's port ACLs (twin/nftables.py)."""
    return nftables.ruleset(port_rules(config_db))
