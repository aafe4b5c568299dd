"""How the ports of one tier's switch split: down to the tier below, up to the tier above, reserved, each
broken out to the speed its peer runs (the spec's breakout, or the one the model's port modes give), and the
error that names the key when a tier's ports cannot be split so. ``clos.Clos`` reads them tier by tier.
"""
from ..catalog import parse_mode
from ..errors import SpecError


def ceil_div(a, b):
    return -(-a // b)


def split_ports(model, tier, path, has_up, reserve_up=0, pod_down=None):
    """Choose a tier's downlink and uplink ports on ``model``: (down, up, reserved) port indices.

    ``reserve_up`` ports are set aside after the uplinks (the MC-LAG peer link). ``pod_down``: the
    downlinks a pod of the declared size needs (``backend.pod_gpus``); an oversubscription ratio then
    applies to them, not to every port of the model.
    """
    down_pool = model.usable("down") + model.usable("any")
    up_only = model.usable("up")
    ratio = tier.get("oversubscription")
    d, u = tier.get("downlinks"), tier.get("uplinks")
    if ratio and (d is not None or u is not None):
        raise SpecError(path + ".oversubscription", "set either oversubscription or downlinks/uplinks, not both")
    if pod_down is not None:
        if d is not None and d < pod_down:
            raise SpecError(path + ".downlinks", "%d downlinks, but a pod of backend.pod_gpus needs %d: use at "
                            "least %d or smaller pods" % (d, pod_down, pod_down))
        d = pod_down if d is None else d
    if not has_up:
        if u:
            raise SpecError(path + ".uplinks", "%d uplinks on the top tier: nothing is above it (add a tier above "
                            "or remove the key)" % u)
        if ratio:
            raise SpecError(path + ".oversubscription", "the top tier has no uplinks to oversubscribe")
        d = len(down_pool) if d is None else d
        u = 0
    elif ratio:
        a, b = (int(x) for x in ratio.split(":"))
        if a < 1 or b < 1:
            raise SpecError(path + ".oversubscription", "%r: both sides must be at least 1, e.g. 3:1" % ratio)
        if d is not None:
            # The pod's downlinks are fixed: the fewest uplinks that keep the ratio at or below the
            # declared one (Meta's 7:1 over 192 racks: 28 uplinks, 6.86:1; 27 would be 7.11:1).
            u = ceil_div(d * b, a)
        else:
            total = len(down_pool) + len(up_only) - reserve_up
            d = total * a // (a + b)
            u = total - d
    else:
        any_ports = len(model.usable("any"))
        if d is None:
            d = len(model.usable("down")) + (any_ports if up_only else any_ports // 2)
        if u is None:
            u = len(up_only) - reserve_up if up_only else min(any_ports - min(d, any_ports), d) - reserve_up
    if d < 1:
        raise SpecError(path + ".downlinks", "no downlink ports: %s has %d ports for them" % (model.name, len(down_pool)))
    if d > len(down_pool):
        raise SpecError(path + ".downlinks", "%d downlinks but %s has %d ports that can face down: use at most %d "
                        "or a larger switch" % (d, model.name, len(down_pool), len(down_pool)))
    taken = set(down_pool[:d])
    up_pool = up_only + [p for p in model.usable("any") if p not in taken]
    if u < 0 or u + reserve_up > len(up_pool):
        raise SpecError(path + ".uplinks", "%d uplinks%s but %s has %d ports left after %d downlinks: use at most %d"
                        % (u, " plus %d peer-link ports" % reserve_up if reserve_up else "", model.name,
                           len(up_pool), d, max(0, len(up_pool) - reserve_up)))
    if has_up and u < 1:
        raise SpecError(path + ".uplinks", "a tier below spines needs at least one uplink")
    return down_pool[:d], up_pool[:u], up_pool[u:u + reserve_up]


def choose_breakout(model, pool, tier, key, path, peer_speed, peer_what):
    """(mode, sub-ports per cage) of the ports ``pool`` (physical indices of ``model``): the spec's ``key``
    (downlink_breakout, uplink_breakout) when set, else the mode the speeds at both ends call for (a
    400G peer on an 800G port: 2x400G, one cage serving two links). (None, 1) leaves the ports whole."""
    if not pool:
        return None, 1
    index = pool[0]
    speed = model.ports[index][1]
    listed = list(model.breakouts[index])
    explicit = tier.get(key)
    if explicit:
        wanted = parse_mode(explicit)
        if explicit == "none" or wanted == (1, speed):
            return None, 1
        mode = model.find_mode(index, *wanted) if wanted else None
        if mode is None:
            raise SpecError("%s.%s" % (path, key), "%r is not a breakout %s lists for its %dG ports (listed: %s): use "
                            "one of them, or none" % (explicit, model.name, speed, ", ".join(listed) or "none"))
        return mode, wanted[0]
    if peer_speed is None or peer_speed == speed:
        return None, 1
    if peer_speed > speed:
        raise SpecError(path + ".model", "%s are %dG, faster than %s's %dG ports: a port cannot carry a faster "
                        "link; choose a model with %dG ports (or slower NICs)" % (
                            peer_what, peer_speed, model.name, speed, peer_speed))
    if speed % peer_speed:
        return None, 1      # check_speed names the mismatch
    count = speed // peer_speed
    mode = model.find_mode(index, count, peer_speed)
    if mode is None:
        raise SpecError(path + ".model", "%s are %dG on %s's %dG ports, which needs a %dx%dG breakout, but the model "
                        "lists none (listed: %s): choose a model whose ports match or list the mode under "
                        "models.switches" % (peer_what, peer_speed, model.name, speed, count, peer_speed,
                                             ", ".join(listed) or "none"))
    return mode, count


def _cages(count, factor, path, key, mode):
    """Logical ports (what `downlinks`/`uplinks` count) to whole cages, refusing a split cage."""
    if count is None or factor == 1:
        return count
    if count % factor:
        raise SpecError("%s.%s" % (path, key), "%d is not a whole number of %s cages (%d ports each): use %d or %d" % (
            count, mode, factor, count - count % factor, count - count % factor + factor))
    return count // factor


def split_broken_out(model, tier, path, has_up, reserve_up=0, pod_down=None, down_peer=None, down_what="",
                     up_what=""):
    """split_ports with breakouts: (view, down, up, reserved) where ``view`` is the model as this tier uses it
    (its cages broken out, see catalog.PortView) and the three lists index the view's ports. ``downlinks``,
    ``uplinks`` and ``pod_down`` count the view's ports (links), the split itself is made in whole cages."""
    down_pool = model.usable("down") + model.usable("any")
    up_pool = model.usable("up") + model.usable("any")
    down_mode, df = choose_breakout(model, down_pool, tier, "downlink_breakout", path, down_peer, down_what)
    up_mode, uf = choose_breakout(model, up_pool if has_up else [], tier, "uplink_breakout", path, None, up_what)
    if not has_up and tier.get("uplink_breakout"):
        raise SpecError(path + ".uplink_breakout", "the top tier has no uplinks to break out: remove the key")
    if df == 1 and uf == 1 and down_mode is None and up_mode is None:
        down, up, reserved = split_ports(model, tier, path, has_up, reserve_up, pod_down)
        return model, down, up, reserved
    cage_tier = dict(tier, downlinks=_cages(tier.get("downlinks"), df, path, "downlinks", down_mode),
                     uplinks=_cages(tier.get("uplinks"), uf, path, "uplinks", up_mode))
    down, up, reserved = split_ports(model, cage_tier, path, has_up, reserve_up,
                                     None if pod_down is None else ceil_div(pod_down, df))
    modes = dict.fromkeys(down, down_mode) if down_mode else {}
    if up_mode:
        modes.update(dict.fromkeys(up, up_mode))
    view = model.broken_out(modes)

    def flat(cages):
        return [i for c in cages for i in view.logical[c]]

    return view, flat(down), flat(up), flat(reserved)


def fan_out(path, what, lower, tier, lower_up):
    """(switches per plane, links from each lower switch to each): the upper tier's count must divide the
    lower switch's uplinks, or its links would not spread evenly (one clear refusal, no uneven rule)."""
    uplinks = len(lower_up)
    count = tier.get("count") or uplinks
    if uplinks % count:
        divisors = [n for n in range(1, uplinks + 1) if uplinks % n == 0]
        raise SpecError(path, "%d %s do not divide the %d %s uplinks evenly (each %s would send a different number "
                        "of links to each): use a divisor of %d (%s)" % (
                            count, what, uplinks, lower, lower, uplinks, ", ".join(map(str, divisors))))
    return count, uplinks // count


def check_speed(path, what, lower_speeds, upper_speeds):
    lo, up = set(lower_speeds), set(upper_speeds)
    if lo != up:
        raise SpecError(path, "%s: ports of %s Gb/s meet ports of %s Gb/s: choose models whose ports match"
                        % (what, "/".join(map(str, sorted(lo))), "/".join(map(str, sorted(up)))))
