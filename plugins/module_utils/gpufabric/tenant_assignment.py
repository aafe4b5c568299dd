"""The tenant assignment: which servers each tenant holds, kept apart from the cluster spec.

The spec says how the cluster is cabled (it changes when hardware does); the assignment says who uses
which server (it changes weekly). A file like inventories/lab/lab.tenants.yml:

    tenants:
      alpha:
        servers: [lab-gpu0001, lab-gpu0003]
      beta:
        servers: ["lab-gpu[0002:0004:2]"]   # a range: start, end (inclusive) and optional step

Servers in no tenant form the free pool: quarantined, they reach nothing but their own leaves.
`isolation` chooses how the leaves keep tenants apart: `acl` (port ACLs, the default) or `vrf` (a
VRF per tenant on each leaf; every tenant then needs an `id`, 1..4094, that never changes while the
tenant exists: it names the tenant's routes, see structured/tenant_vrf.py).
Problems are collected, one line each naming the entry, and raised together: nothing is changed.

``attach``/``attached`` give a plan its assignment as the fabric enforces it (spares standing in). This module
sits at the plan's layer, below the structured config that renders isolation from it; tenants/ (the change
between two assignments, the running one read back, the phases) sits above it (docs/architecture.md, "Layers").
"""
import re

from .errors import SpecError

FREE_POOL = "free"
ISOLATION_MODES = ("acl", "vrf")
# A VRF is a Linux interface named Vrf-<tenant>: at most 15 characters leave 11 for the name.
VRF_NAME_MAX = 11
TENANT_ID_RANGE = (1, 4094)
NAME = re.compile(r"^[a-z][a-z0-9-]{0,23}$")
RANGE = re.compile(r"^(?P<head>[^\[\]]*)\[(?P<start>[0-9]+):(?P<end>[0-9]+)(?::(?P<step>[0-9]+))?\](?P<tail>[^\[\]]*)$")
TOP_KEYS = ("isolation", "tenants")
TENANT_KEYS = ("servers", "description", "id")


class AssignmentError(SpecError):
    """Every problem of an assignment, one line each (``problems``)."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("", "\n".join(self.problems))


class Assignment:
    """Tenant name -> sorted server names; ``free`` are the servers in no tenant (plan order)."""

    def __init__(self, tenants, servers, isolation="acl", ids=None):
        self.isolation = isolation
        self.tenants = {name: sorted(members) for name, members in sorted(tenants.items())}
        self.ids = {name: tenant_id for name, tenant_id in (ids or {}).items() if name in self.tenants}
        self.owner = {s: name for name, members in self.tenants.items() for s in members}
        self.free = [s for s in servers if s not in self.owner]

    def tenant_of(self, server):
        """The server's tenant, or FREE_POOL."""
        return self.owner.get(server, FREE_POOL)

    def as_data(self):
        """The assignment as the YAML mapping it was read from (ranges expanded): what `running` keeps."""
        tenants = {}
        for name, members in self.tenants.items():
            tenants[name] = {"servers": list(members)}
            if name in self.ids:
                tenants[name]["id"] = self.ids[name]
        return {"isolation": self.isolation, "tenants": tenants}

    def __eq__(self, other):
        return isinstance(other, Assignment) and self.as_data() == other.as_data()

    def __ne__(self, other):
        return not self == other


def expand(entry):
    """Host names of one `servers` entry: a name, or `head[start:end(:step)]tail` with the width of start."""
    match = RANGE.match(entry)
    if not match:
        if "[" in entry or "]" in entry:
            raise ValueError("a range is written head[start:end] or head[start:end:step], e.g. lab-gpu[0001:0004]")
        return [entry]
    start, end = int(match.group("start")), int(match.group("end"))
    step = int(match.group("step") or 1)
    if step < 1 or end < start:
        raise ValueError("a range needs start <= end and a step of at least 1")
    width = len(match.group("start"))
    return ["%s%0*d%s" % (match.group("head"), width, n, match.group("tail")) for n in range(start, end + 1, step)]


def _servers_hint(servers):
    return "%s..%s" % (servers[0], servers[-1]) if len(servers) > 1 else ", ".join(servers) or "none"


