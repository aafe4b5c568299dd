"""Bonds, the VLAN-aware bridge, SVIs and VRR of a Cumulus switch on the twin, read from its applied NVUE configuration.

This kernel has no bonding, VLAN or VRF devices (docs/twin.md), so the twin models them with what it has, the same way
it models any rendered LAG in a VLAN (twin/desired.py ``_master``):

- a VLAN of a bridge domain (``bridge domain br_default vlan 100``) is one Linux bridge named ``vlan<id>``, the name
  Cumulus gives the VLAN's SVI; a port carries one VLAN (an access port, or a trunk whose VLAN set is one VLAN), as
  there are no VLAN tags to tell two apart;
- a bond (``type bond`` or ``peerlink``) is its first cabled member: that member joins the bond's VLAN bridge, the
  others stay up and unbridged (a bond with one active member, no L2 loop over a two-member peer link); the members
  take the bond's MTU and admin state;
- an SVI (``interface vlan<id>``, ``type svi``) is the bridge's own addresses and MTU;
- VRR (``interface vlan<id> ip vrr``) is what Cumulus itself makes of it: a macvlan ``vlan<id>-v0`` on the SVI with the
  virtual MAC and the virtual addresses, the MAC a permanent local entry of the bridge (ifupdown2's address-virtual),
  so both MLAG peers answer for the gateway and neither learns the other's copy of the MAC over the peer link;
- MLAG (``mlag``, ``bond mlag``) programs nothing more: there is no clagd; ``nv show mlag`` works out its view when
  asked (oper.py). Not modelled: the peer link's egress filter towards dual-connected bonds, protodown of the
  secondary's bonds when the peer link fails and the peer is alive, init-delay, MAC synchronisation.

Emulator code: it reads the NVUE tree as NVIDIA's object model (nvueschema) lays it out and imports nothing of the
product's renderer or schema gate.
"""
import ipaddress
import re

from .frr import Unsupported

CUMULUS_MTU = 9216
BOND_TYPES = ("bond", "peerlink")
L2_LINK = re.compile(r"^vlan[0-9]+(-v[0-9]+)?$")
VRR_MAC_AUTO = "00:00:5e:00:01:01"    # NVUE's VRR MAC with mac-address auto and the default fabric-id 1


def v4(link):
    return sorted("%s/%s" % (a["local"], a["prefixlen"]) for a in link.get("addr_info", []) if a.get("family") == "inet")


def addresses(conf, where):
    out = []
    for addr in sorted(((conf.get("ip") or {}).get("address")) or {}):
        try:
            iface = ipaddress.ip_interface(addr)
        except ValueError:
            raise Unsupported("%s.ip.address.%s: not an address with a prefix length" % (where, addr))
        if iface.version != 4:
            raise Unsupported("%s.ip.address.%s: IPv6 is not modelled on the twin" % (where, addr))
        out.append(addr)
    return out


def bridge_name(vid):
    return "vlan%d" % vid


def vrr_name(vid):
    return "vlan%d-v0" % vid


def _vids(spec, where):
    """VLAN ids of an NVUE VLAN set ({"100": {}, "200-202": {}})."""
    out = []
    for key in spec or {}:
        text = str(key)
        match = re.match(r"^([0-9]+)(?:-([0-9]+))?$", text)
        if not match:
            raise Unsupported("%s.%s: a VLAN id or range" % (where, text))
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if not 1 <= low <= high <= 4094:
            raise Unsupported("%s.%s: VLAN ids 1-4094" % (where, text))
        out.extend(range(low, high + 1))
    return sorted(set(out))


def _on(value, default):
    return default if value is None else value in ("on", "enabled", "enable")


def _domains(config):
    domains = {}
    for name, domain in sorted(((config.get("bridge") or {}).get("domain") or {}).items()):
        where = "bridge.domain.%s" % name
        if domain.get("type", "vlan-aware") != "vlan-aware":
            raise Unsupported("%s.type: only vlan-aware bridges on the twin" % where)
        if "vlan" in domain:
            vids = _vids(domain["vlan"], where + ".vlan")
        else:
            vids = [1]      # NVUE's default VLAN of a domain
        domains[name] = vids
    seen = {}
    for name, vids in domains.items():
        for vid in vids:
            if vid in seen:
                raise Unsupported("bridge.domain.%s.vlan %d: also in bridge domain %s (one bridge per VLAN id on the "
                                  "twin)" % (name, vid, seen[vid]))
            seen[vid] = name
    return domains


