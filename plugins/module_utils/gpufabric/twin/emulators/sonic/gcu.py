"""The twin's stand-in for SONiC's Generic Config Updater (GCU), behind `config apply-patch`, `config replace`
and `config rollback`, held to sonic-utilities' generic_config_updater (releases in gcu_releases.yml).

What GCU does, in its order, and so what this does:
1. the target is the running CONFIG_DB with the RFC 6902 patch applied (`jsonpatch`, what GCU uses);
2. every operation of the difference running -> target passes the field-operation checks: removing
   /LOOPBACK_INTERFACE/Loopback0 or /PFC_WD/GLOBAL is refused, a data ACL rule may not change while its
   table's type does, and each table's validators (the RDMA ones per release and ASIC, PORT's fec/speed
   against STATE_DB) must all say yes;
3. no table of the target may be empty (CONFIG_DB cannot hold one);
4. the patch may touch only tables with a YANG model, and the whole target (tables without a model left
   out) must validate against the models, lanes unique and BGP peer ranges not duplicated;
5. the changes are written key by key, each row that differs set whole or deleted (GCU's ChangeApplier), in
   the order GCU's patch sorter gives them (gcu_moves.py): a row whose create-only field changes deleted and
   added back with what refers to it, a port held admin down around its QoS rows' changes, tables a row of
   another table refers to (a YANG leafref) before it on add and after it on delete;
6. CONFIG_DB must then equal the target, except BUFFER_PG, BUFFER_PROFILE and FLEX_COUNTER_TABLE, which
   buffermgrd and flex counters rewrite (GCU leaves them out of the check).
Nothing is written before steps 1-4 pass. Like GCU, a failure during step 5 does not undo what was
written: `config rollback <checkpoint>` does, as on a switch.
"""
import copy
import functools
import json
import os
import re

try:
    import jsonpatch
    import jsonpointer
except ImportError:  # Ansible's import sanity test loads module_utils without third-party packages.
    jsonpatch = jsonpointer = None

from .gcu_moves import flaps, ordered_changes, recreated, references, table_order  # noqa: F401 -- table_order: API


RULES = os.path.join(os.path.dirname(__file__), "gcu_releases.yml")
CHECKPOINT_EXT = ".cp.json"
# GCU's own list (gu_common.validate_field_operation): removals refused on every release and platform.
REMOVE_FORBIDDEN = ("/PFC_WD/GLOBAL/POLL_INTERVAL", "/PFC_WD/GLOBAL", "/LOOPBACK_INTERFACE/Loopback0")
# Tables daemons rewrite after GCU writes them (change_applier.ChangeApplier.backend_tables).
BACKEND_TABLES = ("BUFFER_PG", "BUFFER_PROFILE", "FLEX_COUNTER_TABLE")
# Platforms whose ports share lanes, exempt from the unique-lane check (gu_common.validate_lanes).
DUPLICATE_LANE_PLATFORMS = ("x86_64-arista_7050cx3_32c", "x86_64-arista_7050cx3_32s", "x86_64-dellemc_s5232f_c3538-r0")
DEFAULT_SUPPORTED_FECS = ("rs", "fc", "none", "auto")
VALIDATOR_MODULE = "generic_config_updater.field_operation_validators"


class GcuError(Exception):
    """A refusal or failure, its text as GCU's exception says it."""


class IllegalPatchOperation(GcuError):
    pass


class EmptyTable(GcuError):
    pass


@functools.lru_cache(maxsize=1)
def _rules():
    import yaml  # here, not at the top: Ansible's import sanity test loads module_utils without PyYAML

    with open(RULES, encoding="utf-8") as f:
        return yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))["releases"]


def releases():
    return sorted(_rules())


