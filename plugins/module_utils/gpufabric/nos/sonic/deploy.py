"""The config a SONiC switch should run: its running config_db with our tables put in.

Tables we own (nos/sonic/templates/config_db.schema.yml) are replaced whole, or removed when the build
has none (but a group of tables, such as QoS, that the device's build does not render at all stays
as the switch has it); tables the platform shares with us (PORT lanes, DEVICE_METADATA mac) keep the platform's
fields and take ours on top. ``config replace`` then applies only the difference.
"""
from .schema import owned_tables, table_groups


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
