"""Hot spares: server positions reserved in every scalable unit, and which spare stands in for which
failed server (the spec's maintenance.replaced, or a swap of playbooks/spare.yml for a window).

Addresses derive from positions (plan/), so a spare keeps its own position, cables and addresses: the
scheduler's host list changes, not the fabric's numbering. A spare sits in the same scalable unit, so it
has the failed server's rails on the same rail leaves. What moves to it is the failed server's tenant
(tenant_assignment.attach). The failed server's backend leaf ports are shut, so a server with a broken NIC
can send nothing into the lossless fabric (no PFC storm, no stale routes) until it is repaired.
"""
import copy

from ..errors import SpecError


def spare_threshold(spec, per_unit):
    """The first spare position within a scalable unit (positions at or past it are spares)."""
    spares = spec["servers"]["spares_per_unit"]
    if spares >= per_unit:
        raise SpecError("servers.spares_per_unit", "%d leaves no working server in a scalable unit of %d servers: "
                        "use at most %d" % (spares, per_unit, per_unit - 1))
    return per_unit - spares


def check_replaced(plan):
    """{failed server: spare} of maintenance.replaced, checked against the plan."""
    replaced = dict(plan.spec.get("maintenance", {}).get("replaced") or {})
    servers = {d.name: d for d in plan.servers}
    spares = [d.name for d in plan.servers if d.spare]
    hint = ("its spares: %s" % ", ".join(spares[:4]) + (", ..." if len(spares) > 4 else "")) if spares \
        else "it has none: set servers.spares_per_unit"
    taken = {}
    for failed, spare in sorted(replaced.items()):
        key = "maintenance.replaced.%s" % failed
        if failed not in servers:
            raise SpecError(key, "%r is not a server of this cluster: name a failed GPU server" % failed)
        if servers[failed].spare:
            raise SpecError(key, "%s is itself a spare position: a failed spare is repaired, not replaced" % failed)
        if spare not in servers or not servers[spare].spare:
            raise SpecError(key, "%r is not a spare of this cluster (%s)" % (spare, hint))
        if spare in taken:
            raise SpecError(key, "%s already stands in for %s: give each failed server its own spare"
                            % (spare, taken[spare]))
        if servers[spare].su != servers[failed].su:
            raise SpecError(key, "%s is in scalable unit %d, %s in %d: use a spare of the failed server's unit "
                            "(same rail leaves)" % (spare, servers[spare].su + 1, failed, servers[failed].su + 1))
        taken[spare] = failed
    return replaced


def failed_servers(plan):
    return frozenset(plan.replaced)


def stand_ins(plan):
    """{spare: the failed server it stands in for}."""
    return {spare: failed for failed, spare in plan.replaced.items()}


def shut_failed_ports(plan, configs):
    """Shut the backend leaf ports of every failed server in the structured ``configs`` that hold its leaves;
    the port keeps its peer (the cable is still there) and says why it is down."""
    for failed, spare in plan.replaced.items():
        for end in plan.device(failed).ends():
            leaf = configs.get(end.peer.name)
            if end.link.network != "backend" or leaf is None:
                continue
            for port in leaf["ethernet_interfaces"]:
                if port["name"] == end.peer_port:
                    port["enabled"] = False
                    port["description"] = "%s %s failed, spare %s stands in" % (failed, end.port, spare)


def with_swap(raw, replace=None, restore=()):
    """A copy of the raw spec whose maintenance.replaced adds ``replace`` ({failed: spare}) and drops the
    failed servers ``restore`` lists (the transient swap of playbooks/spare.yml, on top of the spec's)."""
    out = copy.deepcopy(raw)
    maintenance = out.setdefault("maintenance", {}) or {}
    out["maintenance"] = maintenance
    current = {k: v for k, v in (maintenance.get("replaced") or {}).items() if k not in set(restore)}
    current.update(replace or {})
    maintenance["replaced"] = current
    return out


def server_state(plan, dev):
    """The hostvars a server's spare state adds: {} for a working server that is no spare."""
    out = {}
    if dev.spare:
        out["spare"] = True
    standing = stand_ins(plan).get(dev.name)
    if standing:
        out["stands_in_for"] = standing
    if dev.name in plan.replaced:
        out["replaced_by"] = plan.replaced[dev.name]
    return out
