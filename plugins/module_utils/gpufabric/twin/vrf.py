"""Tenant VRFs in the twin (VRF mode of tenant isolation, structured/tenant_vrf.py).

The twin's kernel has no VRF devices, and FRR's netns VRF backend names a VRF's namespace after the
VRF, one name for the whole machine, so sixteen leaves cannot each have their own `Vrf-alpha`; FRR's
leaking between netns VRFs also needs veth next hops of its own. So a tenant VRF of a twin leaf is a
namespace of its own, `<leaf>-<VRF>`, running its own FRR, joined to the leaf's namespace by an
internal veth (`vrfl<tenant id>` at both ends, 169.254.0.0/16, from the tenant id) with an iBGP
session over it. The rendered frr.conf is translated, nothing is added from elsewhere:

On the switch (rendered frr.conf) -> in the twin:
- `router bgp ASN vrf V` with `redistribute connected` -> FRR of namespace `<leaf>-V`: `router bgp ASN`,
  the same lines.
- in V: `import vrf default` + `import vrf route-map R` -> in `<leaf>-V`: an iBGP neighbour, the leaf's
  end, activated, with `route-map R in`.
- in default: `import vrf V` + `import vrf route-map EXPORT` (`match source-vrf V`, `set ...`) -> on the
  leaf: an iBGP neighbour, V's end, `next-hop-self`, inbound route-map `TWIN_FROM_V`: the `set` lines of
  EXPORT's entry for V, after denying the internal links.
- a server port bound to V (INTERFACE vrf_name) -> the port stays in the leaf's namespace (its LLDP
  too), bridged at layer 2 to a veth whose other end, in `<leaf>-V`, carries the port's /31.

Why it is faithful where it matters: a packet from a server enters its VRF's table first, which holds
exactly the routes R admits (its own tenant's /31s) plus its connected ports, and nothing else; the
leaf's default table gets each VRF's /31s tagged as EXPORT tags them; iBGP does not pass a route
learned from one VRF namespace to another, as FRR does not leak a leaked route again. The AS path is
the switch's own (iBGP adds no AS). Differences: the VRF's FRR has its own router-id (the internal
link's address: iBGP refuses a peer with its own id), and a frame a server sent to the bridge's own
MAC address would be routed in the leaf's default table (a server never does: the bridge answers no ARP).
"""
VRF_LINK_NET = (169, 254)
TWIN_LINKS_LIST = "TWIN_VRF_LINKS"


