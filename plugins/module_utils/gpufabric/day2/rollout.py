"""Rollout waves: which switches a deploy changes together, worked out from the plan.

A wave is a set of switches of one role that change (and, where they run BGP, drain) at the same time. The rules,
each checked against the plan's cables, not against names:

- every pair of leaves that the fabric connects keeps a path (up, then down, through switches not drained): the
  drain's last-path refusal, judged for the wave as a whole;
- every switch that stays up keeps at least ``1 - max_capacity_loss`` of its uplink capacity (the sum of its
  uplinks' speeds): a leaf under a wave of spines, a spine under a wave of superspines;
- a wave of leaves never holds two leaves of one server (so a server loses one rail, or one side of its frontend
  bond, at a time), nor both leaves of an MLAG pair, nor more than ``max_capacity_loss`` of its role's leaves;
- a wave of OOB switches holds no two OOB switches cabled together and at most ``max_capacity_loss`` of them.

A switch that breaks a rule on its own (one of two spines takes half of every leaf's uplinks) goes alone: one
switch at a time is the least a rollout can do, as before waves. Waves follow deploy.yml's order of roles (OOB
first, then each network top down), and within a role the plan's device order, so the same plan always gives the
same waves. Nothing here depends on a NOS.
"""
import json

from ..spec import DEFAULT_MAX_CAPACITY_LOSS
from .drain import FABRIC_TIERS, LEAF_ROLES, drained_switches

SPEC_KEY = "maintenance.max_capacity_loss"
# deploy.yml's order: OOB first (it carries management), then each network top down.
ROLE_ORDER = ("oob_switch", "backend_core", "backend_superspine", "backend_spine", "backend_leaf",
              "frontend_superspine", "frontend_spine", "frontend_leaf")


def max_capacity_loss(plan):
    """The spec's maintenance.max_capacity_loss (spec.py checks it lies in [0, 1]), or the default."""
    value = (plan.spec.get("maintenance") or {}).get("max_capacity_loss")
    return DEFAULT_MAX_CAPACITY_LOSS if value is None else float(value)


