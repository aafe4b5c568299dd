"""The running tenant assignment, read from the rail leaves themselves (playbooks/tenants.yml): each leaf's
NOS home turns its running config into {port: tenant} (nos/<nos>/tenancy.py); this module puts the leaves
together into one Assignment, so a tenant change needs no file an earlier run left behind.

A server's tenant is the one every port towards it agrees on. Leaves that disagree (a change stopped half
way, a hand edit) are reported as drifted: the change re-applies them in its first phase, and a server
whose ports disagree counts as in the free pool until then, the state that takes nothing away twice."""
from ..structured.tenant_acl import server_ports
from ..tenant_assignment import FREE_POOL, Assignment, AssignmentError, plan_servers


def running(plan, readings, ids=None):
    """(Assignment or None, drifted leaves, lines) from ``readings`` ({leaf: {"acl": {port: tenant},
    "vrf": {port: tenant}}}, one per rail leaf of ``plan``). None: no leaf isolates (an open fabric).
    ``ids``: tenant ids to keep for tenants of the same name (VRF mode; a switch does not show them)."""
    leaves = list(plan.by_role("backend_leaf"))
    missing = [dev.name for dev in leaves if dev.name not in readings]
    if missing:
        raise AssignmentError(["%s: its running config was not read, so the tenants it enforces are unknown; "
                               "reach the leaf (or take it out of the inventory with its servers) and run again"
                               % ", ".join(missing)])
    modes = {}
    for dev in leaves:
        found = readings[dev.name]
        modes[dev.name] = "vrf" if found.get("vrf") else "acl" if found.get("acl") else None
    kinds = sorted({m for m in modes.values() if m})
    if not kinds:
        return None, [], []
    if len(kinds) > 1:
        by = {k: sorted(n for n, m in modes.items() if m == k) for k in kinds}
        raise AssignmentError(["rail leaves isolate tenants in two modes (acl: %s; vrf: %s): finish the change of "
                               "isolation mode before moving servers" % (", ".join(by["acl"][:3]), ", ".join(by["vrf"][:3]))])
    isolation = kinds[0]
    seen = {}   # server -> {tenant: [leaf]}
    for dev in leaves:
        found = readings[dev.name]
        for port, server, _base, _server_port in server_ports(dev):
            tenant = found.get("vrf", {}).get(port) or found.get("acl", {}).get(port)
            seen.setdefault(server.name, {}).setdefault(tenant or None, []).append(dev.name)
    tenants, drifted, lines = {}, set(), []
    for server in sorted(seen):
        held = seen[server]
        if len(held) == 1:
            tenant = next(iter(held))
            if tenant not in (None, FREE_POOL):
                tenants.setdefault(tenant, []).append(server)
            continue
        # Leaves disagree on this server: the minority leaves (or all, on a tie) are re-applied.
        top = max(len(v) for v in held.values())
        lines.append("server %s: rail leaves disagree (%s): re-applied in the first phase" % (
            server, "; ".join("%s on %s" % (t or "open", ", ".join(sorted(v))) for t, v in sorted(
                held.items(), key=lambda kv: str(kv[0])))))
        for tenant, on in held.items():
            if len(on) < top or sum(len(v) == top for v in held.values()) > 1:
                drifted.update(on)
    if modes and any(m is None for m in modes.values()):
        drifted.update(n for n, m in modes.items() if m is None)
        lines.append("rail leaves with no tenant isolation: %s: isolated in the first phase"
                     % ", ".join(sorted(n for n, m in modes.items() if m is None)))
    assignment = Assignment(tenants, plan_servers(plan), isolation, _ids(isolation, tenants, ids))
    return _without_stand_ins(plan, assignment), sorted(drifted), lines


def _ids(isolation, tenants, ids):
    """The tenant ids of the running VRF tenants: the new file's for a tenant it keeps. A tenant the leaves isolate that
    the new file gives no id (it leaves the fabric, or the file changes the isolation mode) gets a free id: a switch
    does not show the id, which only tags the tenant's routes, and this change takes that tenant's VRF away, so the id
    serves only to compare the running isolation with the new one and never reaches a switch."""
    known = {name: tenant_id for name, tenant_id in (ids or {}).items() if name in tenants}
    if isolation == "vrf":
        taken = set(known.values())
        free = (n for n in range(1, 4095) if n not in taken)
        for name in sorted(set(tenants) - set(known)):
            known[name] = next(free)
    return known


def _without_stand_ins(plan, assignment):
    """The assignment as the tenant file says it: a spare standing in for a failed server (maintenance
    replaced) holds that server's tenant on the leaves, and the file names the failed server."""
    replaced = getattr(plan, "replaced", None) or {}
    if not replaced:
        return assignment
    tenants = {name: list(members) for name, members in assignment.tenants.items()}
    for failed, spare in replaced.items():
        tenant = assignment.tenant_of(spare)
        if tenant != FREE_POOL and assignment.tenant_of(failed) == FREE_POOL:
            tenants[tenant] = [failed if s == spare else s for s in tenants[tenant]]
    return Assignment(tenants, plan_servers(plan), assignment.isolation, assignment.ids)
