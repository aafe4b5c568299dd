"""What the twin should be: namespaces, links, addresses and daemons, from the plan and the rendered build.

Each switch's NOS is stood in for by its emulator's plane (``twin.emulators.plane(nos)``, twin/emulators/<nos>/,
docs/twin.md, "NOS stand-ins"). A plane that applies its own configuration (``SELF_APPLYING``) gets cables, FRR and lldpd
and does the rest itself; for any other, the twin builds the namespace from the plane's ``layout`` of the switch's rendered
configuration (ports with their MTU, addresses and admin state, LAGs, bridges, loopback, management port, port ACLs,
tenant VRFs), so the twin runs what we render, not a second reading of the plan, and the plane's management plane
runs beside it. Servers take their NICs, routing and sysctls from the rendered servers/<host>/structured.yml, the
same data the gpu_server role installs.
"""
import ipaddress

from ..ipam import fmt
from .emulators import plane as emulator_plane
from . import nftables, vrf
from .model import FRR_DAEMONS, OOB_BRIDGE, SWITCH_SYSCTLS, Iface, Twin, TwinError, frr_daemons
from .servers import server_namespace


def _master(port, members, masters):
    """The bridge a switch port joins. This kernel has no bonding driver, so a LAG is its first
    member port: that one joins the LAG's VLAN, the others stay up, unbridged (a LAG with one
    active member, and no L2 loop over a two-member MC-LAG peer link)."""
    for lag, ports in members.items():
        if port in ports:
            return masters.get(lag) if port == ports[0] else None
    return masters.get(port)


def _rendered(files, host, plane):
    """The text of the switch's rendered configuration file its NOS's twin plane reads."""
    path = "devices/%s/%s" % (host, plane.CONFIG_FILE)
    if path not in files:
        raise TwinError("%s: no rendered %s in the build (run playbooks/build.yml first)" % (host, path))
    return files[path]


def layout_of(dev, files, boot="build"):
    """(the twin plane of the switch's NOS, its layout of the switch's rendered configuration). With ``boot``
    "factory", of what the switch holds before any deploy (its plane's ``factory_text``: the NOS's first-boot
    configuration, or what the switch saved since), its management address still the rendered one (as DHCP hands it)."""
    plane = emulator_plane(dev.nos)
    try:
        rendered = plane.layout(_rendered(files, dev.name, plane))
        if boot != "factory" or not hasattr(plane, "factory_text"):
            return plane, rendered
        lay = plane.layout(plane.factory_text(dev.name, dev.model.name))
    except ValueError as exc:
        raise TwinError("%s: %s" % (dev.name, exc))
    lay["mgmt"] = rendered["mgmt"]
    return plane, lay


def _switch(twin, dev, files, cabled, boot="build"):
    plane, lay = layout_of(dev, files, boot)
    ns = twin.ns(dev.name, dev.role)
    ns.sysctls = dict(SWITCH_SYSCTLS)
    ports = lay["ports"]
    for name in cabled:
        port = ports.get(name)
        if port is None:
            raise TwinError("%s: port %s is cabled in the plan but missing from its rendered %s"
                            % (dev.name, name, plane.CONFIG_FILE))
        ns.add(Iface(name, "veth", port["mtu"], port["addrs"], _master(name, lay["lags"], lay["bridge_of"]),
                     port["up"]))
    if cabled:
        # Every front-panel port, planned or not, as on a switch: a cable the plan does not have (across
        # rail planes, into a free port) shows in LLDP and so in the cabling check.
        ns.lldp_ports.append(plane.PORT_PATTERN)
    for name in sorted(lay["bridges"]):
        ns.add(Iface(name, "bridge", None, lay["bridges"][name], None, True, ("stp_state", "0")))
    ns.add(Iface("lo", "loopback", None, list(lay["loopback"]) + ["127.0.0.1/8"]))
    ns.acl_nft = nftables.ruleset(lay["acl"])
    ns.mgmt_plane = (dev.nos, dev.model.name, lay["native"])
    return ns, lay


def _self_applying(twin, dev, files, cabled):
    """A switch whose NOS applies its configuration into the namespace itself (its emulator's plane, e.g. a
    stand-in of the NOS's configuration API): the twin makes the cabled ports (down, no address: the NOS decides), starts FRR with
    no routing configuration and lldpd; the management address is the rendered one, as DHCP/ZTP hands it."""
    plane = emulator_plane(dev.nos)
    path = "devices/%s/%s" % (dev.name, plane.CONFIG_FILE)
    if path not in files:
        raise TwinError("%s: no rendered %s in the build (run playbooks/build.yml first)" % (dev.name, path))
    ns = twin.ns(dev.name, dev.role)
    ns.sysctls = dict(SWITCH_SYSCTLS)
    for name in cabled:
        ns.add(Iface(name, "veth", None, None, None, False))
    if cabled:
        ns.lldp_ports.append(plane.PORT_PATTERN)
    ns.add(Iface("lo", "loopback", None, None))
    ns.frr_daemons = FRR_DAEMONS
    ns.frr_conf = plane.empty_frr_conf(dev.name)
    try:
        release, mgmt = plane.boot_facts(files[path])
    except plane.PlaneError as exc:
        raise TwinError("%s: %s" % (dev.name, exc))
    if hasattr(plane, "with_model"):
        release = plane.with_model(release, dev.model.name)   # the NOS's stand-in shows the switch's model
    ns.nos_plane = (dev.nos, release, files[path])
    return ns, mgmt


