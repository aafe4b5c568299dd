"""What a check is: a name, the roles it looks at, the sources it needs per role, and results."""
from collections import namedtuple

from ... import roles

PASS, FAIL, SKIP, ERROR = "PASS", "FAIL", "SKIP", "ERROR"
STATUSES = (FAIL, ERROR, SKIP, PASS)

Result = namedtuple("Result", "device check object status message")


class Context:
    """What checks read: the plan's expectations, every collected DeviceState, the thresholds."""

    def __init__(self, expect, states, thresholds, baseline=None):
        self.expect = expect
        self.states = states
        self.thresholds = thresholds
        self.baseline = baseline or {}   # {device: {port: carrier changes}} of the last validation run
        self.cache = {}                  # what several checks derive from the same states, computed once


class Check:
    name = ""
    description = ""
    # role -> sources a device of that role must collect for this check
    sources = {}

    def applies(self, role):
        return role in self.sources

    def devices(self, ctx):
        """(device, state) of every collected device this check looks at, in plan order."""
        for dev in ctx.expect.devices:
            state = ctx.states.get(dev.name)
            if state is not None and self.applies(dev.role):
                yield dev, state

    def usable(self, ctx, results):
        """Like devices(), but a device lacking a source this check needs adds its one SKIP/ERROR to
        ``results`` and is left out."""
        for dev, state in self.devices(ctx):
            blocked = self.blocked(dev.name, state)
            if blocked:
                results.append(blocked)
            else:
                yield dev, state

    def result(self, device, obj, status, message):
        return Result(device, self.name, obj, status, message)

    def blocked(self, device, state):
        """One ERROR/SKIP result when ``state`` lacks a source this check needs, else None."""
        problem = state.problem(*self.sources.get(state.role, ()))
        if problem:
            return self.result(device, "*", problem[0], problem[1])
        return None

    def run(self, ctx):
        raise NotImplementedError


SWITCH_ROLES, ROUTED_ROLES = roles.SWITCH_ROLES, roles.ROUTED_ROLES


def for_roles(roles, sources):
    return {role: tuple(sources) for role in roles}