class _Fabric:
    """The routed switches' uplinks (with their speeds) and the leaf pairs the fabric connects."""

    def __init__(self, plan):
        self.devices = {d.name: d for d in plan.devices if d.role != "gpu_server"}
        routed = {n for n, d in self.devices.items() if d.asn is not None}
        up, down, self.speed = {}, {}, {}
        for link in plan.links:
            if link.tier in FABRIC_TIERS and link.a.name in routed and link.b.name in routed:
                high, low = link.a.name, link.b.name          # a is the upper end of an uplink
                up.setdefault(low, set()).add(high)
                down.setdefault(high, set()).add(low)
                self.speed[low, high] = self.speed.get((low, high), 0) + (link.speed or 1)
        self.up = {low: sorted(highs) for low, highs in up.items()}
        self.down = {high: sorted(lows) for high, lows in down.items()}
        self.uplink_total = {low: sum(self.speed[low, h] for h in highs) for low, highs in self.up.items()}
        self.bit = {name: 1 << i for i, name in enumerate(sorted(self.down))}
        leaves = sorted(n for n in routed if self.devices[n].role in LEAF_ROLES and n in self.up)
        # Leaves with the same uplinks reach the same switches: one group each, so a check visits groups, not leaves.
        groups = {}
        for leaf in leaves:
            groups.setdefault(tuple(sorted(self.up[leaf])), []).append(leaf)
        self.groups = sorted(groups.items())
        self.group_of = {leaf: i for i, (_ups, members) in enumerate(self.groups) for leaf in members}
        # Pairs of groups the whole fabric connects (a group with itself when it holds two leaves or more).
        self.reset(frozenset())
        full = [self._group_mask(i) for i in range(len(self.groups))]
        self.pairs = [(i, j) for i in range(len(full)) for j in range(i, len(full))
                      if (i != j or len(self.groups[i][1]) > 1) and full[i] & full[j]]
        self.pairs_of = {}
        for i, j in self.pairs:
            self.pairs_of.setdefault(i, []).append((i, j))
            if j != i:
                self.pairs_of.setdefault(j, []).append((i, j))
        self._below = {}

    def reset(self, drained):
        """Start a wave with ``drained`` drained (the spec's maintenance.drained). What is worked out with only those
        drained is kept for the next wave, which starts from them again, until a wave takes a switch."""
        key = frozenset(drained)
        if getattr(self, "_base", (None,))[0] != key:
            self._base = (key, {}, {})
        self.drained = set(drained)
        self._masks, self._group_masks = self._base[1], self._base[2]

    def _mask(self, name, drained=None, trial=None):
        """Bits of the switches ``name`` reaches going up through switches not drained (the wave so far, or with
        ``trial`` the masks of the switches a trial drain changes)."""
        if trial is not None and name in trial["below"]:
            masks, drained = trial["masks"], trial["drained"]
        else:
            masks, drained, trial = self._masks, self.drained, None
        if name not in masks:
            mask = 0
            for high in self.up.get(name, ()):
                if high not in drained:
                    mask |= self.bit[high] | self._mask(high, trial=trial)
            masks[name] = mask
        return masks[name]

    def _group_mask(self, i, trial=None):
        masks, drained = (trial["groups"], trial["drained"]) if trial else (self._group_masks, self.drained)
        if i not in masks:
            mask = 0
            for high in self.groups[i][0]:
                if high not in drained:
                    mask |= self.bit[high] | self._mask(high, trial=trial)
            masks[i] = mask
        return masks[i]

    def below(self, name):
        """(the switches above the leaves under ``name``, the leaf groups under it): what its drain can change."""
        if name not in self._below:
            nodes, groups = {name}, set()
            for low in self.down.get(name, ()):
                if low in self.group_of:
                    groups.add(self.group_of[low])
                elif low in self.down:
                    more, more_groups = self.below(low)
                    nodes |= more
                    groups |= more_groups
            self._below[name] = (frozenset(nodes), frozenset(groups))
        return self._below[name]

    def cut_if_added(self, name):
        """The first leaf pair the fabric connects that would keep no path if ``name`` joined the wave, or None.
        Only what lies under ``name`` is worked out again; the rest is the wave's so far."""
        nodes, groups = self.below(name)
        pairs = sorted({p for g in groups for p in self.pairs_of.get(g, ())})
        if name not in self.up:
            # Nothing is above it, so its drain takes its own bit from what a switch below reaches, no more.
            gone = ~self.bit[name]
            for i, j in pairs:
                if not self._group_mask(i) & self._group_mask(j) & gone:
                    cut = self._leaves_cut(i, j, self.drained | {name})
                    if cut:
                        return cut
            self._trial = (name, {"top": gone, "below": nodes - {name}}, groups)
            return None
        trial = {"below": nodes - {name}, "masks": {}, "groups": {}, "drained": self.drained | {name}}
        for i, j in pairs:
            mask_i = self._group_mask(i, trial if i in groups else None)
            mask_j = self._group_mask(j, trial if j in groups else None)
            if not mask_i & mask_j:
                cut = self._leaves_cut(i, j, trial["drained"])
                if cut:
                    return cut
        self._trial = (name, trial, groups)
        return None

    def add(self, name):
        """Put ``name`` in the wave (after cut_if_added said it keeps every pair)."""
        checked, trial, groups = self._trial
        if checked != name:
            raise AssertionError("add(%r) without cut_if_added(%r) first" % (name, name))
        if self._masks is self._base[1]:
            self._masks, self._group_masks = dict(self._masks), dict(self._group_masks)
        if "top" in trial:
            for g in groups:
                self._group_masks[g] = self._group_mask(g) & trial["top"]
            for node in trial["below"]:
                if node in self._masks:
                    self._masks[node] &= trial["top"]
            self.drained.add(name)
            return
        self.drained.add(name)
        self._masks.update(trial["masks"])
        self._masks.pop(name, None)
        for g in groups:
            self._group_masks[g] = self._group_mask(g, trial)

    def cut_pair(self, drained):
        """A leaf pair the fabric connects that keeps no path with ``drained`` drained, or None."""
        self.reset(drained)
        for i, j in self.pairs:
            if not self._group_mask(i) & self._group_mask(j):
                cut = self._leaves_cut(i, j, self.drained)
                if cut:
                    return cut
        return None

    def _leaves_cut(self, i, j, drained):
        a = [n for n in self.groups[i][1] if n not in drained]
        b = [n for n in self.groups[j][1] if n not in drained and (i != j or n != a[0])] if a else []
        return tuple(sorted((a[0], b[0]))) if a and b else None


