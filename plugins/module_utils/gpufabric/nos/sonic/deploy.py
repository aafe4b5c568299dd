"""The config a SONiC switch should run: its running config_db with our tables put in.

The running config is what ``show runningconfiguration all`` prints: CONFIG_DB's tables, and beside them what
that command adds that is not CONFIG_DB (``NOT_CONFIG_DB``), which stays out of the target. Tables we own
(nos/sonic/templates/config_db.schema.yml) are replaced whole, or removed when the build
has none (but a group of tables, such as QoS, that the device's build does not render at all stays
as the switch has it); tables the platform shares with us (PORT lanes, DEVICE_METADATA mac) keep the platform's
fields and take ours on top. ``config replace`` then applies only the difference.
"""
from .schema import owned_tables, table_groups

# What `show runningconfiguration all` adds to CONFIG_DB's tables on a single-ASIC switch (sonic-utilities
# show/main.py: FRR's running config as one string). GCU reads CONFIG_DB without it (gu_common.get_config_db_as_json),
# so a `config replace` target holding it changes a table without a YANG model, which GCU refuses.
NOT_CONFIG_DB = ("bgpraw",)


def running_config_db(running):
    """CONFIG_DB's tables of ``running`` (``show runningconfiguration all`` as data): what ``config replace`` compares
    a target with."""
    return {table: rows for table, rows in running.items() if table not in NOT_CONFIG_DB}


def target_config(running, rendered):
    replaced, merged = owned_tables()
    groups = table_groups()
    rendered_groups = {groups[table] for table in rendered if table in groups}
    replaced = {table for table in replaced if table not in groups or groups[table] in rendered_groups}
    target = {table: rows for table, rows in running_config_db(running).items() if table not in replaced}
    for table, rows in rendered.items():
        if table in merged:
            combined = {key: dict(fields) for key, fields in target.get(table, {}).items()}
            for key, fields in rows.items():
                combined.setdefault(key, {}).update(fields)
            target[table] = combined
        else:
            target[table] = rows
    return target
