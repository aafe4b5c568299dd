"""The config a SONiC switch should run: its running config_db with our tables put in.

Tables we own (templates/sonic/config_db.schema.yml) are replaced whole, or removed when the build
has none (but a group of tables, such as QoS, that the device's build does not render at all stays
as the switch has it); tables the platform shares with us (PORT lanes, DEVICE_METADATA mac) keep the platform's
fields and take ours on top. ``config replace`` then applies only the difference.
"""
from ..validate.parsers import bgp_summary
from .sonic_schema import owned_tables, table_groups

BGP_GATES = ("auto", "all", "established_before")


def target_config(running, rendered):
    replaced, merged = owned_tables()
    groups = table_groups()
    rendered_groups = {groups[table] for table in rendered if table in groups}
    replaced = {table for table in replaced if table not in groups or groups[table] in rendered_groups}
    target = {table: rows for table, rows in running.items() if table not in replaced}
    for table, rows in rendered.items():
        if table in merged:
            combined = {key: dict(fields) for key, fields in target.get(table, {}).items()}
            for key, fields in rows.items():
                combined.setdefault(key, {}).update(fields)
            target[table] = combined
        else:
            target[table] = rows
    return target


def established_sessions(summary_text):
    """Peer addresses in state Established, from ``vtysh -c 'show bgp summary json'``. Anything that
    is not such a summary (bgpd not running yet, an error text) means no session is Established."""
    try:
        peers = bgp_summary(summary_text)["peers"]
    except (ValueError, AttributeError, TypeError):
        return []
    return sorted(addr for addr, peer in peers.items() if peer["state"] == "Established")


def required_sessions(planned, summary_before, gate="auto"):
    """Which of the ``planned`` neighbour addresses must be Established after a change, else the
    switch rolls back: ``all``; ``established_before`` (those up before the change); ``auto`` = all on a
    running fabric (any planned session was up), else established_before (a first bring-up, whose
    peers may not be configured yet)."""
    if gate not in BGP_GATES:
        raise ValueError("sonic_deploy_bgp_gate: %r is not one of %s" % (gate, ", ".join(BGP_GATES)))
    planned = list(planned or [])
    before = set(established_sessions(summary_before))
    was_up = [addr for addr in planned if addr in before]
    if gate == "all" or (gate == "auto" and was_up):
        return planned
    return was_up