class Switch:
    """What GCU reads about the switch it runs on besides CONFIG_DB: the release (which rules), sonic_version's
    asic_type and build_version, and PORT_TABLE's supported fecs/speeds in STATE_DB."""

    def __init__(self, release, asic_type, build_version="", state_ports=None, chassis=False):
        rules = _rules()
        if release not in rules:
            raise GcuError("SONiC release %s is not modelled: use one of %s" % (release, ", ".join(sorted(rules))))
        self.release, self.rules = release, rules[release]
        self.asic_type, self.build_version = asic_type, build_version or ""
        self.state_ports, self.chassis = state_ports or {}, chassis

    def asic(self, hwsku):
        """GCU's get_asic_name: the ASIC short name from asic_type and the hwsku, or "unknown"."""
        if self.asic_type in ("cisco-8000", "marvell-teralynx"):
            return self.asic_type
        sku = (hwsku or "").lower()
        if self.asic_type in ("mellanox", "vs"):
            for asic, skus in self.rules["asics"]["mellanox"].items():
                if sku in (s.lower() for s in skus):
                    return asic
        if self.asic_type in ("broadcom", "vs"):
            for asic, skus in self.rules["asics"]["broadcom"].items():
                if any(s.lower() in sku for s in skus):
                    return asic
        return "unknown"

    def branch_version(self):
        """The last 8-digit part of build_version ("20220531" of "20220531.28"), or None: then no date check."""
        found = [part for part in self.build_version.split(".") if re.fullmatch(r"\d{8}", part)]
        return found[-1] if found else None


# --- field-operation validators (generic_config_updater/field_operation_validators.py) -------------------------

def _patch_fields(element, remove_port):
    parts = jsonpointer.JsonPointer(element["path"]).parts[1:]
    if remove_port:
        parts = [p for p in parts if not any(c.isdigit() for c in p)]
    field = "/".join(parts).lower()
    value = element.get("value")
    if isinstance(value, dict):
        return [field + "/" + key if field else key for key in value]
    return [field]


def _rdma_common(switch, hwsku, element, exact, remove_port):
    asic = switch.asic(hwsku)
    if asic == "unknown":
        return False
    table = jsonpointer.JsonPointer(element["path"]).parts[0]
    scenarios = switch.rules["tables"][table].get("scenarios", {})
    branch = switch.branch_version()
    for field in _patch_fields(element, remove_port):
        scenario = None
        for candidate in scenarios.values():
            if any(field == f if exact else field.rsplit("/", maxsplit=1)[-1] == f for f in candidate["fields"]):
                scenario = candidate
                break
        if scenario is None or not scenario["platforms"].get(asic) or element["op"] not in scenario["operations"]:
            return False
        if branch is not None and branch < scenario["platforms"][asic]:
            return False
    return True


def _port_field_ok(switch, field, port, value):
    state = switch.state_ports.get(port, {})
    if field == "fec":
        text = state.get("supported_fecs")
        allowed = ([f.strip() for f in text.split(",")] if text != "N/A" else []) if text else DEFAULT_SUPPORTED_FECS
        return str(value).strip() in allowed
    if switch.chassis:
        return True
    try:
        speeds = [int(s) for s in (state.get("supported_speeds") or "").split(",") if s]
        return not speeds or int(value) in speeds
    except ValueError:
        return False


def _port_validator(switch, hwsku, element):
    if element["op"] == "remove":
        return True
    path, value = element["path"], element.get("value")
    port = (re.search(r"Ethernet\d+", path) or [None])[0]
    for field in ("fec", "speed"):
        if field not in json.dumps(element):
            continue
        if path.endswith(field):
            if not _port_field_ok(switch, field, port, value):
                return False
        elif isinstance(value, dict):
            if field in value:
                if not _port_field_ok(switch, field, port, value[field]):
                    return False
            else:
                for name, row in value.items():
                    if isinstance(row, dict) and field in row and not _port_field_ok(switch, field, name, row[field]):
                        return False
    return True


VALIDATORS = {
    "rdma_config_update_validator": lambda s, h, e: _rdma_common(s, h, e, exact=True, remove_port=True),
    "wred_profile_config_update_validator": lambda s, h, e: _rdma_common(s, h, e, exact=False, remove_port=False),
    "buffer_profile_config_update_validator":
        lambda s, h, e: (e["op"] in ("add", "remove", "replace") if len(jsonpointer.JsonPointer(e["path"]).parts) == 2
                         else _rdma_common(s, h, e, exact=False, remove_port=False)),
    "port_config_update_validator": _port_validator,
}


