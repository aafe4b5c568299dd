"""SONiC platform facts of a switch model (nos/sonic/platforms.yml): lanes, buffer pools and profiles.

The traditional buffer model: BUFFER_POOL and BUFFER_PROFILE rows are the platform's own numbers
(what `config qos reload` writes), and a lossless priority group gets the profile buffermgrd would
create from pg_profile_lookup.ini for the port's speed and cable length, named as buffermgrd names it.
"""
import functools
import os

from ...errors import SpecError

_DATA = os.path.join(os.path.dirname(__file__), "platforms.yml")


@functools.lru_cache(maxsize=1)
def _data():
    import yaml  # here, not at the top: Ansible's import sanity test loads module_utils without PyYAML

    with open(_DATA, encoding="utf-8") as f:
        return yaml.safe_load(f)


def facts(model):
    """The model's own facts (empty for a model without any)."""
    return _data()["platforms"].get(model, {})


def buffer_facts(model):
    """The facts that hold the model's buffer numbers: its own, or those of the model it borrows from."""
    own = facts(model)
    if "buffer_pools" in own:
        return own
    return facts(own.get("buffers_like") or _data()["default_buffers_like"])


def _expand(lanes):
    first, last = (str(lanes).split("-") + [None])[:2]
    return ",".join(str(n) for n in range(int(first), int(last or first) + 1))


def lanes(model, port, breakout=None):
    """PORT|lanes: the platform's lanes, or (stand-in models) the lane number in the port's name. A
    sub-port of a broken-out cage (``breakout``: port, sub, of) takes its equal share of the cage's lanes."""
    if breakout and facts(model).get("lanes") is not None:
        cage = lanes(model, breakout["port"]).split(",")
        share = len(cage) // breakout["of"]
        if share < 1 or len(cage) % breakout["of"]:
            raise SpecError("models.switches.%s" % model, "%s has %d lanes, which do not split %d ways for %s" % (
                breakout["port"], len(cage), breakout["of"], breakout["mode"]))
        return ",".join(cage[breakout["sub"] * share:(breakout["sub"] + 1) * share])
    number = int(port[len("Ethernet"):])
    known = facts(model).get("lanes")
    if known is None:
        return str(number)
    if number not in known:
        raise SpecError("models.switches.%s" % model, "port %s is not in the SONiC platform's port_config.ini"
                        " (nos/sonic/platforms.yml)" % port)
    return _expand(known[number])


def _row(fields):
    return {k: str(v) for k, v in fields.items()}


def buffer_pools_and_profiles(model):
    """(BUFFER_POOL rows, BUFFER_PROFILE rows) the platform's buffer template writes."""
    f = buffer_facts(model)
    return ({n: _row(v) for n, v in f["buffer_pools"].items()},
            {n: _row(v) for n, v in f["buffer_profiles"].items()})


def lossless_cable(model, speed_mbps, meters):
    """The shortest cable length of the lookup table that covers ``meters`` (the longest if none does)."""
    table = buffer_facts(model).get("pg_lossless", {}).get(speed_mbps)
    if not table:
        raise SpecError("models.switches.%s" % model, "no lossless buffer sizes for %d Mb/s ports in the"
                        " platform's pg_profile_lookup.ini (nos/sonic/platforms.yml)" % speed_mbps)
    steps = sorted(table, key=lambda c: int(c[:-1]))
    return next((c for c in steps if meters <= int(c[:-1])), steps[-1])


def lossless_profile(model, speed_mbps, cable):
    """(name, BUFFER_PROFILE row) of the lossless PG profile buffermgrd makes for this speed and cable."""
    size, xon, xoff, dynamic_th, xon_offset = buffer_facts(model)["pg_lossless"][speed_mbps][cable]
    row = {"pool": "ingress_lossless_pool", "size": size, "xon": xon, "xoff": xoff, "dynamic_th": dynamic_th,
           "xon_offset": xon_offset}
    return "pg_lossless_%d_%s_profile" % (speed_mbps, cable), _row(row)