def _share(value):
    return round(value, 4)


def _upper_waves(fabric, members, base, limit):
    """Waves of routed switches above the leaves (core, superspine, spine) of one role."""
    waves, remaining = [], list(members)
    while remaining:
        wave, lost, drained = [], {}, set(base)
        fabric.reset(base)
        for name in remaining:
            trial = dict(lost)
            fits = True
            for low in fabric.down.get(name, ()):
                if low in drained:
                    continue
                trial[low] = trial.get(low, 0) + fabric.speed[low, name]
                if trial[low] > limit * fabric.uplink_total[low] + 1e-9:
                    fits = False
                    break
            if fits and fabric.cut_if_added(name) is None:
                fabric.add(name)
                wave.append(name)
                lost = trial
                drained.add(name)
        if wave:
            waves.append(_upper_wave(fabric, wave, lost, limit))
        else:
            waves.append(_alone(fabric, remaining[0], base, limit))
            wave = [remaining[0]]
        taken = set(wave)
        remaining = [n for n in remaining if n not in taken]
    return waves


def _upper_wave(fabric, wave, lost, limit):
    least = min(lost, key=lambda low: (1 - lost[low] / fabric.uplink_total[low], low)) if lost else None
    left = 1 - lost[least] / fabric.uplink_total[least] if least else 1.0
    why = ("every switch below keeps at least %d%% of its uplink capacity (max_capacity_loss %s) and every leaf "
           "pair keeps a path" % (round(100 * (1 - limit)), limit))
    if len(wave) == 1:
        why = "with no other switch of its role: " + why
    return {"members": wave, "why": why,
            "capacity_left": {"least": _share(left), "switch": least}}


def _alone(fabric, name, base, limit):
    """A switch no wave can take with another: the reason it breaks a rule on its own."""
    lost = {low: fabric.speed[low, name] for low in fabric.down.get(name, ()) if low not in base}
    least = min(lost, key=lambda low: (1 - lost[low] / fabric.uplink_total[low], low)) if lost else None
    left = 1 - lost[least] / fabric.uplink_total[least] if least else 1.0
    fabric.reset(base)
    cut = fabric.cut_if_added(name)
    if cut:
        why = ("alone: draining it takes the last path between %s and %s, so the deploy's drain refuses it "
               "(change it undrained, or undrain another switch first)" % cut)
    else:
        why = ("alone: it takes %d%% of %s's uplink capacity, more than max_capacity_loss %s allows a wave; "
               "one switch at a time is the least a rollout can do" % (round(100 * (1 - left)), least, limit))
    return {"members": [name], "why": why, "capacity_left": {"least": _share(left), "switch": least}}


def _server_links(plan, role):
    """{leaf: set of servers (and hosts) cabled to it} for the leaves of ``role``."""
    out = {}
    for link in plan.links:
        if link.tier == "server" and link.a.role == role:
            out.setdefault(link.a.name, set()).add(link.b.name)
        elif link.tier == "server" and link.b.role == role:
            out.setdefault(link.b.name, set()).add(link.a.name)
    return out


def _joined(plan, role, tier):
    """{switch: set of switches of ``role`` cabled to it on ``tier``} (MLAG peer links, OOB uplinks)."""
    out = {}
    for link in plan.links:
        if link.tier == tier and link.a.role == role and link.b.role == role and link.a is not link.b:
            out.setdefault(link.a.name, set()).add(link.b.name)
            out.setdefault(link.b.name, set()).add(link.a.name)
    return out


def _cap(count, limit):
    """Switches of a role a wave may hold: ``limit`` of them, at least one."""
    return max(1, int(count * limit + 1e-9))


