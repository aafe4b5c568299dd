"""PFC and ECN: identical on both ends of every backend switch link and between each NIC and its leaf
port, and as each device's structured config declares (the fabric's QoS profile). A mismatch here is the
classic silent RoCE fault. The ``qos`` fact is what a switch's NOS collector (nos/<name>/collectors.py) makes
of the switch's own output; ``nic_qos`` what mlnx_qos shows on a server. A link passes only when both of its ends
were read: an end that cannot be read is its SKIP or ERROR, named, and the other end is then only compared with
the plan (FAIL when it deviates, else a SKIP saying which end was not read)."""
from ...roles import BACKEND_SWITCH_ROLES as BACKEND_SWITCHES
from .base import FAIL, PASS, SKIP, Check, for_roles
FIELDS = (("trust", "trust mode"), ("pfc", "PFC priorities"), ("ecn", "ECN"), ("dscp_to_tc", "DSCP map"))


def _differences(have, want):
    return [label for key, label in FIELDS if key in have and have[key] != want[key]]


# Enough DSCP entries to see a wrong map (usually the profile's RoCE and CNP code points) in one line.
SHOWN_DSCP = 4


def _describe(have, keys, other):
    """``have``'s values of the fields named in ``keys``; for the DSCP map only the code points on which
    it differs from ``other`` (the other side of the comparison)."""
    def value(key):
        if key != "dscp_to_tc":
            return have.get(key)
        mine, theirs = have.get(key) or {}, other.get(key) or {}
        points = sorted(p for p in set(mine) | set(theirs) if mine.get(p) != theirs.get(p))
        return ", ".join("DSCP %s->TC %s" % (p, mine.get(p, "none")) for p in points[:SHOWN_DSCP]) + (
            " (+%d more)" % (len(points) - SHOWN_DSCP) if len(points) > SHOWN_DSCP else "")
    return ", ".join("%s %s" % (label, value(key)) for key, label in FIELDS if label in keys)


class _QosCheck(Check):
    def _end(self, ctx, device, port, field):
        """(qos of ``port`` on ``device``, None) or (None, skip/error Result)."""
        state = ctx.states.get(device)
        if state is None:
            return None, self.result(device, port, SKIP, "%s was not read (not among the devices validated)" % device)
        problem = state.problem(field)
        if problem:
            return None, self.result(device, port, problem[0], problem[1])
        return (getattr(state, field) or {}).get(port), None

    def _compare(self, ctx, ends, wants):
        """ends: [(device, port, qos)], wants: what each end's structured config declares; FAIL naming every end
        that deviates from it, or from the other end."""
        wrong = []
        for (device, port, have), want in zip(ends, wants):
            diff = _differences(have, want)
            if diff:
                wrong.append((device, port, have, diff, want))
        want = wants[0]
        (d0, p0, _h0), (d1, p1, _h1) = ends
        link = "%s %s -- %s %s" % (d0, p0, d1, p1)
        if not wrong:
            return [self.result(d0, p0, PASS, "%s: PFC %s, ECN %s on both ends" % (link, want["pfc"], want["ecn"]))]
        return [self.result(device, port, FAIL, "%s %s has %s, planned %s (link %s): apply the QoS profile to it"
                            % (device, port, _describe(have, diff, want), _describe(want, diff, have), link))
                for device, port, have, diff, want in wrong]


class QosBackendLinks(_QosCheck):
    name = "qos_backend_links"
    description = "PFC/ECN/DSCP map identical and as planned on both ends of every backend switch link"
    sources = for_roles(BACKEND_SWITCHES, ("qos",))

    def run(self, ctx):
        results = []
        for link in ctx.expect.links:
            if link.a.role not in BACKEND_SWITCHES or link.b.role not in BACKEND_SWITCHES:
                continue
            ends, skipped = [], None
            for dev, port in ((link.a.name, link.a_port), (link.b.name, link.b_port)):
                have, problem = self._end(ctx, dev, port, "qos")
                skipped = skipped or problem
                ends.append((dev, port, have))
            if skipped:
                results.append(skipped)
            elif any(h is None for _d, _p, h in ends):
                results += [self.result(d, p, FAIL, "%s %s has no QoS configuration (the switch reports no QoS for the port)"
                                        % (d, p)) for d, p, h in ends if h is None]
            else:
                results += self._compare(ctx, ends, [ctx.expect.qos(link.a.name), ctx.expect.qos(link.b.name)])
        return results


class QosNicLeaf(_QosCheck):
    name = "qos_nic_leaf"
    description = "each server NIC's trust mode, PFC and ECN match its leaf port and the plan"
    sources = dict(for_roles(("gpu_server",), ("nic_qos",)), backend_leaf=("qos",))

    def run(self, ctx):
        results = []
        for dev, state in self.devices(ctx):
            if dev.role != "gpu_server":
                continue
            nic_want = ctx.expect.qos(dev.name)
            nic_problem = None
            for nic in ctx.expect.server_nics(dev.name):
                have, problem = self._end(ctx, dev.name, nic.name, "nic_qos")
                leaf, leaf_problem = self._end(ctx, nic.peer, nic.peer_port, "qos")
                if leaf_problem is None and leaf is None:
                    results.append(self.result(nic.peer, nic.peer_port, FAIL, "%s %s has no QoS configuration "
                                               "(the switch reports no QoS for the port)" % (nic.peer, nic.peer_port)))
                leaf_end = None if leaf is None else \
                    (nic.peer, nic.peer_port, {k: leaf[k] for k in ("trust", "pfc", "ecn") if k in leaf})
                if problem is None and have is None:
                    problem = self.result(dev.name, nic.name, SKIP, "%s: the server reports no QoS for this NIC" % nic.label())
                    results.append(problem)
                elif problem is not None:
                    nic_problem = nic_problem or problem
                if have is not None and leaf_end is not None:
                    results += self._compare(ctx, [(dev.name, nic.name, have), leaf_end], [nic_want, nic_want])
                    continue
                # An end that cannot be read: the other is compared with the plan alone, and the link never passes.
                if leaf_end is not None:
                    results += self._one_end(leaf_end, nic_want, "server port; NIC side not checked: %s: %s"
                                             % (nic.label(), problem.message))
                if have is not None and leaf_end is None:
                    results += self._one_end((dev.name, nic.name, have), nic_want, "%s; leaf side not checked: %s"
                                             % (nic.label(), leaf_problem.message if leaf_problem else
                                                "%s %s has no QoS configuration" % (nic.peer, nic.peer_port)))
                if leaf_problem is not None:
                    results.append(leaf_problem)
            if nic_problem:
                results.append(nic_problem)
        return results

    def _one_end(self, end, want, why):
        device, port, have = end
        diff = _differences(have, want)
        if diff:
            return [self.result(device, port, FAIL, "%s %s has %s, planned %s (%s): apply the QoS profile to it"
                                % (device, port, _describe(have, diff, want), _describe(want, diff, have), why))]
        return [self.result(device, port, SKIP, "%s %s: PFC %s, ECN %s as planned, but the link is not checked (%s)"
                            % (device, port, want["pfc"], want["ecn"], why))]