def _data_acl_check(old, new):
    old_tables, new_tables = old.get("ACL_TABLE", {}), new.get("ACL_TABLE", {})
    typed = [t for t in set(old_tables) & set(new_tables)
             if old_tables[t].get("type") and old_tables[t]["type"] != "CTRLPLANE"
             and new_tables[t].get("type") and new_tables[t]["type"] != "CTRLPLANE"
             and old_tables[t]["type"] != new_tables[t]["type"]]
    old_rules, new_rules = old.get("ACL_RULE", {}), new.get("ACL_RULE", {})
    for key in sorted(set(old_rules) | set(new_rules)):
        if key.split("|")[0] in typed and old_rules.get(key, {}) != new_rules.get(key, {}):
            raise IllegalPatchOperation("Modification of dataacl rule %s is illegal: acl table type changed in %s"
                                        % (key, typed))


def field_operation_refusals(switch, old, target):
    """[(operation, path, GCU's text)] of every operation of old -> target that GCU's field-operation checks
    refuse (GCU itself stops at the first)."""
    # jsonpatch builds the diff from sets of keys, so its order changes from one process to the next
    # (hash seeds); taken in path order, the same change always meets the same first refusal.
    patch = sorted(jsonpatch.JsonPatch.from_diff(old, target), key=lambda op: op["path"])
    found = [(op["op"], op["path"], "Given patch operation is invalid. Operation: remove is illegal on field: %s"
              % op["path"]) for op in patch if op["op"] == "remove" and op["path"] in REMOVE_FORBIDDEN]
    try:
        _data_acl_check(old, target)
    except IllegalPatchOperation as e:
        found.append(("replace", "/ACL_RULE", str(e)))
    hwsku = old.get("DEVICE_METADATA", {}).get("localhost", {}).get("hwsku", "")
    for op in patch:
        match = re.search(r"/([^/]+)(/|$)", op["path"])
        if match is None:
            raise GcuError("Invalid jsonpatch path: %s" % op["path"])
        table = match.group(1)
        for name in switch.rules["tables"].get(table, {}).get("validators", []):
            if not VALIDATORS[name](switch, hwsku, op):
                found.append((op["op"], op["path"], "Modification of %s table is illegal- validating function %s.%s "
                              "returned False" % (table, VALIDATOR_MODULE, name)))
                break
    return found


def validate_field_operation(switch, old, target):
    """GCU's ConfigWrapper.validate_field_operation: raises IllegalPatchOperation with GCU's text."""
    found = field_operation_refusals(switch, old, target)
    if found:
        raise IllegalPatchOperation(found[0][2])


def release_of(build_version):
    """The release branch in a SONiC build_version: its 6-digit part ("SONiC.202511.0" -> "202511"), else the year
    and month of its 8-digit branch date, the date GCU holds to the per-ASIC minimums ("SONiC.20250530.12" ->
    "202505": the minimums are written as such dates, "20221100" for branch 202211 on), or None."""
    parts = [p for p in re.split(r"[.\-_]", str(build_version or "")) if p.isdigit()]
    found = [p for p in parts if len(p) == 6] or [p[:6] for p in parts if len(p) == 8]
    return found[0] if found else None


def refusals(running, target, sonic_version):
    """What `config replace` of ``target`` would refuse on a switch running ``running`` whose
    /etc/sonic/sonic_version.yml says ``sonic_version`` (build_version, asic_type): ["<op> <path> - <GCU's
    text>"], [] when nothing, None when its release is not modelled (gcu_releases.yml)."""
    release = release_of((sonic_version or {}).get("build_version"))
    if release not in releases():
        return None
    switch = Switch(release, sonic_version.get("asic_type", ""), str(sonic_version.get("build_version", "")))
    return ["%s %s - %s" % found for found in field_operation_refusals(switch, running, target)]


def new_rows(running, target, tables):
    """{table: {key: row}} of the rows of ``tables`` that ``target`` has and ``running`` has not (whole new
    keys; a field edit of an existing row is not one)."""
    found = {}
    for table in tables:
        have = running.get(table, {})
        rows = {key: row for key, row in target.get(table, {}).items() if key not in have}
        if rows:
            found[table] = rows
    return found


