"""The twin's EOS switch answering ``show ip bgp`` and ``show ip route`` (JSON) from the FRR that runs its routing in
the namespace: FRR's tables in the shape eAPI gives them, as Arista's EOS user manual and eAPI command reference
name the fields (and napalm's eos driver reads them, ``get_route_to``): ``vrfs.default.bgpRouteEntries.<prefix>
.bgpRoutePaths[]`` with ``routeType`` (``valid``, ``active``, ``suppressed``) and ``peerEntry.peerAddr``;
``vrfs.default.routes.<prefix>`` with ``routeType`` (``eBGP``, ``iBGP``, ``connected``, ``static``) and ``vias[]``
(``nexthopAddr``, ``interface``). Added by the deploy part of issue 43 (the BGP gate and the routes collector read
them); text format is refused as an unconverted command would be."""

ROUTE_TYPES = {"connected": "connected", "static": "static", "kernel": "kernel", "local": "connected"}


def _eos_port(ifname):
    return ifname.replace("_", "/") if (ifname or "").startswith("Ethernet") else ifname


def bgp_table(frr, asn=""):
    """FRR's ``show bgp vrf default ipv4 unicast json`` -> EOS's ``show ip bgp`` JSON."""
    entries = {}
    for prefix, paths in ((frr or {}).get("routes") or {}).items():
        out = []
        for path in paths or ():
            peer = path.get("peerId")
            entry = {"nextHop": ((path.get("nexthops") or [{}])[0]).get("ip", ""),
                     "routeType": {"valid": bool(path.get("valid")), "active": bool(path.get("bestpath")),
                                   "suppressed": bool(path.get("suppressed")), "backup": False,
                                   "ecmpHead": False, "ecmp": bool(path.get("multipath")),
                                   "ecmpContributor": bool(path.get("multipath"))},
                     "asPathEntry": {"asPath": path.get("path", "") or "i",
                                     "asPathType": "Local" if peer in (None, "(unspec)", "0.0.0.0") else "External"}}
            if peer not in (None, "(unspec)", "0.0.0.0"):
                entry["peerEntry"] = {"peerAddr": peer, "peerRouterId": path.get("peerId", "")}
            out.append(entry)
        address, _sep, length = prefix.partition("/")
        entries[prefix] = {"address": address, "maskLength": int(length or 32), "totalPaths": len(out),
                           "bgpRoutePaths": out}
    return {"vrfs": {"default": {"vrf": "default", "routerId": (frr or {}).get("routerId", "0.0.0.0"),
                                 "asn": str((frr or {}).get("localAS", asn)), "bgpRouteEntries": entries}}}


def ip_route(frr):
    """FRR's ``show ip route json`` -> EOS's ``show ip route`` JSON (each prefix's selected route)."""
    routes = {}
    for prefix, entries in (frr or {}).items():
        for entry in entries or ():
            if not entry.get("selected"):
                continue
            protocol = entry.get("protocol")
            kind = ROUTE_TYPES.get(protocol) or ("eBGP" if protocol == "bgp" else protocol)
            vias = []
            for hop in entry.get("nexthops") or ():
                if not hop.get("active", True):
                    continue
                via = {"interface": _eos_port(hop.get("interfaceName"))}
                if hop.get("ip"):
                    via["nexthopAddr"] = hop["ip"]
                vias.append(via)
            routes[prefix] = {"routeType": kind, "vias": vias, "directlyConnected": protocol == "connected",
                              "routeAction": "forward", "kernelProgrammed": True, "hardwareProgrammed": True,
                              "preference": entry.get("distance", 0), "metric": entry.get("metric", 0)}
    return {"vrfs": {"default": {"routes": routes, "allRoutesProgrammedHardware": True,
                                 "allRoutesProgrammedKernel": True, "defaultRouteState": "notSet"}}}


def answer(oper, line):
    """The JSON answer to ``show ip bgp`` / ``show ip route`` from ``oper`` (its ``bgp_table``/``routes``: FRR's)."""
    if line.startswith("show ip bgp"):
        reader = getattr(oper, "bgp_table", None)
        return bgp_table(reader() if reader else {})
    reader = getattr(oper, "routes", None)
    return ip_route(reader() if reader else {})
