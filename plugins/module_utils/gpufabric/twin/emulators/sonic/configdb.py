"""A switch's SONiC databases in redis, encoded as SONiC's swsscommon ConfigDBConnector encodes them.

SONiC numbers its databases in one redis (database_config.json): APPL_DB 0, ASIC_DB 1, COUNTERS_DB 2,
LOGLEVEL_DB 3, CONFIG_DB 4, FLEX_COUNTER_DB 5, STATE_DB 6. A CONFIG_DB row TABLE|key is a redis hash;
a list value is kept in field "<name>@" as the items joined by ","; a row without fields is the one field
"NULL" = "NULL". APPL_DB joins table and key with ":", the others with "|".
"""
import collections
import copy

DATABASES = {"APPL_DB": 0, "ASIC_DB": 1, "COUNTERS_DB": 2, "LOGLEVEL_DB": 3, "CONFIG_DB": 4,
             "FLEX_COUNTER_DB": 5, "STATE_DB": 6}
SEPARATORS = {"APPL_DB": ":"}


def to_raw(row):
    """A CONFIG_DB row (config_db.json form) as the redis hash SONiC stores."""
    raw = {}
    for field, value in (row or {}).items():
        if isinstance(value, list):
            raw[field if field.endswith("@") else field + "@"] = ",".join(str(v) for v in value)
        else:
            raw[field] = str(value)
    return raw or {"NULL": "NULL"}


def from_raw(raw):
    """A redis hash of CONFIG_DB as the config_db.json row."""
    row = {}
    for field, value in raw.items():
        if field == "NULL":
            continue
        if field.endswith("@"):
            row[field[:-1]] = value.split(",") if value else []
        else:
            row[field] = value
    return row


class MemoryConfigDb:
    """CONFIG_DB as a dict, for unit tests of what writes through it (same interface as RedisConfigDb)."""

    def __init__(self, config=None):
        self.config = copy.deepcopy(config or {})
        self.writes = []

    def get_config(self):
        return copy.deepcopy(self.config)

    def set_entry(self, table, key, row):
        self.writes.append((table, key, row))
        if row is None:
            self.config.get(table, {}).pop(key, None)
            if table in self.config and not self.config[table]:
                del self.config[table]
        else:
            self.config.setdefault(table, {})[key] = copy.deepcopy(row)


class RedisConfigDb:
    """One switch's CONFIG_DB (or another of its databases) in redis over a unix socket."""

    def __init__(self, socket_path, db="CONFIG_DB"):
        import redis  # only where a twin switch's redis is used
        self.name, self.separator = db, SEPARATORS.get(db, "|")
        self.client = redis.Redis(unix_socket_path=socket_path, db=DATABASES[db], decode_responses=True)

    def get_config(self):
        config = {}
        keys = sorted(self.client.scan_iter(count=1000))
        pipe = self.client.pipeline(transaction=False)
        for key in keys:
            pipe.hgetall(key)
        for key, raw in zip(keys, pipe.execute()):
            table, sep, name = key.partition(self.separator)
            if sep:
                config.setdefault(table, {})[name] = from_raw(raw)
        return config

    def set_entry(self, table, key, row):
        name = table + self.separator + key
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(name)
        if row is not None:
            pipe.hset(name, mapping=to_raw(row))
        pipe.execute()

    def load(self, config):
        """Replace the whole database with ``config`` (what `sonic-cfggen -j file --write-to-db` after a flush
        does in `config reload`)."""
        pipe = self.client.pipeline(transaction=True)
        pipe.flushdb()
        for table, rows in config.items():
            for key, row in rows.items():
                pipe.hset(table + self.separator + key, mapping=to_raw(row))
        pipe.execute()


def sort_dict(data):
    """sonic-utilities' sort_dict: keys in order at every level, as `config save` writes config_db.json."""
    if isinstance(data, dict):
        return collections.OrderedDict((k, sort_dict(data[k])) for k in sorted(data))
    return data


def mod_config(db, config):
    """sonic-cfggen --write-to-db: ConfigDBConnector.mod_config, each row's fields merged into what is there."""
    current = db.get_config()
    for table, rows in config.items():
        for key, row in rows.items():
            merged = dict(current.get(table, {}).get(key, {}))
            merged.update(row or {})
            db.set_entry(table, key, merged)
