"""An EOS switch's network namespace on the twin: what a committed configuration does to it (its ports and loopback
through ``ip -batch``, FRR through frr-reload in place: ``Applier``) and what the switch reports of it (links, LLDP from
its lldpd, BGP from its FRR: ``LiveOper``). The twin made the namespace, its cables, FRR and lldpd (docs/twin.md)."""
import json
import os
import shutil
import subprocess

from ... import daemons, nftables, vrf
from ...run import CommandError

MGMT_PORT = "Management1"


def kernel_port(name):
    """The Linux name of EOS port ``name`` in the switch's namespace: a Linux interface name has no ``/``, so
    ``Ethernet1/5`` is ``Ethernet1_5`` there (the emulator shows EOS's name; lldpd sends it as the port ID)."""
    return name.replace("/", "_")


def eos_port(ifname):
    """EOS's name of the namespace's interface ``ifname`` (kernel_port's inverse)."""
    return ifname.replace("_", "/") if ifname.startswith("Ethernet") else ifname


def _run(argv, stdin=None, what=None):
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        detail = " ".join((proc.stderr or proc.stdout).split())[-300:]
        raise ValueError("%s failed (exit %d): %s" % (what or " ".join(argv[:6]), proc.returncode, detail))
    return proc.stdout


def _links(host):
    return {link["ifname"]: link for link in json.loads(_run(["ip", "-n", host, "-j", "-d", "addr", "show"]) or "[]")}


def kernel_lines(configured, links):
    """ip -batch lines turning the namespace's ``links`` into the configured ports (translate.interfaces): each cabled
    Ethernet port its MTU, addresses and admin state (a port the configuration does not name: EOS's default, an
    enabled switchport, so up with no address); the loopbacks' addresses on ``lo``. Management1 keeps the address
    the twin gave it (docs/twin.md)."""
    lines = []
    loopback = sorted({a for name, conf in configured.items() if name.startswith("Loopback") for a in conf["addrs"]}
                      | {"127.0.0.1/8"})
    for name, link in sorted(links.items()):
        if name == "lo":
            want = {"mtu": None, "addrs": loopback, "up": True}
        elif name.startswith("Ethernet") and (link.get("linkinfo") or {}).get("info_kind") == "veth":
            want = dict(configured.get(eos_port(name)) or {"mtu": 1500, "addrs": [], "up": True})
            if want.get("vrf") and want.get("routed"):
                want["addrs"] = []     # the port's addresses are its VRF's, in the VRF's namespace (vrfs.py)
            elif link.get("master") == vrf.port_bridge(name):
                # Out of its tenant VRF: the port leaves the bridge into the VRF's namespace, which goes.
                lines += ["link set %s nomaster" % name, "link del %s" % vrf.port_bridge(name)]
                lines += ["link del %s" % vrf.port_link(name)] if vrf.port_link(name) in links else []
        else:
            continue
        have = sorted("%s/%s" % (a["local"], a["prefixlen"]) for a in link.get("addr_info", ()) if a.get("family") == "inet")
        if want["mtu"] and link.get("mtu") != want["mtu"]:
            lines.append("link set %s mtu %d" % (name, want["mtu"]))
        for address in sorted(set(have) - set(want["addrs"])):
            lines.append("addr del %s dev %s" % (address, name))
        for address in sorted(set(want["addrs"]) - set(have)):
            lines.append("addr add %s dev %s" % (address, name))
        is_up = "UP" in (link.get("flags") or ())
        if want["up"] != is_up:
            lines.append("link set %s %s" % (name, "up" if want["up"] else "down"))
    return lines