def vrf_link(tenant_id):
    """(interface name, leaf end, VRF end) of the internal link of a tenant's VRF (tenant ids 1..4094)."""
    base = 2 * tenant_id
    leaf = "%d.%d.%d.%d" % (VRF_LINK_NET + (base // 256, base % 256))
    vrf = "%d.%d.%d.%d" % (VRF_LINK_NET + ((base + 1) // 256, (base + 1) % 256))
    return "vrfl%d" % tenant_id, leaf, vrf


def is_vrf_link(address):
    """Whether ``address`` is on an internal VRF link of the twin (never a planned address)."""
    return tuple(int(x) for x in str(address).split(".")[:2]) == VRF_LINK_NET


def namespace(leaf, vrf):
    # "-", not ".": FRR refuses a pathspace (-N) with a dot in it.
    return "%s-%s" % (leaf, vrf)


def is_vrf_namespace_of(name, leaf):
    """Whether namespace ``name`` is one of ``leaf``'s tenant VRFs (VRF names start with "Vrf")."""
    return name.startswith(leaf + "-Vrf")


def port_bridge(port):
    return "b" + port


def port_link(port):
    return "v" + port


def _blocks(conf):
    """The frr.conf as [(first line, [lines])]: top-level blocks ending at `exit`, single lines, `!`."""
    blocks, current = [], None
    for line in conf.splitlines():
        if current is not None:
            current[1].append(line)
            if line == "exit":
                blocks.append(current)
                current = None
            continue
        if line.startswith(("router ", "route-map ")):
            current = (line, [line])
        else:
            blocks.append((line, [line]))
    if current is not None:
        blocks.append(current)
    return blocks


def translate(host, conf, vrf_ids):
    """(the leaf's frr.conf, {VRF: its namespace's frr.conf}) for a rendered ``conf`` with tenant VRFs.
    ``vrf_ids``: {VRF name: tenant id}."""
    blocks = _blocks(conf)
    vrf_blocks, export_sets, shared, asn = {}, {}, [], None
    for head, lines in blocks:
        words = head.split()
        if head.startswith("router bgp ") and len(words) == 5 and words[3] == "vrf":
            vrf_blocks[words[4]] = lines
        elif head.startswith("router bgp ") and len(words) == 3:
            asn = words[2]
        elif head.startswith("bgp community-list "):
            shared.append(head)
        elif head.startswith("route-map "):
            sources = [ln.split()[-1] for ln in lines if ln.startswith(" match source-vrf ")]
            if sources:
                export_sets[sources[0]] = [ln for ln in lines if ln.startswith(" set ")]
            elif any(ln.startswith(" match community ") for ln in lines):
                shared += lines + ["!"]
    leaf_out = []
    for head, lines in blocks:
        words = head.split()
        if head.startswith("router bgp ") and len(words) == 5:
            continue
        if head.startswith("router bgp "):
            leaf_out += _twin_route_maps(vrf_ids, export_sets)
            lines = _leaf_router(lines, vrf_ids, asn)
        leaf_out += [ln for ln in lines if ln != "!" or not leaf_out or leaf_out[-1] != "!"]
    vrf_confs = {vrf: _vrf_conf(namespace(host, vrf), vrf_blocks[vrf], shared, vrf_ids[vrf], asn)
                 for vrf in sorted(vrf_ids) if vrf in vrf_blocks}
    return "\n".join(leaf_out) + "\n", vrf_confs


def _twin_route_maps(vrf_ids, export_sets):
    """The inbound route-map of each VRF's session: the internal links (and the VRF namespace's own
    127/8) stay out, the rest is set as the switch's export route-map sets it for that VRF."""
    out = ["ip prefix-list %s seq 5 permit %d.%d.0.0/16 le 32" % ((TWIN_LINKS_LIST,) + VRF_LINK_NET),
           "ip prefix-list %s seq 10 permit 127.0.0.0/8 le 32" % TWIN_LINKS_LIST, "!"]
    for vrf in sorted(vrf_ids):
        out += ["route-map TWIN_FROM_%s deny 5" % vrf, " match ip address prefix-list %s" % TWIN_LINKS_LIST, "exit",
                "!", "route-map TWIN_FROM_%s permit 10" % vrf] + export_sets.get(vrf, []) + ["exit", "!"]
    return out


def _leaf_router(lines, vrf_ids, asn):
    """The leaf's default `router bgp` block: `import vrf` lines become iBGP sessions to the VRFs."""
    peers = [(vrf, vrf_link(vrf_ids[vrf])[2]) for vrf in sorted(vrf_ids)]
    out, added = [], False
    for line in lines:
        if line.startswith("  import vrf "):
            continue
        if line == " !" and not added:
            for vrf, peer in peers:
                out += [" neighbor %s remote-as %s" % (peer, asn), " neighbor %s description %s (twin)" % (peer, vrf)]
            added = True
        if line.startswith("  maximum-paths "):
            for vrf, peer in peers:
                out += ["  neighbor %s activate" % peer, "  neighbor %s next-hop-self" % peer,
                        "  neighbor %s route-map TWIN_FROM_%s in" % (peer, vrf)]
        out.append(line)
    return out


def _vrf_conf(ns, lines, shared, tenant_id, asn):
    """The VRF namespace's frr.conf: the VRF's `router bgp` block as the default instance there, its
    `import vrf` lines as the session to the leaf."""
    leaf_end, vrf_end = vrf_link(tenant_id)[1:]
    body = []
    for line in lines[1:]:
        if line.startswith(" bgp router-id "):
            body += [" bgp router-id %s" % vrf_end, " no bgp default ipv4-unicast",
                     " neighbor %s remote-as %s" % (leaf_end, asn),
                     " neighbor %s description default VRF (twin)" % leaf_end]
        elif line.startswith("  import vrf route-map "):
            body += ["  neighbor %s activate" % leaf_end, "  neighbor %s route-map %s in" % (leaf_end, line.split()[-1])]
        elif line == "  import vrf default":
            continue
        else:
            body.append(line)
    head = ["frr defaults datacenter", "hostname %s" % ns, "log syslog informational",
            "service integrated-vtysh-config", "!"]
    return "\n".join(head + shared + ["!", "router bgp %s" % asn] + body + ["!"]) + "\n"


def tenant_ids(conf):
    """{VRF name: tenant id} from a switch's frr.conf: the community its export route-map sets on the routes of each
    VRF (`match source-vrf V` + `set community <ASN>:<id>`, structured/tenant_vrf.py); the ids number the internal
    links. A VRF whose routes the frr.conf does not export yet has no id."""
    ids = {}
    for _head, lines in _blocks(conf or ""):
        sources = [ln.split()[-1] for ln in lines if ln.startswith(" match source-vrf ")]
        sets = [ln.split()[2] for ln in lines if ln.startswith(" set community ") and len(ln.split()) > 2]
        if sources and sets and sets[0].partition(":")[2].isdigit():
            ids[sources[0]] = int(sets[0].partition(":")[2])
    return ids


def add_vrfs(twin, ns, vrfs, iface):
    """Turn the leaf namespace ``ns`` of a switch with tenant VRFs (``vrfs``: {VRF name: [ports bound to it]}, the
    layout's ``vrfs``) into the layout above: its VRF-bound ports bridged to veths into one namespace per VRF, an
    internal link per VRF, FRR translated. ``iface`` makes an interface (twin/desired.py Iface). Returns the VRF
    namespaces. A VRF the switch's frr.conf has no routing for yet (no tenant id: its ports were bound before its
    frr.conf was installed, as a deploy changes the switch's own configuration first) gets its namespace and ports,
    with only their connected routes, as a VRF has on the switch without its BGP instance."""
    if not vrfs:
        return []
    ids = {name: tid for name, tid in tenant_ids(ns.frr_conf).items() if name in vrfs}
    added = []
    for name, ports in sorted(vrfs.items()):
        vns = twin.ns(namespace(ns.name, name), "tenant_vrf")
        vns.sysctls = dict(ns.sysctls)
        if name in ids:
            link, leaf_end, vrf_end = vrf_link(ids[name])
            ns.add(iface(link, "veth", 9216, ["%s/31" % leaf_end]))
            vns.add(iface(link, "veth", 9216, ["%s/31" % vrf_end]))
            twin.veths.append((ns.name, link, vns.name, link))
        for port in ports:
            cabled = ns.ifaces.get(port)
            if cabled is None:
                continue
            # The port keeps its place (and LLDP) in the leaf; its /31 moves to the VRF's end of the bridge.
            addrs, cabled.addrs, cabled.master = cabled.addrs, [], port_bridge(port)
            ns.add(iface(port_bridge(port), "bridge", None, (), None, True, ("stp_state", "0")))
            ns.add(iface(port_link(port), "veth", cabled.mtu, (), port_bridge(port)))
            vns.add(iface(port, "veth", cabled.mtu, addrs))
            twin.veths.append((ns.name, port_link(port), vns.name, port))
        vns.add(iface("lo", "loopback", None, ["127.0.0.1/8"]))
        added.append(vns)
    leaf_conf, vrf_confs = translate(ns.name, ns.frr_conf, ids)
    ns.frr_conf = leaf_conf
    for (name, _ports), vns in zip(sorted(vrfs.items()), added):
        vns.frr_conf = vrf_confs.get(name)
    return added
