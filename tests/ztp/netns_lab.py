"""Network namespaces for the ZTP tests: Kea on the provisioning host, one relay per OOB switch,
one DHCP client per device at its OOB port. Only traffic between these namespaces.

    gfz-kea   bridge "core": the OOB network's gateway address and the provisioning host's
    gfz-rN    OOB switch N: bridge "vlan10" over its uplink (into core) and access ports pK; the relay
    gfz-cJ    a device: "eth0" cabled to one access port, dhclient
"""
import os
import signal
import subprocess
import sys
import time

PREFIX = "gfz-"
KEA_NS = PREFIX + "kea"
RELAY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "option82_relay.py")


def sh(*argv, check=True):
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if check and proc.returncode:
        raise RuntimeError("%s: %s" % (" ".join(argv), proc.stderr.strip()))
    return proc


def in_ns(ns, *argv, check=True):
    return sh("ip", "netns", "exec", ns, *argv, check=check)


def cleanup():
    names = [line.split()[0] for line in sh("ip", "netns", "list").stdout.splitlines() if line.startswith(PREFIX)]
    for ns in names:
        pids = sh("ip", "netns", "pids", ns, check=False).stdout.split()
        for pid in pids:
            os.kill(int(pid), signal.SIGKILL)
        sh("ip", "netns", "del", ns, check=False)


class NetnsLab:
    """``relays`` {relay: (address, {port: ifname-suffix})}; devices plug in with ``plug``."""

    def __init__(self, workdir, server, gateway, prefix_len):
        self.workdir = workdir
        self.server = server
        self.gateway = gateway
        self.prefix_len = prefix_len
        self.relays = {}
        self.procs = []
        self.clients = 0
        cleanup()
        sh("ip", "netns", "add", KEA_NS)
        in_ns(KEA_NS, "ip", "link", "set", "lo", "up")
        in_ns(KEA_NS, "ip", "link", "add", "core", "type", "bridge")
        in_ns(KEA_NS, "ip", "addr", "add", "%s/%d" % (gateway, prefix_len), "dev", "core")
        in_ns(KEA_NS, "ip", "link", "set", "core", "up")
        # The provisioning host sits behind the OOB gateway, as in a site: a second address of the bridge.
        in_ns(KEA_NS, "ip", "addr", "add", server + "/32", "dev", "core")

    def start_kea(self, config_path):
        env = dict(os.environ, KEA_PIDFILE_DIR=self.workdir, KEA_LOCKFILE_DIR=self.workdir)
        proc = subprocess.Popen(["ip", "netns", "exec", KEA_NS, "kea-dhcp4", "-c", config_path],
                                stdout=open(os.path.join(self.workdir, "kea.out"), "w"), stderr=subprocess.STDOUT,
                                env=env)
        self.procs.append(proc)
        time.sleep(1.0)
        if proc.poll() is not None:
            raise RuntimeError("kea-dhcp4 exited: %s" % open(os.path.join(self.workdir, "kea.out")).read())

    def add_relay(self, name, address, ports):
        """An OOB switch with its relay address and access ports ({port name: None}); returns the ns."""
        index = len(self.relays)
        ns = "%sr%d" % (PREFIX, index)
        sh("ip", "netns", "add", ns)
        in_ns(ns, "ip", "link", "set", "lo", "up")
        # The OOB switch is an L2 switch with a relay: access ports and uplink in one bridge (its Vlan10),
        # the relay's address on the bridge.
        in_ns(ns, "ip", "link", "add", "vlan10", "type", "bridge")
        sh("ip", "link", "add", "gfzup", "netns", ns, "type", "veth", "peer", "name", "r%d" % index, "netns", KEA_NS)
        in_ns(KEA_NS, "ip", "link", "set", "r%d" % index, "master", "core", "up")
        in_ns(ns, "ip", "link", "set", "gfzup", "name", "uplink")
        in_ns(ns, "ip", "link", "set", "uplink", "master", "vlan10", "up")
        in_ns(ns, "ip", "addr", "add", "%s/%d" % (address, self.prefix_len), "dev", "vlan10")
        in_ns(ns, "ip", "link", "set", "vlan10", "up")
        in_ns(ns, "ip", "route", "add", "default", "via", self.gateway)
        self.relays[name] = {"ns": ns, "address": address, "ports": {}}
        return ns

    def plug(self, relay, port, vendor_class=None):
        """A device whose management cable is in ``port`` of ``relay``; returns its client handle."""
        r = self.relays[relay]
        k = len(r["ports"])
        client = "%sc%d" % (PREFIX, self.clients)
        self.clients += 1
        sh("ip", "netns", "add", client)
        sh("ip", "link", "add", "gfzp", "netns", r["ns"], "type", "veth", "peer", "name", "eth0", "netns", client)
        in_ns(r["ns"], "ip", "link", "set", "gfzp", "name", "p%d" % k)
        in_ns(r["ns"], "ip", "link", "set", "p%d" % k, "master", "vlan10", "up")
        in_ns(client, "ip", "link", "set", "eth0", "up")
        r["ports"]["p%d" % k] = port
        conf = os.path.join(self.workdir, client + ".conf")
        with open(conf, "w") as f:
            # Option 239 as Cumulus' DHCP client asks for it (its ZTP script's URL, nos/cumulus/ztp.py).
            f.write("option idrac-autoconfig code 43 = text;\noption onie-default-url code 114 = text;\n"
                    "option cumulus-provision-url code 239 = text;\n"
                    "timeout 15;\ninitial-interval 1;\nbackoff-cutoff 2;\n"
                    "request subnet-mask, routers, host-name, bootfile-name, idrac-autoconfig, onie-default-url,\n"
                    "        cumulus-provision-url;\n")
            if vendor_class:
                f.write('send vendor-class-identifier "%s";\n' % vendor_class)
        return {"ns": client, "conf": conf, "lease": os.path.join(self.workdir, client + ".lease"),
                "pid": os.path.join(self.workdir, client + ".pid")}

    def start_relays(self):
        for name, r in self.relays.items():
            argv = ["ip", "netns", "exec", r["ns"], sys.executable, RELAY, "--hostname", name,
                    "--address", r["address"], "--server", self.server]
            for ifname, port in r["ports"].items():
                argv += ["--port", "%s=%s" % (ifname, port)]
            log = open(os.path.join(self.workdir, r["ns"] + ".relay.log"), "w")
            self.procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT))
        time.sleep(0.5)

    @staticmethod
    def dhclient_argv(client):
        # -sf /bin/true: the lease is recorded, the namespace's interface is left alone.
        return ["ip", "netns", "exec", client["ns"], "dhclient", "-4", "-1", "-cf", client["conf"],
                "-lf", client["lease"], "-pf", client["pid"], "-sf", "/bin/true", "eth0"]

    def stop(self):
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
        cleanup()


def read_lease(path):
    """{'address': ..., option name: value} of the last lease in a dhclient lease file, or {}."""
    if not os.path.exists(path):
        return {}
    text = open(path).read()
    if "lease {" not in text:
        return {}
    block = text.rsplit("lease {", 1)[1]
    out = {}
    for line in block.splitlines():
        line = line.strip().rstrip(";")
        if line.startswith("fixed-address "):
            out["address"] = line.split()[1]
        elif line.startswith("option "):
            name, value = line.split(" ", 2)[1:]
            out[name] = value.strip('"')
    return out