def parse_assignment(data, servers, cluster="the cluster"):
    """An Assignment from the file's data, checked against ``servers`` (names in plan order).
    Raises AssignmentError listing every problem."""
    problems = []
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise AssignmentError(["tenants file: expected a mapping with a `tenants` key, got %s" % type(data).__name__])
    for key in sorted(set(data) - set(TOP_KEYS)):
        problems.append("%s: unknown key; the file has %s" % (key, " and ".join(TOP_KEYS)))
    isolation = data.get("isolation", "acl")
    if isolation not in ISOLATION_MODES:
        problems.append("isolation: %r is not a mode; use one of %s" % (isolation, ", ".join(ISOLATION_MODES)))
    tenants = data.get("tenants") or {}
    if not isinstance(tenants, dict):
        problems.append("tenants: expected a mapping of tenant name to {servers: [...]}")
        tenants = {}
    known = set(servers)
    members, first_seen, ids, id_owner = {}, {}, {}, {}
    for name, body in tenants.items():
        where = "tenants.%s" % name
        if not isinstance(name, str) or not NAME.match(name) or name == FREE_POOL:
            problems.append("%s: bad tenant name: use lowercase letters, digits and '-', starting with a letter, at "
                            "most 24 characters, not %r (the free pool's name)" % (where, FREE_POOL))
            continue
        if not isinstance(body, dict):
            problems.append("%s: expected a mapping with `servers` (a list of host names or ranges)" % where)
            continue
        for key in sorted(set(body) - set(TENANT_KEYS)):
            problems.append("%s.%s: unknown key; a tenant has %s" % (where, key, ", ".join(TENANT_KEYS)))
        if isolation == "vrf":
            problems += _vrf_checks(where, name, body.get("id"), ids, id_owner)
        entries = body.get("servers") or []
        if not isinstance(entries, list):
            problems.append("%s.servers: expected a list of host names or ranges" % where)
            continue
        members[name] = set()
        for i, entry in enumerate(entries):
            at = "%s.servers[%d]" % (where, i)
            try:
                hosts = expand(str(entry))
            except ValueError as exc:
                problems.append("%s: %r: %s" % (at, entry, exc))
                continue
            for host in hosts:
                if host not in known:
                    problems.append("%s: %s is not a server of %s (its servers: %s)"
                                    % (at, host, cluster, _servers_hint(servers)))
                elif host in first_seen and first_seen[host][0] != name:
                    problems.append("%s: %s is already in tenant %s (%s): a server belongs to one tenant at most"
                                    % (at, host, first_seen[host][0], first_seen[host][1]))
                else:
                    first_seen.setdefault(host, (name, at))
                    members[name].add(host)
        if not entries:
            problems.append("%s.servers: the tenant is empty: list at least one server, or remove the tenant "
                            "(its servers go to the free pool)" % where)
    if problems:
        raise AssignmentError(problems)
    return Assignment(members, servers, isolation, ids)


def _vrf_checks(where, name, tenant_id, ids, id_owner):
    """The VRF mode's demands on one tenant: a name that fits its VRF's, and a unique, stable id."""
    problems = []
    if len(name) > VRF_NAME_MAX:
        problems.append("%s: isolation vrf: a tenant name has at most %d characters (its VRF, Vrf-%s, is a Linux "
                        "interface name of at most 15)" % (where, VRF_NAME_MAX, name))
    low, high = TENANT_ID_RANGE
    if isinstance(tenant_id, bool) or not isinstance(tenant_id, int) or not low <= tenant_id <= high:
        problems.append("%s.id: isolation vrf needs a tenant id, a whole number %d..%d that stays the tenant's "
                        "while it exists (it tags its routes); got %r" % (where, low, high, tenant_id))
    elif tenant_id in id_owner:
        problems.append("%s.id: %d is already the id of tenant %s: every tenant needs its own"
                        % (where, tenant_id, id_owner[tenant_id]))
    else:
        id_owner[tenant_id] = name
        ids[name] = tenant_id
    return problems


def load_assignment(path, servers, cluster="the cluster"):
    """parse_assignment of a YAML file; an unreadable file is one line too."""
    import yaml

    try:
        with open(path, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as exc:
        raise AssignmentError(["%s: cannot read the tenants file: %s" % (path, str(exc).splitlines()[0])])
    try:
        return parse_assignment(data, servers, cluster)
    except AssignmentError as exc:
        raise AssignmentError(["%s: %s" % (path, p) for p in exc.problems])


def plan_servers(plan):
    return [d.name for d in plan.devices if d.role == "gpu_server"]


def attach(plan, assignment):
    """Give the plan its tenant assignment (or None): the build renders isolation from it (see attached)."""
    plan.tenant_assignment = assignment
    attached(plan)   # a spare already in a tenant is refused here, not later in a renderer
    return plan


def attached(plan):
    """The assignment the fabric enforces: the attached one, with each spare standing in for a failed server
    (maintenance.replaced, day2/spares.py) holding that server's tenant and the failed server in the free
    pool. The attached assignment keeps naming the failed server, so the restore gives its tenant back."""
    assignment = getattr(plan, "tenant_assignment", None)
    # An assignment that already has its stand-ins (attached() of the plan, attached again by isolation_by_leaf)
    # is the fabric's as it is.
    if assignment is None or not getattr(plan, "replaced", None) or getattr(assignment, "stood_in", False):
        return assignment
    cached = getattr(plan, "_stood_in", None)
    if cached is None or cached[0] is not assignment:
        cached = plan._stood_in = (assignment, _with_stand_ins(assignment, plan))
    return cached[1]


def _with_stand_ins(assignment, plan):
    taken = [(s, assignment.tenant_of(s)) for s in plan.replaced.values() if assignment.tenant_of(s) != FREE_POOL]
    if taken:
        raise AssignmentError(["maintenance.replaced: spare %s is in tenant %s: a spare stands in from the free pool; "
                               "take it out of the tenant file" % taken[0]])
    tenants = {name: [plan.replaced.get(s, s) for s in members] for name, members in assignment.tenants.items()}
    effective = Assignment(tenants, [d.name for d in plan.servers], assignment.isolation, assignment.ids)
    effective.stood_in = True
    return effective
