"""What an applied NVUE revision does to a Cumulus switch of the twin: its network namespace takes the
configuration, or the apply fails and the previous configuration is put back.

An apply, as NVUE's on a switch, is whole or not at all. Everything is worked out first (the kernel
changes, FRR's configuration, the nftables rules), so an object the twin cannot model is refused before
anything changes; then the namespace is changed:

- ports (``interface swpN``, cabled in the twin as veths): MTU (Cumulus' default 9216), IPv4 addresses,
  admin state (a port the configuration does not name is down, as on Cumulus); the loopback's addresses
  on ``lo``; ``eth0`` keeps the management address the twin gave it (as DHCP/ZTP would) and is not in a
  VRF (docs/twin.md);
- FRR: /etc/frr/<host>/frr.conf rendered from the NVUE tree (frr.py) and loaded with frr-reload.py, as
  NVUE does on Cumulus;
- tenant VRFs (``vrf.<name>``, ``interface.<port>.ip.vrf``): as the twin runs any leaf's (twin/vrf.py), a namespace
  per VRF with its own FRR, the port bridged into it with its addresses, the switch's FRR running the translation
  of the rendered frr.conf (``twin.switch.self_applied_vrfs``);
- ACLs: NVUE's ipv4 ACLs as nftables (acl.py);
- QoS, LLDP timers, SNMP, syslog, NTP, adaptive routing are recorded (the applied revision keeps them
  and ``nv`` shows them); the twin has no ASIC queues to program.
"""
import json
import os
import subprocess

from ... import daemons, vrf
from ...run import CommandError
from . import frr, l2
from .acl import nft_script

CUMULUS_MTU = 9216
PORT_TYPES = ("swp",)


class SwitchError(Exception):
    """The namespace could not take the configuration (the message names the object or command)."""


def _run(argv, stdin=None, what=None):
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        detail = " ".join((proc.stderr or proc.stdout).split())[-300:]
        raise SwitchError("%s failed (exit %d): %s" % (what or " ".join(argv[:6]), proc.returncode, detail))
    return proc.stdout


def _links(host):
    return {link["ifname"]: link for link in json.loads(_run(["ip", "-n", host, "-j", "-d", "addr", "show"]) or "[]")}


_addresses = l2.addresses


def _port_state(conf, where):
    link = conf.get("link") or {}
    state = link.get("state") or {"up": {}}
    if set(state) - {"up", "down"} or len(state) != 1:
        raise frr.Unsupported("%s.link.state: up or down" % where)
    return {"mtu": int(link.get("mtu", CUMULUS_MTU)), "addrs": _addresses(conf, where), "up": "up" in state,
            "vrf": (conf.get("ip") or {}).get("vrf", "default")}


def _tenant_vrf(config, name, vrf_name):
    """The tenant VRF port ``name`` is bound to, or None (the default VRF)."""
    if vrf_name == "default":
        return None
    if vrf_name == "mgmt" or vrf_name not in (config.get("vrf") or {}):
        raise frr.Unsupported("interface.%s.ip.vrf %s: a data port joins a tenant VRF that vrf.<name> defines" % (name, vrf_name))
    return vrf_name


def vrf_ports(config, links):
    """{VRF: {port: (MTU, [addresses], up)}} of the cabled ports ``config`` binds to tenant VRFs: what the twin moves
    into each VRF's namespace (twin/vrf.py)."""
    out = {}
    for name, conf in sorted((config.get("interface") or {}).items()):
        link = links.get(name)
        if conf.get("type") not in PORT_TYPES or not link or (link.get("linkinfo") or {}).get("info_kind") != "veth":
            continue
        want = _port_state(conf, "interface.%s" % name)
        vrf_name = _tenant_vrf(config, name, want["vrf"])
        if vrf_name:
            out.setdefault(vrf_name, {})[name] = (want["mtu"], want["addrs"], want["up"])
    return out


def _cabled(links):
    return {name for name, link in links.items()
            if name.startswith("swp") and (link.get("linkinfo") or {}).get("info_kind") == "veth"}


