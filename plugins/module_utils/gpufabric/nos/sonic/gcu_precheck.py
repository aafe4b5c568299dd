"""The deploy's pre-check of a change against SONiC's Generic Config Updater (GCU): before ``config replace``
is sent, what of it GCU's field-operation checks would refuse on the switch's release and ASIC, and which new rows
SONiC's own CLI can write first so that the rest goes through (the action sonic_deploy_read, through the home's
``gcu_load_plan``).

This is the deploy's reading of GCU's rules (sonic-utilities' generic_config_updater, field_operation_validators
and gu_common.validate_field_operation), from its own table of them (gcu_rules.yml). The twin's GCU emulator
(twin/emulators/sonic/gcu.py) is written apart from it and judges it: tests/unit/test_gcu_precheck_agrees.py runs
both over the same cases. What the deploy does not read from the switch (STATE_DB's supported FECs and speeds) is
taken as GCU takes it when STATE_DB has no row: FEC one of GCU's defaults, any speed.
"""
import functools
import os
import re

try:
    import jsonpatch
except ImportError:  # Ansible's import sanity test loads module_utils without third-party packages.
    jsonpatch = None

RULES_FILE = os.path.join(os.path.dirname(__file__), "gcu_rules.yml")
VALIDATORS_AT = "generic_config_updater.field_operation_validators"
# Paths GCU never lets a patch remove, whatever the release.
UNREMOVABLE = frozenset(("/PFC_WD/GLOBAL", "/PFC_WD/GLOBAL/POLL_INTERVAL", "/LOOPBACK_INTERFACE/Loopback0"))
# GCU's FEC list when STATE_DB gives none for the port.
FEC_WHEN_UNKNOWN = frozenset(("rs", "fc", "none", "auto"))


class PrecheckError(ValueError):
    """A change the pre-check cannot read (a patch path with no table)."""


@functools.lru_cache(maxsize=1)
def rules():
    """{release: its rules} from gcu_rules.yml."""
    import yaml  # here: Ansible's import sanity test loads module_utils without PyYAML

    with open(RULES_FILE, encoding="utf-8") as handle:
        return yaml.safe_load(handle)["releases"]


def release(build_version):
    """The release branch a SONiC build_version names: its first six-digit part ("SONiC.202511.0" -> "202511"),
    else the year and month of a build named by its date ("SONiC.20250530.12" -> "202505"), else None."""
    parts = [part for part in re.split(r"[-._]", str(build_version or "")) if part.isdigit()]
    for part in parts:
        if len(part) == 6:
            return part
    return next((part[:6] for part in parts if len(part) == 8), None)


def _build_date(build_version):
    """The build's date, the last part of eight digits of build_version, or None (GCU then checks no date)."""
    dates = [part for part in str(build_version or "").split(".") if len(part) == 8 and part.isdigit()]
    return dates[-1] if dates else None


def _asic(table, asic_type, hwsku):
    """The ASIC GCU names for the switch: cisco-8000 and marvell-teralynx are their own; a Mellanox hwsku is
    listed whole, a Broadcom one contains a listed name; "unknown" otherwise."""
    if asic_type in ("cisco-8000", "marvell-teralynx"):
        return asic_type
    sku = (hwsku or "").lower()
    if asic_type in ("mellanox", "vs"):
        hit = [asic for asic, names in table["mellanox"].items() if sku in {n.lower() for n in names}]
        if hit:
            return hit[0]
    if asic_type in ("broadcom", "vs"):
        hit = [asic for asic, names in table["broadcom"].items() if any(n.lower() in sku for n in names)]
        if hit:
            return hit[0]
    return "unknown"


def _steps(path):
    """A JSON pointer's reference tokens, unescaped."""
    return [step.replace("~1", "/").replace("~0", "~") for step in path.split("/")[1:]]


class _Switch:
    def __init__(self, facts, build_version, asic):
        self.facts, self.date, self.asic = facts, _build_date(build_version), asic

    def scenarios_allow(self, table, op, fields, match):
        """Whether every field the operation changes is in a scenario of ``table`` that allows ``op`` on this
        ASIC from a build date this switch has."""
        if self.asic == "unknown":
            return False
        scenarios = list(self.facts["tables"][table].get("scenarios", {}).values())
        for field in fields:
            scenario = next((s for s in scenarios if any(match(field, f) for f in s["fields"])), None)
            since = scenario["platforms"].get(self.asic) if scenario else None
            if not since or op not in scenario["operations"]:
                return False
            if self.date is not None and self.date < since:
                return False
        return True


def _fields(op, drop_numbered):
    """The fields an operation changes, as GCU names them: the path below the table (parts with a digit left out
    when ``drop_numbered``: a port or a queue), lower case, and each key of a dict it writes below that."""
    steps = _steps(op["path"])[1:]
    if drop_numbered:
        steps = [s for s in steps if not re.search(r"\d", s)]
    base = "/".join(steps).lower()
    if isinstance(op.get("value"), dict):
        return ["%s/%s" % (base, key) if base else key for key in op["value"]]
    return [base]


def _exact(field, name):
    return field == name


def _last_step(field, name):
    return field.split("/")[-1] == name


def _rdma(switch, op):
    return switch.scenarios_allow(_steps(op["path"])[0], op["op"], _fields(op, True), _exact)


def _wred(switch, op):
    return switch.scenarios_allow(_steps(op["path"])[0], op["op"], _fields(op, False), _last_step)


def _buffer_profile(switch, op):
    if len(_steps(op["path"])) == 2:   # a whole profile added, removed or replaced
        return op["op"] in ("add", "remove", "replace")
    return _wred(switch, op)


def _fec_ok(value):
    return str(value).strip() in FEC_WHEN_UNKNOWN