def load_plan(running, target, sonic_version, load_tables):
    """How a change GCU refuses in part can still be made without a reload: {"load": {table: {key: row}},
    "load_keys": ["TABLE|key", ...], "refused": [...]}. "load" holds the new rows of ``load_tables`` that GCU would
    refuse to add (a PFC watchdog on a port, on a SKU GCU does not list) and that SONiC's own CLI writes to
    CONFIG_DB directly (`config pfcwd start` does): they go in first with `config load`, after which
    `config replace` of the target no longer touches them. "refused" is what GCU would still refuse once they
    are in (refusals() of the rest): the change then stops before anything is written. "refused" is None
    when the switch's release is not modelled (its own GCU decides) and "load" is then empty. "flaps": the ports
    GCU takes admin down and back up during the change (around their QoS rows' changes), "recreated": the rows
    ("TABLE|key") it deletes and adds back (a create-only field changes), gcu_moves.py; [] when not modelled."""
    refused = refusals(running, target, sonic_version)
    if refused is None:
        return {"load": {}, "load_keys": [], "refused": None, "flaps": [], "recreated": []}
    sorter = _rules()[release_of(sonic_version.get("build_version"))]["sorter"]
    effects = {"flaps": flaps(running, target, sorter),
               "recreated": ["%s|%s" % row for row in recreated(running, target, sorter["create_only"])]}
    load = new_rows(running, target, load_tables) if refused else {}
    if load:
        # refusals() only reads: new dicts where the rows go in, the rest shared with ``running``. (A deep copy
        # costs seconds when the filter gets Ansible's lazy containers.)
        preloaded = dict(running)
        for table, rows in load.items():
            preloaded[table] = dict(running.get(table, {}), **rows)
        refused = refusals(preloaded, target, sonic_version)
        if refused:          # the rest is refused anyway: write nothing, not even the rows that could go in
            load = {}
    keys = ["%s|%s" % (table, key) for table in sorted(load) for key in sorted(load[table])]
    return dict(effects, load=load, load_keys=keys, refused=refused)


# --- whole-target checks -------------------------------------------------------------------------------------

def empty_tables(config):
    return [t for t in config if not config[t]]


def _lanes(config):
    ports, seen = config.get("PORT", {}), {}
    for port, row in ports.items():
        if "lanes" not in row:
            continue
        for lane in (x.strip() for x in row["lanes"].split(",")):
            if not lane:
                return "PORT '%s' has an empty lane" % port
            if not lane.isdigit():
                return "PORT '%s' has an invalid lane '%s'" % (port, lane)
            if config.get("DEVICE_METADATA", {}).get("localhost", {}).get("platform") in DUPLICATE_LANE_PLATFORMS:
                continue
            if lane in seen:
                return "'%s' lane is used multiple times in PORT: %s" % (lane, {port, seen[lane]})
            seen[lane] = port
    return None


def _peer_ranges(config):
    seen = {}
    for name, row in config.get("BGP_PEER_RANGE", {}).items():
        parts = name.split("|")
        vrf = parts[0] if len(parts) > 1 else "default"
        for ip in row.get("ip_range", []):
            if (ip, vrf) in seen:
                return "%s with vrf %s is duplicated in BGP_PEER_RANGE: %s" % (ip, vrf, {name, seen[(ip, vrf)]})
            seen[(ip, vrf)] = name
    return None


def validate_target(models, target):
    """(valid, error) of a whole target config as GCU's validate_config_db_config: tables without a YANG model
    left out, then YANG, unique lanes, BGP peer ranges."""
    from .yang_check import problems as yang_problems
    problems = yang_problems(models, {t: rows for t, rows in target.items() if t in models.tables})
    if problems:
        return False, problems[0]
    for check in (_peer_ranges, _lanes):
        error = check(target)
        if error:
            return False, error
    return True, None


# --- the updater over a CONFIG_DB -----------------------------------------------------------------------------

