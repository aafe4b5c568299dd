"""Per-port layer 1/2 checks against the plan: link up, MTU, error/discard counters and flaps, speed, optics."""
from .base import FAIL, PASS, SKIP, Check, SWITCH_ROLES, for_roles

ALL_ROLES = SWITCH_ROLES + ("gpu_server",)


class _PortCheck(Check):
    """Runs ``port_result(port, iface, state, ctx)`` for every planned port of every collected device."""

    def run(self, ctx):
        results = []
        for dev, state in self.usable(ctx, results):
            for port in ctx.expect.ports[dev.name].values():
                iface = (state.interfaces or {}).get(port.name)
                if iface is None:
                    results.append(self.result(dev.name, port.name, FAIL, "%s does not exist on the device "
                                               "(planned to %s %s)" % (port.label(), port.peer, port.peer_port)))
                    continue
                results.append(self.port_result(port, iface, state, ctx))
        return results

    def port_result(self, port, iface, state, ctx):
        raise NotImplementedError


def _peer_iface(ctx, port):
    state = ctx.states.get(port.peer)
    return (state.interfaces or {}).get(port.peer_port) if state is not None else None


class LinkState(_PortCheck):
    name = "link_state"
    description = "every planned port is administratively and operationally up"
    sources = for_roles(ALL_ROLES, ("links",))

    def port_result(self, port, iface, state, ctx):
        if iface["oper_up"]:
            return self.result(port.device, port.name, PASS, "%s is up" % port.label())
        peer = _peer_iface(ctx, port)
        if not iface["admin_up"]:
            why = "administratively down here: bring it up"
        elif peer is not None and not peer["admin_up"]:
            why = "the far end %s %s is administratively down" % (port.peer, port.peer_port)
        else:
            why = "no carrier: check the cable and the optics at both ends"
        return self.result(port.device, port.name, FAIL, "%s is down (planned to %s %s): %s"
                           % (port.label(), port.peer, port.peer_port, why))


class Mtu(_PortCheck):
    name = "mtu"
    # Both ends of a switch link are planned equal, so "as planned" at each end is "equal on both ends";
    # only the end that deviates fails, and its message gives the far end's MTU.
    description = "MTU as planned on every port (so equal on both ends of a switch link)"
    sources = for_roles(ALL_ROLES, ("links",))

    def port_result(self, port, iface, state, ctx):
        peer = _peer_iface(ctx, port)
        peer_text = " (far end %s %s has %s)" % (port.peer, port.peer_port, peer["mtu"]) if peer else ""
        if iface["mtu"] != port.mtu:
            return self.result(port.device, port.name, FAIL, "%s MTU %s, planned %s%s"
                               % (port.label(), iface["mtu"], port.mtu, peer_text))
        return self.result(port.device, port.name, PASS, "%s MTU %s" % (port.label(), iface["mtu"]))


class InterfaceErrors(_PortCheck):
    name = "interface_errors"
    description = "error and discard counters, and carrier flaps since the last validation, under their thresholds"
    sources = for_roles(ALL_ROLES, ("links", "sysfs"))

    def port_result(self, port, iface, state, ctx):
        t = ctx.thresholds
        over = []
        for key, limit in (("rx_errors", t["errors"]), ("tx_errors", t["errors"]),
                           ("rx_discards", t["discards"]), ("tx_discards", t["discards"])):
            value = iface.get(key)
            if value is not None and value > limit:
                over.append("%s %d > %d" % (key, value, limit))
        flaps, since = flaps_since_baseline(ctx, port, iface)
        if flaps is not None and flaps > t["flaps"]:
            over.append("flaps %d > %d (%s)" % (flaps, t["flaps"], since))
        if over:
            return self.result(port.device, port.name, FAIL, "%s: %s (link to %s %s): clean or replace the optics and "
                               "cable, then clear counters" % (port.label(), ", ".join(over), port.peer, port.peer_port))
        return self.result(port.device, port.name, PASS, "%s counters under thresholds" % port.label())


def flaps_since_baseline(ctx, port, iface):
    """(carrier changes, since when): Linux counts them since boot and cannot clear them, so they count
    from the last validation run's reading (its baseline); a reading below it means the counter restarted."""
    now = iface.get("flaps")
    before = ctx.baseline.get(port.device, {}).get(port.name)
    if now is None or before is None or now < before:
        return now, "since boot"
    return now - before, "since the last validation"


class InterfaceSpeed(_PortCheck):
    name = "interface_speed"
    description = "negotiated speed equals the planned link speed"
    sources = for_roles(ALL_ROLES, ("links", "sysfs"))

    def port_result(self, port, iface, state, ctx):
        planned = port.link.speed * 1000
        if state.virtual and not iface.get("speed_reported"):
            return self.result(port.device, port.name, SKIP, "%s is virtual (no real speed)" % port.label())
        if iface.get("speed") is None:
            return self.result(port.device, port.name, SKIP, "%s reports no speed" % port.label())
        if iface["speed"] != planned:
            return self.result(port.device, port.name, FAIL, "%s runs at %d Mb/s, planned %d Mb/s: check the optic "
                               "type and the port speed setting" % (port.label(), iface["speed"], planned))
        return self.result(port.device, port.name, PASS, "%s at %d Mb/s" % (port.label(), planned))


class OpticsDom(Check):
    name = "optics_dom"
    description = "optical receive power of every planned port above the threshold (where DOM is exposed)"
    sources = for_roles(SWITCH_ROLES, ("optics",))

    def run(self, ctx):
        results = []
        for dev, state in self.devices(ctx):
            if state.optics is None:
                blocked = self.blocked(dev.name, state)
                results.append(blocked or self.result(dev.name, "*", SKIP, "no optics DOM source on %s" % dev.name))
                continue
            for port in ctx.expect.ports[dev.name].values():
                rx = (state.optics.get(port.name) or {}).get("rx_dbm") or []
                if not rx:
                    results.append(self.result(dev.name, port.name, SKIP, "%s reports no DOM" % port.label()))
                elif min(rx) < ctx.thresholds["rx_power_dbm"]:
                    results.append(self.result(dev.name, port.name, FAIL, "%s receive power %.2f dBm below %.1f dBm "
                                               "(link to %s %s): clean the connectors or replace the optic"
                                               % (port.label(), min(rx), ctx.thresholds["rx_power_dbm"],
                                                  port.peer, port.peer_port)))
                else:
                    results.append(self.result(dev.name, port.name, PASS, "%s receive power %.2f dBm"
                                               % (port.label(), min(rx))))
        return results