def switch_namespaces(twin, dev, files, cabled, boot="build"):
    """A switch's namespace, with its FRR, and the namespaces of its tenant VRFs (twin/vrf.py);
    returns (the switch's namespace, its rendered management addresses). ``boot``: layout_of's."""
    if dev.nos and getattr(emulator_plane(dev.nos), "SELF_APPLYING", False):
        return _self_applying(twin, dev, files, cabled)
    ns, lay = _switch(twin, dev, files, cabled, boot)
    conf = files.get("devices/%s/frr.conf" % dev.name)
    if conf is None:
        raise TwinError("%s: no rendered devices/%s/frr.conf in the build" % (dev.name, dev.name))
    # What the switch's /etc/frr/frr.conf holds; FRR runs it, or its translation when the switch has tenant VRFs.
    ns.frr_file = ns.frr_conf = conf
    try:
        vrfs = vrf.add_vrfs(twin, ns, lay["vrfs"], Iface)
    except ValueError as exc:
        raise TwinError(str(exc))
    for each in [ns] + vrfs:
        each.frr_daemons = frr_daemons(each.frr_conf) if each.frr_conf else ()
    return ns, lay["mgmt"]


def kernel_port(dev, port):
    """The Linux name of ``dev``'s port ``port``: the plan's name, unless its NOS names ports in a way the kernel
    cannot take (a ``/`` in the name: a Linux interface name has none), whose emulator maps them (``plane.kernel_port``)."""
    nos = getattr(dev, "nos", None)
    if not nos or dev.role == "gpu_server":
        return port
    rename = getattr(emulator_plane(nos), "kernel_port", None)
    return rename(port) if rename else port


def cabled_ports(plan, host):
    """The backend and frontend ports of ``host`` that the plan cables."""
    return [link.a_port if link.a.name == host else link.b_port for link in plan.device(host).links
            if link.network in ("backend", "frontend")]


def build_twin(plan, files, boot="build"):
    """The desired Twin of ``plan``, whose switches run the rendered ``files`` ({relative path: text},
    as gpufabric.build.render_all returns or as read back from build/<cluster>/); with ``boot`` "factory" they boot
    from their NOS's factory state instead (layout_of), for playbooks/deploy.yml to take them to the plan."""
    twin = Twin(plan.summary["cluster"])
    cabled = {}
    for link in plan.links:
        if link.network in ("backend", "frontend"):
            a_port, b_port = kernel_port(link.a, link.a_port), kernel_port(link.b, link.b_port)
            cabled.setdefault(link.a.name, []).append(a_port)
            cabled.setdefault(link.b.name, []).append(b_port)
            twin.veths.append((link.a.name, a_port, link.b.name, b_port))
    oob = twin.ns(twin.oob_ns, "oob")
    oob_addrs = []
    prefix = str(plan.spec["oob"]["pool"]).split("/")[1]
    pool_base = int(ipaddress.ip_network(plan.spec["oob"]["pool"]).network_address)
    for dev in plan.devices:
        if dev.role == "oob_switch":
            # The OOB switch is the bridge every management port joins, with the switch's own VLAN addresses.
            plane = emulator_plane(dev.nos)
            if getattr(plane, "SELF_APPLYING", False):
                raise TwinError("%s: the twin stands in for the OOB switch with a bridge built from its rendered "
                                "configuration, which nos: %s does not give it (docs/twin.md)" % (dev.name, dev.nos))
            lay = layout_of(dev, files)[1]
            for found in lay["bridges"].values():
                oob_addrs.extend(found)
            # Its management plane runs beside the bridge, outside any namespace (no dataplane of its own).
            twin.device_planes[dev.name] = (dev.nos, dev.model.name, layout_of(dev, files, boot)[1]["native"])
            continue
        if dev.role == "gpu_server":
            ns = server_namespace(twin, dev, files)
            mgmt = {}
        else:
            ns, mgmt = switch_namespaces(twin, dev, files, cabled.get(dev.name, ()), boot)
        port, addr = _mgmt_port(dev, mgmt, prefix)
        if port:
            # Named by the device's management address, a position: growth adds bridge ports and renames none.
            bridge_side = "m%d" % (dev.mgmt - pool_base)
            ns.add(Iface(port, "veth", 1500, [addr] if addr else ()))
            oob.add(Iface(bridge_side, "veth", 1500, (), OOB_BRIDGE))
            twin.veths.append((dev.name, port, oob.name, bridge_side))
    oob.add(Iface(OOB_BRIDGE, "bridge", 1500, oob_addrs, None, True, ("stp_state", "0")))
    return twin


def _mgmt_port(dev, rendered, prefix):
    """The device's management port and address: the rendered one (the layout's ``mgmt``) for switches, the host
    management NIC (not the BMC, which is another computer) with the plan's address for servers."""
    if rendered:
        name = sorted(rendered)[0]
        return name, rendered[name][0]
    if dev.mgmt is None:
        return None, None
    for link in dev.links:
        if link.network == "oob":
            port = link.b_port if link.b is dev else link.a_port
            if port != "idrac":
                return port, "%s/%s" % (fmt(dev.mgmt), prefix)
    return None, None