class Updater:
    """GCU over one switch's CONFIG_DB (``db``: get_config() and set_entry(table, key, row or None)) with
    its checkpoints under ``checkpoints_dir``. ``log`` receives GCU's progress lines."""

    def __init__(self, db, switch, models, checkpoints_dir, log=None):
        """``models``: the loaded YANG models, or a callable that loads them when first needed (a checkpoint,
        a save or a listing does not need them)."""
        if jsonpatch is None:
            raise GcuError("the SONiC twin needs the Python packages jsonpatch and jsonpointer (requirements.txt)")
        self.db, self.switch, self._models, self.checkpoints_dir = db, switch, models, checkpoints_dir
        self.log = log or (lambda line: None)
        self._order = None

    @property
    def models(self):
        if callable(self._models):
            self._models = self._models()
        return self._models

    def running(self):
        config = self.db.get_config()
        config.pop("bgpraw", None)
        return config

    def apply_patch(self, patch):
        patch = patch if isinstance(patch, jsonpatch.JsonPatch) else jsonpatch.JsonPatch(patch)
        self.log("Patch Applier: localhost: Patch application starting.")
        self.log("Patch Applier: localhost: Patch: %s" % patch.to_string())
        old = self.running()
        try:
            target = patch.apply(copy.deepcopy(old))
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as e:
            raise GcuError(str(e)) from e
        validate_field_operation(self.switch, old, target)
        empty = empty_tables(target)
        if empty:
            raise EmptyTable("localhost: given patch is not valid because it will result in empty tables which is not "
                             "allowed in ConfigDb. Table%s: %s" % ("s" if len(empty) != 1 else "", ", ".join(empty)))
        touched = {jsonpointer.JsonPointer(op["path"]).parts[0] for op in patch if op["path"] not in ("", "/")}
        for op in patch:
            if op["path"] in ("", "/"):
                touched.update(op.get("value") or {})
        if any(t not in self.models.tables for t in touched):
            raise GcuError("Given patch is not valid because it has changes to tables without YANG models")
        valid, error = validate_target(self.models, target)
        if not valid:
            raise GcuError("Given patch will produce invalid config. Error: %s" % error)
        changes = self._changes(old, target)
        self.log("Patch Applier: The localhost patch was converted into %d change%s%s"
                 % (len(changes), "s" if len(changes) != 1 else "", ":" if changes else "."))
        for table, key, row in changes:
            self.log("  * %s %s/%s" % ("remove" if row is None else "set", table, key))
            self.db.set_entry(table, key, row)
        new = self.running()
        if _without_backend(new) != _without_backend(target):
            raise GcuError("localhost: after applying patch to config, there are still some parts not updated")
        self.log("Patch Applier: localhost patch application completed.")
        return changes

    def _changes(self, old, target):
        """[(table, key, row or None)] in GCU's order (gcu_moves.ordered_changes)."""
        if self._order is None:
            self._order = table_order(self.models)
        return ordered_changes(old, target, self.switch.rules["sorter"], references(self.models), self._order)

    def replace(self, target):
        self.log("Config Replacer: Config replacement starting.")
        old = self.running()
        self.apply_patch(jsonpatch.JsonPatch.from_diff(old, target))
        if _without_backend(self.running()) != _without_backend(target):
            raise GcuError("After replacing config, there is still some parts not updated")
        self.log("Config Replacer: Config replacement completed.")

    # checkpoints: files <checkpoints_dir>/<name>.cp.json holding CONFIG_DB as `sonic-cfggen -d --print-data`

    def _path(self, name):
        return os.path.join(self.checkpoints_dir, name + CHECKPOINT_EXT)

    def checkpoint(self, name):
        os.makedirs(self.checkpoints_dir, exist_ok=True)
        temporary = self._path(name) + ".tmp"
        with open(temporary, "w", encoding="utf-8") as f:
            f.write(json.dumps(self.db.get_config()))
        os.replace(temporary, self._path(name))

    def rollback(self, name):
        if not os.path.isfile(self._path(name)):
            raise ValueError("Checkpoint '%s' does not exist" % name)
        with open(self._path(name), encoding="utf-8") as f:
            self.replace(json.load(f))

    def list_checkpoints(self, with_time=False):
        if not os.path.isdir(self.checkpoints_dir):
            return []
        names = [f[:-len(CHECKPOINT_EXT)] for f in os.listdir(self.checkpoints_dir) if f.endswith(CHECKPOINT_EXT)]
        if not with_time:
            return names
        import datetime
        stamped = [{"name": n, "time": datetime.datetime.fromtimestamp(
            os.path.getmtime(self._path(n)), tz=datetime.timezone.utc).isoformat()} for n in names]
        return sorted(stamped, key=lambda c: c["time"], reverse=True)

    def delete_checkpoint(self, name):
        if not os.path.isfile(self._path(name)):
            raise ValueError("Checkpoint '%s' does not exist" % name)
        os.remove(self._path(name))


def _without_backend(config):
    return {t: rows for t, rows in config.items() if t not in BACKEND_TABLES}
