"""Checks a rendered config_db against nos/sonic/templates/config_db.schema.yml (table and key formats).

The same file says which tables are ours and which the platform shares (``merge: true``); deploy
reads that split from here, so there is one list of tables, not two.
"""
import functools
import os

# PyYAML and jsonschema are imported where used: Ansible's import sanity test loads module_utils
# without third-party packages.

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "templates", "config_db.schema.yml")


@functools.lru_cache(maxsize=1)
def _tables():
    import yaml

    with open(SCHEMA_PATH, encoding="utf-8") as f:
        return yaml.safe_load(f)["tables"]


def _value(rule):
    if rule == "list":
        return {"type": "array", "items": {"type": "string"}, "minItems": 1}
    return {"type": "string", "pattern": "^(%s)$" % rule}


def _table(spec):
    row = {"type": "object", "additionalProperties": False,
           "patternProperties": {"^(%s)$" % field: _value(rule) for field, rule in spec["fields"].items()}}
    return {"type": "object", "minProperties": 1, "propertyNames": {"pattern": "^(%s)$" % spec["key"]},
            "additionalProperties": row}


@functools.lru_cache(maxsize=1)
def validator():
    import jsonschema

    tables = _tables()
    schema = {"type": "object", "additionalProperties": False,
              "properties": {name: _table(spec) for name, spec in tables.items()}}
    return jsonschema.Draft7Validator(schema)


def check_config_db(doc):
    """Messages naming the table, row and field of every format error; empty when the document is valid."""
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path) or "(top)", e.message)
            for e in sorted(validator().iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))]


def owned_tables():
    """(tables replaced whole, tables merged row by row) on deploy."""
    tables = _tables()
    return (sorted(n for n, s in tables.items() if not s.get("merge")),
            sorted(n for n, s in tables.items() if s.get("merge")))


def table_groups():
    """table -> its group (e.g. qos) for the tables deploy owns only where the build renders that group."""
    return {name: spec["group"] for name, spec in _tables().items() if spec.get("group")}