def _port_vlan(name, conf, domains):
    """The one VLAN an interface with ``bridge.domain`` carries, or None when it is in no bridge."""
    bridged = (conf.get("bridge") or {}).get("domain") or {}
    if not bridged:
        return None
    where = "interface.%s.bridge.domain" % name
    if len(bridged) != 1:
        raise Unsupported("%s: one bridge domain per port on the twin" % where)
    (domain, port), = bridged.items()
    port = port or {}
    if domain not in domains:
        raise Unsupported("%s.%s: no such bridge domain (bridge.domain.<name>)" % (where, domain))
    if port.get("access") not in (None, "auto"):
        vids = [int(port["access"])]
    elif port.get("vlan") and "all" not in port["vlan"]:
        vids = _vids(port["vlan"], "%s.%s.vlan" % (where, domain))
    else:
        vids = list(domains[domain])
    if set(vids) - set(domains[domain]):
        extra = sorted(set(vids) - set(domains[domain]))[0]
        raise Unsupported("%s.%s: VLAN %s is not a VLAN of the bridge domain" % (where, domain, extra))
    if len(vids) != 1:
        raise Unsupported("%s.%s: carries VLANs %s; the twin bridges one VLAN per port (this kernel has no VLAN "
                          "devices)" % (where, domain, ", ".join(str(v) for v in vids)))
    return vids[0]


def _link(conf):
    link = conf.get("link") or {}
    state = link.get("state") or {"up": {}}
    return int(link.get("mtu", CUMULUS_MTU)), "up" in state


def _bond(out, name, conf, interfaces, domains, cabled):
    """A bond of the configuration into ``out`` (plan's): its members, their bridge and the active one."""
    where = "interface.%s" % name
    bond = conf.get("bond") or {}
    members = sorted(bond.get("member") or {})
    if not members:
        raise Unsupported("%s.bond.member: a bond needs member ports" % where)
    for member in members:
        mconf = interfaces.get(member) or {}
        if not member.startswith("swp") or mconf.get("type", "swp") != "swp":
            raise Unsupported("%s.bond.member.%s: bond members are swp ports" % (where, member))
        if addresses(mconf, "interface.%s" % member) or (mconf.get("bridge") or {}).get("domain"):
            raise Unsupported("interface.%s: a member of %s has no addresses or bridge of its own" % (member, name))
        if member in out["members"]:
            other = out["members"][member]["bond"]
            raise Unsupported("%s.bond.member.%s: already a member of %s" % (where, member, other))
    if (conf.get("ip") or {}).get("address"):
        raise Unsupported("%s.ip.address: routed bonds are not modelled on the twin" % where)
    mlag = bond.get("mlag") or {}
    mlag_on = _on(mlag.get("enable"), False) or mlag.get("state") == "enabled"
    vid = _port_vlan(name, conf, domains)
    mtu, up = _link(conf)
    active = next((m for m in members if m in cabled), None)
    out["bonds"][name] = {"type": conf.get("type"), "members": members, "active": active, "vid": vid,
                          "mode": bond.get("mode", "lacp"), "mlag_id": mlag.get("id") if mlag_on else None}
    for member in members:
        member_mtu, member_up = _link(interfaces.get(member) or {})
        out["members"][member] = {"bond": name, "mtu": mtu, "up": up and member_up,
                                  "master": bridge_name(vid) if vid and member == active else None}


def _svi(out, name, conf):
    """An SVI of the configuration onto its VLAN's bridge in ``out`` (plan's): addresses, MTU and VRR."""
    where = "interface.%s" % name
    vid = conf.get("vlan") or (int(name[4:]) if re.match(r"^vlan[0-9]+$", name) else None)
    if vid is None:
        raise Unsupported("%s.vlan: an SVI names its VLAN" % where)
    bridge = out["bridges"].get(bridge_name(int(vid)))
    if bridge is None:
        raise Unsupported("%s.vlan %s: not a VLAN of any bridge domain" % (where, vid))
    if name != bridge_name(int(vid)):
        raise Unsupported("%s: the twin names the SVI of VLAN %s %s, as Cumulus does"
                          % (where, vid, bridge_name(int(vid))))
    ip = conf.get("ip") or {}
    if ip.get("vrf", "default") != "default":
        raise Unsupported("%s.ip.vrf: SVIs in the default VRF only on the twin" % where)
    bridge["mtu"], bridge["up"] = _link(conf)
    bridge["addrs"] = addresses(conf, where)
    vrr = ip.get("vrr") or {}
    if _on(vrr.get("enable"), False):
        mac = vrr.get("mac-address") or "auto"
        if vrr.get("mac-id") not in (None, "none") and mac == "auto":
            raise Unsupported("%s.ip.vrr.mac-id: a VRR MAC from a fabric id is not modelled on the twin"
                              % where)
        addrs = addresses({"ip": {"address": vrr.get("address")}}, where + ".ip.vrr")
        if not addrs:
            raise Unsupported("%s.ip.vrr.address: VRR needs a virtual address" % where)
        state = vrr.get("state") or {"up": {}}
        bridge["vrr"] = {"name": vrr_name(int(vid)), "mac": (VRR_MAC_AUTO if mac == "auto" else mac).lower(),
                         "addrs": addrs, "up": "up" in state}