def _check_types(interfaces):
    """Refuse an interface type the twin does not model, and a management port moved out of its VRF."""
    for name, conf in sorted(interfaces.items()):
        kind = conf.get("type")
        if kind not in PORT_TYPES + ("loopback", "eth") + l2.BOND_TYPES + ("svi",):
            raise frr.Unsupported("interface.%s.type %s: not modelled on the Cumulus twin (swp, loopback, eth, bond, "
                                  "peerlink, svi)" % (name, kind))
        if kind == "eth" and (conf.get("ip") or {}).get("vrf", "mgmt") != "mgmt":
            raise frr.Unsupported("interface.%s.ip.vrf: the twin's management port stays in the management VRF" % name)


def kernel_plan(config, links):
    """(ip -batch lines, changes) turning the namespace's ``links`` ({ifname: ip -j link}) into ``config``: the L2
    objects (bonds, bridges, SVIs, VRR: l2.py) first, so ports can join their bridges, the VRR macvlans last."""
    interfaces = config.get("interface") or {}
    _check_types(interfaces)
    layer2 = l2.plan(config, _cabled(links))
    lines, later, changes = l2.kernel_lines(layer2, links)
    for name in sorted(links):
        link = links[name]
        master = None
        if name == "lo":
            want = {"mtu": None, "addrs": sorted(set(_addresses(interfaces.get("lo") or {}, "interface.lo")
                                                     + ["127.0.0.1/8"])), "up": True}
        elif (link.get("linkinfo") or {}).get("info_kind") == "veth" and name.startswith("swp"):
            conf = interfaces.get(name)
            want = _port_state(conf, "interface.%s" % name) if conf else {"mtu": CUMULUS_MTU, "addrs": [], "up": False,
                                                                          "vrf": "default"}
            member = layer2["members"].get(name)
            if member:
                # A bond member: the bond's MTU and state; the bond's active member joins the bond's VLAN bridge.
                want = {"mtu": member["mtu"], "addrs": [], "up": member["up"], "vrf": "default"}
                master = member["master"]
            elif name in layer2["bridged"]:
                master = layer2["bridged"][name]
            if _tenant_vrf(config, name, want["vrf"]):
                want["addrs"] = []      # the port's addresses are its VRF's, in the VRF's namespace (vrf_ports)
            elif link.get("master") == vrf.port_bridge(name):
                # Out of its tenant VRF: the port leaves the bridge into the VRF's namespace, which goes.
                lines += ["link set %s nomaster" % name, "link del %s" % vrf.port_bridge(name)]
                lines += ["link del %s" % vrf.port_link(name)] if vrf.port_link(name) in links else []
                changes.append("%s out of its tenant VRF" % name)
            have_master = link.get("master")
            if master and have_master != master:
                lines.append("link set %s master %s" % (name, master))
                changes.append("%s in bridge %s" % (name, master))
            elif not master and have_master and l2.L2_LINK.match(have_master) and have_master in layer2["bridges"]:
                lines.append("link set %s nomaster" % name)
                changes.append("%s out of bridge %s" % (name, have_master))
        else:
            continue   # eth0 (the twin's management port), the bridges and VRR (l2.py) and anything else the twin made
        lines += l2.link_lines(name, link, want["mtu"], want["addrs"], want["up"], changes)
    return lines + later, changes


# Cumulus Linux's ARP settings (user guide 5.14, "Address Resolution Protocol - ARP", ARP Tunable Parameter Settings:
# arp_announce 2, arp_ignore 1): a switch answers an ARP request only for an address of the interface it came in on,
# and asks with the best local address of the outgoing interface, so an SVI asks with its own address, never with the
# VRR one (which would teach the servers the SVI's MAC for the gateway).
ARP_SYSCTLS = (("arp_ignore", 1), ("arp_announce", 2))


def after_commands(host, l2):
    """Commands run after the ports and bridges are in place (each is idempotent): Cumulus' ARP settings on each SVI
    and VRR interface (the VRR address is the macvlan's, answered with the virtual MAC), and the VRR MAC a permanent
    local entry of its bridge."""
    out = []
    for name, bridge in sorted(l2["bridges"].items()):
        devices = [name] + ([bridge["vrr"]["name"]] if bridge["vrr"] else [])
        settings = ["net.ipv4.conf.%s.%s=%d" % (dev, key, value) for dev in devices for key, value in ARP_SYSCTLS]
        out.append(["ip", "netns", "exec", host, "sysctl", "-qw"] + settings)
        if bridge["vrr"]:
            out.append(["ip", "netns", "exec", host, "bridge", "fdb", "replace", bridge["vrr"]["mac"], "dev", name,
                        "self", "local"])
    return out


