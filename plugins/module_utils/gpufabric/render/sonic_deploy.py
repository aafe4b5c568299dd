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


def _peer_states(summary_text):
    """{peer address: state} from ``vtysh -c 'show bgp summary json'``; anything that is not such a
    summary (bgpd not running yet, an error text) has no peers."""
    try:
        peers = bgp_summary(summary_text)["peers"]
    except (ValueError, AttributeError, TypeError):
        return {}
    return {addr: peer["state"] for addr, peer in peers.items()}


def established_sessions(summary_text):
    """Peer addresses in state Established, from ``vtysh -c 'show bgp summary json'``."""
    return sorted(addr for addr, state in _peer_states(summary_text).items() if state == "Established")


def required_sessions(planned, summary_before, gate="auto"):
    """Which of the ``planned`` neighbour addresses must be Established after a change, else the
    switch rolls back: ``all``; ``established_before`` (those up before the change); ``auto``: on a
    running fabric (a planned session was up) every planned session the switch already had before the
    change, up or not; a session this change adds is not required, since its far end may not be deployed
    yet (growth: a spine gains the sessions of leaves racked after it; validation checks them). On a
    first bring-up (nothing was up), established_before."""
    if gate not in BGP_GATES:
        raise ValueError("sonic_deploy_bgp_gate: %r is not one of %s" % (gate, ", ".join(BGP_GATES)))
    planned = list(planned or [])
    states = _peer_states(summary_before)
    was_up = [addr for addr in planned if states.get(addr) == "Established"]
    if gate == "all":
        return planned
    if gate == "auto" and was_up:
        return [addr for addr in planned if addr in states]
    return was_up