def _port(switch, op):
    """PORT: a FEC GCU knows (no STATE_DB row: its default list); any speed (no STATE_DB row: nothing to hold
    it to). Removals pass."""
    if op["op"] == "remove":
        return True
    value = op.get("value")
    if op["path"].endswith("fec"):
        return _fec_ok(value)
    if isinstance(value, dict):
        rows = [value] if "fec" in value else [row for row in value.values() if isinstance(row, dict)]
        return all(_fec_ok(row["fec"]) for row in rows if "fec" in row)
    return True


CHECKS = {"rdma_config_update_validator": _rdma, "wred_profile_config_update_validator": _wred,
          "buffer_profile_config_update_validator": _buffer_profile, "port_config_update_validator": _port}


def _acl_type_change(running, target):
    """GCU's refusal of a data ACL rule that changes while its table's type does, or None."""
    def typed(tables, name):
        kind = tables.get(name, {}).get("type")
        return kind if kind and kind != "CTRLPLANE" else None
    before, after = running.get("ACL_TABLE", {}), target.get("ACL_TABLE", {})
    retyped = sorted(t for t in before if t in after and typed(before, t) and typed(after, t)
                     and typed(before, t) != typed(after, t))
    old_rules, new_rules = running.get("ACL_RULE", {}), target.get("ACL_RULE", {})
    for key in sorted(set(old_rules) | set(new_rules)):
        if key.split("|")[0] in retyped and old_rules.get(key, {}) != new_rules.get(key, {}):
            return "Modification of dataacl rule %s is illegal: acl table type changed in %s" % (key, retyped)
    return None


def refusals(running, target, sonic_version):
    """["<op> <path> - <GCU's text>"] of what GCU on a switch whose sonic_version.yml says ``sonic_version``
    would refuse of ``config replace`` from ``running`` to ``target`` ([] when nothing); None when the deploy's
    table has no rules for its release (the switch's own GCU decides)."""
    version = sonic_version or {}
    facts = rules().get(release(version.get("build_version")))
    if facts is None:
        return None
    hwsku = running.get("DEVICE_METADATA", {}).get("localhost", {}).get("hwsku", "")
    switch = _Switch(facts, version.get("build_version", ""), _asic(facts["asics"], version.get("asic_type", ""), hwsku))
    ops = sorted(jsonpatch.make_patch(running, target), key=lambda op: op["path"])
    out = ["remove %s - Given patch operation is invalid. Operation: remove is illegal on field: %s"
           % (op["path"], op["path"]) for op in ops if op["op"] == "remove" and op["path"] in UNREMOVABLE]
    acl = _acl_type_change(running, target)
    if acl:
        out.append("replace /ACL_RULE - " + acl)
    for op in ops:
        steps = _steps(op["path"])
        if not steps or not steps[0]:
            raise PrecheckError("Invalid jsonpatch path: %s" % op["path"])
        for name in facts["tables"].get(steps[0], {}).get("validators", []):
            if not CHECKS[name](switch, op):
                out.append("%s %s - Modification of %s table is illegal- validating function %s.%s returned False"
                           % (op["op"], op["path"], steps[0], VALIDATORS_AT, name))
                break
    return out


def effects(running, target, facts):
    """{"flaps": [port], "recreated": ["TABLE|key"]} of what GCU does to the switch beside the difference itself:
    the ports admin up that it takes down and back up around changes to their rows of the QoS tables, and the rows
    it deletes and adds back because a field it cannot edit in place changes."""
    rules_ = facts.get("effects") or {"recreate_on": {}, "port_down_for": []}
    recreated = []
    for table, fields in sorted(rules_["recreate_on"].items()):
        before, after = running.get(table, {}), target.get(table, {})
        for key in sorted(set(before) & set(after)):
            names = set(before[key]) | set(after[key]) if "*" in fields else fields
            if any(before[key].get(name) != after[key].get(name) for name in names):
                recreated.append("%s|%s" % (table, key))
    ports = running.get("PORT", {})
    changed = set()
    for table in rules_["port_down_for"]:
        before, after = running.get(table, {}), target.get(table, {})
        changed.update(key.split("|")[0] for key in set(before) | set(after) if before.get(key) != after.get(key))
    # A port without admin_status is down (the YANG default): GCU leaves it so.
    flaps = sorted(port for port in changed if ports.get(port, {}).get("admin_status", "down") != "down")
    return {"flaps": flaps, "recreated": recreated}


def load_plan(running, target, sonic_version, load_tables):
    """{"load": {table: {key: row}}, "load_keys": ["TABLE|key"], "refused": [...] or None, "flaps", "recreated"
    (effects(); [] when the release has no rules here)}: when GCU would refuse
    the change, the new rows of ``load_tables`` (whole keys ``running`` lacks; a PFC watchdog on a port, which
    SONiC's CLI writes to CONFIG_DB without GCU) go in first with ``config load`` if GCU then accepts the rest;
    "refused" is what it would still refuse (nothing is then written, not even those rows), None when the release
    has no rules here."""
    refused = refusals(running, target, sonic_version)
    facts = rules().get(release((sonic_version or {}).get("build_version")))
    seen = effects(running, target, facts) if facts else {"flaps": [], "recreated": []}
    load = {}
    if refused:
        for table in load_tables:
            have = running.get(table, {})
            fresh = {key: row for key, row in target.get(table, {}).items() if key not in have}
            if fresh:
                load[table] = fresh
    if load:
        first = dict(running)
        first.update({table: dict(running.get(table, {}), **rows) for table, rows in load.items()})
        refused = refusals(first, target, sonic_version)
        if refused:
            load = {}
    return dict(seen, load=load, load_keys=["%s|%s" % (t, k) for t in sorted(load) for k in sorted(load[t])],
                refused=refused)