class Applier:
    """Makes a committed configuration real in the namespace ``host``: links (kernel_lines), then FRR (translate.py,
    loaded with frr-reload in place and checked). On a failure the previous configuration is put back and ValueError
    names the cause."""

    def __init__(self, host, cluster=None):
        self.host = host
        self.cluster = cluster
        self.current = None

    def _do(self, config):
        from .acl import port_rules
        from .translate import frr_conf, interfaces
        from .vrfs import vrf_ports
        links = _links(self.host)
        configured = interfaces(config)
        lines = kernel_lines(configured, links)
        text = frr_conf(config, self.host)
        acls = port_rules(config, kernel_port)
        tenant_vrfs = vrf_ports(config, configured, links, kernel_port)
        if lines:
            _run(["ip", "-n", self.host, "-batch", "-"], "\n".join(lines) + "\n", what="ip -batch of the ports")
        reload = False
        if tenant_vrfs or self._has_vrfs():
            # Tenant VRFs: each in a namespace of its own, its ports bridged into it, FRR translated (docs/twin.md).
            from ... import switch as twin_switch   # the twin's machinery for tenant VRFs
            try:
                reload = bool(twin_switch.self_applied_vrfs(self.cluster, self.host, text, tenant_vrfs)["changes"])
            except (twin_switch.TwinError, CommandError) as exc:
                raise ValueError("tenant VRFs: %s" % exc)
        elif daemons.write_if_changed(os.path.join(daemons.frr_dir(self.host), "frr.conf"), text, 0o640):
            _run(daemons.in_place_argv(self.host, "--reload"), what="FRR's frr-reload")
            reload = True
        if reload:
            out = _run(daemons.in_place_argv(self.host, "--test"), what="FRR's frr-reload --test")
            pending = [" ".join(line.split()) for line in out.splitlines()
                       if line.strip() and not line.startswith(("Lines To", "====="))]
            if pending:
                raise ValueError("FRR did not take the configuration: %s" % "; ".join(pending[:3]))
        if acls or shutil.which("nft"):
            try:
                nftables.apply({self.host: nftables.ruleset(acls)})
            except CommandError as exc:
                raise ValueError("the port ACLs did not load: %s" % exc)

    def _has_vrfs(self):
        if self.cluster is None:
            return False
        from ... import switch as twin_switch
        return twin_switch.has_vrf_namespaces(self.host)

    def __call__(self, config):
        from .translate import Unsupported
        try:
            self._do(config)
        except Unsupported:
            raise
        except ValueError as exc:
            if self.current is not None:
                try:
                    self._do(self.current)
                except ValueError:
                    pass
            raise ValueError("%s (the previous configuration is running)" % exc)
        self.current = config


class LiveOper:
    """The switch's operational state from its namespace: links, LLDP (its lldpd), BGP (its FRR)."""

    def __init__(self, state_dir, host):
        self.host = host
        self.socket = daemons.lldpd_paths(state_dir, host)["socket"]

    def links(self):
        try:
            links = _links(self.host)
        except ValueError:
            return {}
        out = {}
        for name, link in links.items():
            if name.startswith(("Ethernet", MGMT_PORT)):
                flags = link.get("flags") or ()
                addrs = ["%s/%s" % (a["local"], a["prefixlen"]) for a in link.get("addr_info", ()) if a.get("family") == "inet"]
                out[eos_port(name)] = {"up": "LOWER_UP" in flags and "UP" in flags, "mtu": link.get("mtu"),
                                       "mac": link.get("address"), "addrs": addrs}
        return out

    def name_ports(self):
        """lldpd sends each port's EOS name as its port ID (``configure ports <ifname> lldp portidsubtype local``), as
        an EOS switch names its ports in LLDP; returns whether lldpd took it (it may not run yet)."""
        try:
            links = _links(self.host)
        except ValueError:
            return False
        done = True
        for name in sorted(links):
            if name.startswith("Ethernet") and "_" in name:
                proc = subprocess.run(["lldpcli", "-u", self.socket, "configure", "ports", name, "lldp", "portidsubtype",
                                       "local", eos_port(name)], capture_output=True, text=True, check=False)
                done = done and proc.returncode == 0
        return done

    def lldp(self):
        proc = subprocess.run(["lldpcli", "-u", self.socket, "-f", "json", "show", "neighbors", "details"],
                              capture_output=True, text=True, check=False)
        try:
            data = json.loads(proc.stdout or "{}")
        except ValueError:
            return []
        found = (data.get("lldp") or {}).get("interface") or []
        entries = []
        for item in (found if isinstance(found, list) else [found]):
            for port, info in item.items():
                chassis = info.get("chassis") or {}
                system, cinfo = next(iter(chassis.items())) if chassis else ("", {})
                port_info = info.get("port") or {}
                entries.append({"port": eos_port(port), "system": system, "chassis": ((cinfo.get("id") or {}).get("value", "")),
                                "description": cinfo.get("descr", ""),
                                "port_id": (port_info.get("id") or {}).get("value", ""),
                                "port_description": port_info.get("descr", ""), "ttl": int(port_info.get("ttl", 120))})
        return entries

    def _vtysh(self, cmd):
        proc = subprocess.run(["vtysh", "-N", self.host, "-c", cmd], capture_output=True, text=True, check=False)
        try:
            return json.loads(proc.stdout) if proc.returncode == 0 else {}
        except ValueError:
            return {}

    def bgp(self):
        return self._vtysh("show bgp vrf default ipv4 unicast summary json")

    def bgp_neighbors(self):
        return self._vtysh("show bgp vrf default neighbors json")

    def bgp_table(self):
        return self._vtysh("show bgp vrf default ipv4 unicast json")

    def routes(self):
        return self._vtysh("show ip route json")