def _lower_waves(plan, role, members, limit):
    """Waves of leaves (no two of one server, no two of one pair) or of OOB switches (no two cabled together)."""
    servers = _server_links(plan, role)
    joined = _joined(plan, role, "peer" if role != "oob_switch" else "oob")
    cap = _cap(len(members), limit)
    links = {}
    for hosts in servers.values():
        for host in hosts:
            links[host] = links.get(host, 0) + 1
    waves, remaining = [], list(members)
    while remaining:
        wave, served, taken = [], set(), set()
        for name in remaining:
            if len(wave) == cap:
                break
            mine = servers.get(name, set())
            if mine & served or joined.get(name, set()) & taken:
                continue
            wave.append(name)
            served |= mine
            taken.add(name)
        waves.append(_lower_wave(role, wave, servers, links, cap, len(members), limit))
        remaining = [n for n in remaining if n not in taken]
    return waves


def _lower_wave(role, wave, servers, links, cap, count, limit):
    share = "%d of its role's %d (max_capacity_loss %s: at most %d)" % (len(wave), count, limit, cap)
    if role == "oob_switch":
        why = "no two cabled together; " + share
        # What is left is the share of the role's switches up: no OOB switch is another's uplink in a wave.
        return {"members": wave, "why": why, "capacity_left": {"least": _share(1 - len(wave) / count),
                                                               "role": role}}
    why = "no two serve one server and none is another's MLAG peer, so a server loses at most one link; " + share
    # What a server of the wave keeps in this network: its links to the role's leaves not in the wave.
    hit = {}
    for leaf in wave:
        for host in servers.get(leaf, ()):
            hit[host] = hit.get(host, 0) + 1
    least = min(hit, key=lambda h: (1 - hit[h] / links[h], h)) if hit else None
    return {"members": wave, "why": why,
            "capacity_left": {"least": _share(1 - hit[least] / links[least]) if least else 1.0, "server": least}}


def plan_waves(plan):
    """[{"role", "members", "why", "capacity_left"}] in deploy order: every switch of the plan in one wave."""
    limit = max_capacity_loss(plan)
    fabric = _Fabric(plan)
    base = drained_switches(plan)
    by_role = {}
    for dev in plan.devices:
        if dev.role in ROLE_ORDER:
            by_role.setdefault(dev.role, []).append(dev.name)
    out = []
    for role in ROLE_ORDER:
        members = by_role.get(role, [])
        if not members:
            continue
        if role.endswith("_leaf") or role == "oob_switch":
            waves = _lower_waves(plan, role, members, limit)
        else:
            waves = _upper_waves(fabric, members, base, limit)
        out += [dict(wave, role=role) for wave in waves]
    return out


def rollout(plan):
    """What build/<cluster>/rollout.json holds: the setting, its reason, and the numbered waves."""
    limit = max_capacity_loss(plan)
    waves = plan_waves(plan)
    return {
        "cluster": plan.summary.get("cluster"),
        "max_capacity_loss": limit,
        "max_capacity_loss_from": SPEC_KEY if (plan.spec.get("maintenance") or {}).get("max_capacity_loss")
        is not None else "the default (%s: %s)" % (SPEC_KEY, DEFAULT_MAX_CAPACITY_LOSS),
        "waves": [{"wave": i + 1, "role": w["role"], "members": w["members"], "why": w["why"],
                   "capacity_left": w["capacity_left"]} for i, w in enumerate(waves)],
    }


def rollout_files(plan):
    """{"rollout.json": the rollout} as the build writes it (build/<cluster>/rollout.json)."""
    return {"rollout.json": json.dumps(rollout(plan), indent=1) + "\n"}


def pending_batches(waves, pending):
    """The waves kept to the switches in ``pending`` (those that differ from their build), for deploy.yml:
    {"order": [[role, switch], ...] wave by wave, "sizes": {role: [switches of each wave left, no empty wave]},
    "wave_of": {switch: the switches of its wave left}} (a play's batch drops a switch that fails; its wave does not).
    A rollout run again after a failure so starts at the wave that failed: the switches done no longer differ."""
    wanted = set(pending)
    order, sizes, wave_of = [], {}, {}
    for wave in waves:
        members = [name for name in wave["members"] if name in wanted]
        if members:
            order += [[wave["role"], name] for name in members]
            sizes.setdefault(wave["role"], []).append(len(members))
            wave_of.update((name, members) for name in members)
    return {"order": order, "sizes": sizes, "wave_of": wave_of}
