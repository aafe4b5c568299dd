"""What `config apply-patch` does with a patch before the Generic Config Updater sees it (sonic-utilities
config/main.py, `apply_patch`), for the releases of gcu_releases.yml:

- 202511 (PR #4095, append_emptytables_if_required): each table a patch operation writes into and the running
  config does not have is added empty (``{"op": "add", "path": "/TABLE", "value": {}}``) just before the first
  operation whose path starts with the table's, so ``add /NEW_TABLE/key`` is accepted as GCU accepts it (the empty
  table the patch alone would leave is still refused, by GCU's empty-table check);
- both releases then apply the patch to the running config (validate_patch): an operation that cannot be applied
  (a member not there) stops the command, "Validate json patch: <patch> failed due to:<jsonpatch's reason>", the
  patch as 202511 prints it (its operations as a Python list) or 202505 (the JSON patch's text).
"""
import copy
import json

try:
    import jsonpatch
    import jsonpointer
except ImportError:  # Ansible's import sanity test loads module_utils without third-party packages.
    jsonpatch = jsonpointer = None


class InvalidPatch(ValueError):
    """The patch was refused before GCU ran: SONiC's text."""


def _missing_tables(ops, running):
    missing = []
    for op in ops:
        table = "/" + str(op.get("path", "")).strip("/").split("/", maxsplit=1)[0]
        try:
            jsonpointer.resolve_pointer(running, table)
        except jsonpointer.JsonPointerException:
            if table not in missing:
                missing.append(table)
    return missing


def prepare(ops, running, adds_missing_tables):
    """The patch operations `config apply-patch` hands GCU for ``ops`` over the ``running`` config; raises
    InvalidPatch with SONiC's text when it stops before GCU."""
    ops = [copy.deepcopy(op) for op in ops]
    if adds_missing_tables:
        for table in _missing_tables(ops, running):
            first = next((i for i, op in enumerate(ops) if str(op.get("path", "")).startswith(table)), len(ops))
            ops.insert(first, {"op": "add", "path": table, "value": {}})
    try:
        jsonpatch.JsonPatch(copy.deepcopy(ops)).apply(running)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as e:
        shown = ops if adds_missing_tables else json.dumps(ops)
        raise InvalidPatch("Validate json patch: %s failed due to:%s" % (shown, e)) from e
    return ops
