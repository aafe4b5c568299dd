"""Port ACLs of a twin switch as nftables: the filter a NOS's twin stand-in loads for the ACLs its switch enforces.

A NOS's emulator turns its switch's ACLs into rule text per port (e.g. twin/emulators/<nos>/acl.py; docs/twin.md
for each NOS's semantics); this module makes a namespace hold exactly those: one table, one chain on the netdev ingress
hook of each bound port (the point where a packet enters the port, before routing, whether it is routed on or
addressed to the switch), its rules in the order given, the first match deciding, unmatched packets accepted.

The whole table is replaced in one `nft -f` transaction; its comment carries a digest of the ruleset,
so a second apply compares digests and changes nothing.
"""
import hashlib

from .run import run, run_many

TABLE = "gpufabric_acl"


def ruleset(port_rules):
    """The nft script that makes a namespace hold exactly ``port_rules`` ({port: [nft rule text in precedence
    order]}); with none, it removes the table."""
    reset = "table netdev %s\ndelete table netdev %s\n" % (TABLE, TABLE)
    if not port_rules:
        return reset
    body = []
    for port in sorted(port_rules):
        body.append('  chain %s {\n    type filter hook ingress device "%s" priority 0; policy accept;\n%s  }\n'
                    % (port, port, "".join("    %s\n" % r for r in port_rules[port])))
    text = "".join(body)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return reset + 'table netdev %s {\n  comment "gpufabric %s"\n%s}\n' % (TABLE, digest, text)


def digest_of(text):
    """The digest a ruleset (or `nft list table` output) carries, or None."""
    marker = 'comment "gpufabric '
    at = text.find(marker)
    return text[at + len(marker):].split('"', 1)[0] if at >= 0 else None


def current(namespaces):
    """{ns: `nft list table` text, or "" when the namespace has no ACL table}."""
    names = sorted(namespaces)
    results = run_many([(["ip", "netns", "exec", ns, "nft", "list", "table", "netdev", TABLE], None)
                        for ns in names], check=False)
    return {ns: proc.stdout if proc.returncode == 0 else "" for ns, proc in zip(names, results)}


def needs_change(wanted, have):
    """Whether a namespace holding ``have`` (listing text) must load ``wanted`` (a ruleset)."""
    if digest_of(wanted) is None:
        return bool(have)
    return digest_of(have) != digest_of(wanted)


def apply(wanted):
    """Make each namespace hold its ruleset ({ns: ruleset text}); returns the changes made."""
    have = current(wanted)
    todo = sorted(ns for ns, text in wanted.items() if needs_change(text, have[ns]))
    run_many([(["ip", "netns", "exec", ns, "nft", "-f", "-"], wanted[ns]) for ns in todo])
    return ["%s: port ACLs %s" % (ns, "loaded" if digest_of(wanted[ns]) else "removed") for ns in todo]


def apply_local(text):
    """The same for the namespace this process runs in (a NOS stand-in's command); returns changed."""
    have = run(["nft", "list", "table", "netdev", TABLE], check=False)
    if not needs_change(text, have.stdout if have.returncode == 0 else ""):
        return False
    run(["nft", "-f", "-"], text)
    return True