def _frr_conf_path(host):
    return os.path.join(daemons.frr_dir(host), "frr.conf")


def _install_frr(host, text):
    if not daemons.write_if_changed(_frr_conf_path(host), text, 0o640):
        return False
    # In place, as NVUE reloads /etc/frr/frr.conf: the file stays NVUE's rendering (frr-reload writes the running
    # configuration over any other file it is given), so the next apply compares against what NVUE wrote.
    _run(daemons.in_place_argv(host, "--reload"), what="FRR's frr-reload of the rendered frr.conf")
    return True


def _check_frr(host):
    """frr-reload goes on past a line a daemon refuses (and exits 0 on some): FRR took the configuration only when
    nothing is left between the file it runs and what runs. This also holds the rendering to FRR's own form of each
    line: a line FRR shows otherwise would be deleted and added again by every reload (a BFD line: every session
    reset)."""
    out = _run(daemons.in_place_argv(host, "--test"), what="FRR's frr-reload --test")
    pending = [" ".join(line.split()) for line in out.splitlines()
               if line.strip() and not line.startswith(("Lines To", "====="))]
    if pending:
        raise SwitchError("FRR did not take the rendered frr.conf: %s" % "; ".join(pending[:3]))


class Applier:
    """The ``applier`` of one switch's NVUE API stand-in: makes an applied configuration real in the
    namespace ``host`` (of the twin of ``cluster``); on any failure puts ``previous`` back and raises SwitchError
    naming the cause."""

    def __init__(self, host, cluster):
        self.host = host
        self.cluster = cluster

    def plan(self, config):
        # FRR runs in a UTS namespace named after the twin's switch and shows that name (daemons.as_switch), so its
        # frr.conf says it too: a system.hostname other than it (the factory's `cumulus`) would be a line frr-reload
        # --test always finds pending. The switch's own hostname is NVUE's (nv show system), not FRR's, here.
        hostname = self.host
        links = _links(self.host)
        lines, changes = kernel_plan(config, links)
        return {"links": lines, "changes": changes, "frr": frr.frr_conf(config, hostname),
                "nft": nft_script(config, set(links)), "vrfs": vrf_ports(config, links),
                "after": after_commands(self.host, l2.plan(config, _cabled(links)))}

    def _do(self, plan):
        from ... import switch as twin_switch   # the twin's machinery for tenant VRFs, loaded only by the stand-in

        changes = list(plan["changes"])
        if plan["links"]:
            _run(["ip", "-n", self.host, "-batch", "-"], "\n".join(plan["links"]) + "\n", what="ip -batch of the ports")
        for argv in plan.get("after", ()):
            _run(argv, what=" ".join(argv[4:7]))
        if plan["vrfs"] or twin_switch.has_vrf_namespaces(self.host):
            # Tenant VRFs: each in a namespace of its own, its ports bridged into it, FRR translated (docs/twin.md).
            try:
                done = twin_switch.self_applied_vrfs(self.cluster, self.host, plan["frr"], plan["vrfs"])["changes"]
            except (twin_switch.TwinError, CommandError) as exc:
                raise SwitchError("tenant VRFs: %s" % exc)
            changes += done
        else:
            done = ["frr.conf reloaded"] if _install_frr(self.host, plan["frr"]) else []
            changes += done
        if done:
            _check_frr(self.host)
        _run(["ip", "netns", "exec", self.host, "nft", "-f", "-"], plan["nft"], what="nft -f of the ACLs")
        return changes

    def __call__(self, config, previous):
        try:
            plan = self.plan(config)
        except (frr.Unsupported, SwitchError) as exc:
            raise SwitchError("%s: %s" % (self.host, exc))
        try:
            return self._do(plan)
        except SwitchError as exc:
            try:
                self._do(self.plan(previous))
            except (frr.Unsupported, SwitchError) as again:
                raise SwitchError("%s: %s; putting the previous configuration back failed too: %s"
                                  % (self.host, exc, again))
            raise SwitchError("%s: %s (the previous configuration is running)" % (self.host, exc))