def plan(config, cabled):
    """What the configuration's L2 objects make of the namespace, ``cabled``: the switch's ports that exist as veths.

    {"bridges": {bridge: {"vid", "mtu", "addrs", "up", "vrr": None or {"name", "mac", "addrs", "up"}}},
     "members": {port: {"bond", "mtu", "up", "master" (bridge or None)}}, "bridged": {port: bridge} (ports in a
     bridge without a bond), "bonds": {bond: {"type", "members", "active", "vid", "mlag_id", "mode"}}}."""
    interfaces = config.get("interface") or {}
    domains = _domains(config)
    out = {"bridges": {}, "members": {}, "bridged": {}, "bonds": {}}
    for vids in domains.values():
        for vid in vids:
            out["bridges"][bridge_name(vid)] = {"vid": vid, "mtu": CUMULUS_MTU, "addrs": [], "up": True, "vrr": None}
    peerlinks = []
    for name, conf in sorted(interfaces.items()):
        kind = conf.get("type")
        if kind in BOND_TYPES:
            if kind == "peerlink":
                peerlinks.append(name)
            _bond(out, name, conf, interfaces, domains, cabled)
        elif kind == "svi":
            _svi(out, name, conf)
    if len(peerlinks) > 1:
        raise Unsupported("interface.%s: one peer link per switch" % peerlinks[1])
    for name, conf in sorted(interfaces.items()):
        if conf.get("type", "swp") == "swp" and name not in out["members"]:
            vid = _port_vlan(name, conf, domains)
            if vid is not None:
                if addresses(conf, "interface.%s" % name):
                    raise Unsupported("interface.%s: a bridged port has no addresses of its own" % name)
                out["bridged"][name] = bridge_name(vid)
    mlag = config.get("mlag") or {}
    if _on(mlag.get("enable"), False) and not peerlinks:
        raise Unsupported("mlag.enable: MLAG needs a peer link (interface peerlink, type peerlink)")
    return out


def kernel_lines(l2, links):
    """(ip -batch lines, changes) for the bridges and VRR macvlans: created, changed, or deleted when no VLAN needs
    them. Ports joining or leaving a bridge are switch.kernel_plan's (they are ports)."""
    lines, changes, later = [], [], []
    vrrs = {b["vrr"]["name"] for b in l2["bridges"].values() if b["vrr"]}
    for name in sorted(links):
        if not L2_LINK.match(name):
            continue
        if "-v" in name:
            # A macvlan goes with its bridge: deleted alone only when its bridge stays.
            if name not in vrrs and name.split("-v")[0] in l2["bridges"]:
                lines.append("link del %s" % name)
                changes.append("VRR %s removed" % name)
        elif name not in l2["bridges"]:
            lines.append("link del %s" % name)
            changes.append("bridge %s removed" % name)
    for name, bridge in sorted(l2["bridges"].items()):
        have = links.get(name)
        if have is not None and (have.get("linkinfo") or {}).get("info_kind") != "bridge":
            lines.append("link del %s" % name)
            have = None
        if have is None:
            lines.append("link add %s type bridge stp_state 0" % name)
            changes.append("bridge %s created" % name)
            have = {"mtu": None, "flags": [], "addr_info": []}
        lines += link_lines(name, have, bridge["mtu"], bridge["addrs"], bridge["up"], changes)
        vrr = bridge["vrr"]
        if vrr:
            vhave = links.get(vrr["name"])
            if vhave is not None and ((vhave.get("address") or "").lower() != vrr["mac"]
                                      or (vhave.get("linkinfo") or {}).get("info_kind") != "macvlan"):
                later.append("link del %s" % vrr["name"])
                vhave = None
            if vhave is None:
                later.append("link add link %s name %s address %s type macvlan mode private"
                             % (name, vrr["name"], vrr["mac"]))
                changes.append("VRR %s created (%s)" % (vrr["name"], vrr["mac"]))
                vhave = {"mtu": None, "flags": [], "addr_info": []}
            later += link_lines(vrr["name"], vhave, bridge["mtu"], vrr["addrs"], vrr["up"], changes)
    return lines, later, changes


def link_lines(name, have, mtu, addrs, up, changes):
    """ip -batch lines (and ``changes``) giving the link ``have`` (ip -j link) the MTU, IPv4 addresses and state."""
    lines = []
    if mtu and have.get("mtu") != mtu:
        lines.append("link set %s mtu %d" % (name, mtu))
        changes.append("%s mtu %d" % (name, mtu))
    now = v4(have)
    for addr in sorted(set(now) - set(addrs)):
        lines.append("addr del %s dev %s" % (addr, name))
        changes.append("%s address %s removed" % (name, addr))
    for addr in sorted(set(addrs) - set(now)):
        lines.append("addr add %s dev %s" % (addr, name))
        changes.append("%s address %s" % (name, addr))
    if up != ("UP" in have.get("flags", [])):
        lines.append("link set %s %s" % (name, "up" if up else "down"))
        changes.append("%s %s" % (name, "up" if up else "down"))
    return lines
