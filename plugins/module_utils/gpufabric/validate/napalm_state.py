"""DeviceState from NAPALM getters, for switches whose NOS has a NAPALM driver (the host's napalm_driver names it).

napalm is imported only when this collector runs, so the library imports without it. Routes (ECMP),
a NOS's own QoS source and server sources are not NAPALM getters: those checks SKIP on such devices.
"""
import time

from .state import DeviceState

GETTERS = {"lldp": "get_lldp_neighbors_detail", "bgp": "get_bgp_neighbors", "links": "get_interfaces",
           "counters": "get_interfaces_counters", "optics": "get_optics"}


def _lldp(data):
    return {port: [{"system": n.get("remote_system_name"), "port": n.get("remote_port")} for n in neighbors]
            for port, neighbors in data.items()}


def _bgp(data):
    default = data.get("global", {})
    peers = {}
    for ip, peer in default.get("peers", {}).items():
        ipv4 = peer.get("address_family", {}).get("ipv4", {})
        peers[ip] = {"state": "Established" if peer.get("is_up") else ("Idle (Admin)" if not peer.get("is_enabled")
                                                                       else "down"),
                     "remote_as": peer.get("remote_as"), "prefixes_received": ipv4.get("received_prefixes"),
                     "hostname": None}
    local = next((p.get("local_as") for p in default.get("peers", {}).values()), None)
    return {"local_as": local, "peers": peers}


def _interfaces(interfaces, counters):
    out = {}
    for name, iface in interfaces.items():
        c = counters.get(name, {})
        speed = iface.get("speed")
        out[name] = {"admin_up": iface.get("is_enabled"), "oper_up": iface.get("is_up"), "mtu": iface.get("mtu"),
                     "speed": int(speed) if speed and speed > 0 else None, "flaps": None,
                     "rx_errors": c.get("rx_errors"), "tx_errors": c.get("tx_errors"),
                     "rx_discards": c.get("rx_discards"), "tx_discards": c.get("tx_discards")}
    return out


def _optics(data):
    out = {}
    for port, detail in data.items():
        channels = detail.get("physical_channels", {}).get("channel", [])
        rx = [ch.get("state", {}).get("input_power", {}).get("instant") for ch in channels]
        out[port] = {"rx_dbm": [v for v in rx if v is not None]}
    return out


def collect_napalm(device, role, sources, driver, hostname, username=None, password=None, optional_args=None):
    """DeviceState of one switch through NAPALM ``driver`` (the host's ``napalm_driver``: the NAPALM name of its NOS);
    without one, every source is an ERROR saying so: no NOS is assumed."""
    started = time.perf_counter()
    state = DeviceState(device, role)
    if not driver:
        for source in sources:
            state.errors[source] = "no napalm_driver for %s: transport napalm needs the NAPALM driver of its NOS" % device
        return state
    try:
        import napalm
        conn = napalm.get_network_driver(driver)(hostname, username, password, optional_args=optional_args or {})
        conn.open()
    # Any driver failure is this device's ERROR, not the whole run's.
    except Exception as exc:  # pylint: disable=broad-except
        for source in sources:
            state.errors[source] = "NAPALM %s: %s" % (driver, exc)
        return state
    try:
        got = {}
        wanted = set(sources) | ({"counters"} if "links" in sources else set())
        for source, getter in GETTERS.items():
            if source not in wanted:
                continue
            try:
                got[source] = getattr(conn, getter)()
            except NotImplementedError:
                state.unavailable[source] = "NAPALM driver %s has no %s" % (driver, getter)
            except Exception as exc:  # pylint: disable=broad-except
                state.errors[source] = "%s: %s" % (getter, exc)
    finally:
        conn.close()
    if "lldp" in got:
        state.lldp = _lldp(got["lldp"])
    if "bgp" in got:
        state.bgp = _bgp(got["bgp"])
    if "links" in got:
        state.interfaces = _interfaces(got["links"], got.get("counters", {}))
    if "optics" in got:
        state.optics = _optics(got["optics"])
    for source in sources:
        if source in ("routes", "qos", "sysfs", "addrs", "rules", "route_tables", "nic_qos"):
            state.unavailable.setdefault(source, "not collected through NAPALM (driver %s)" % driver)
    state.seconds = time.perf_counter() - started
    return state
