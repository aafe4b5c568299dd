"""How a command reaches a device: ``Transport.run(device, command) -> text``.

Commands are abstract (``Command(tool, text)``): ``sh`` runs in the device's shell, ``vtysh`` and ``lldpcli``
talk to its FRR and lldpd, ``config_db`` reads its SONiC configuration. Each transport maps them to what
works there: a network namespace of the virtual twin, OpenSSH to a real switch or server.
"""
import os
import shlex
import subprocess
from collections import namedtuple

Command = namedtuple("Command", "tool text")


class CommandFailed(Exception):
    """The command ran and failed (or could not be started): an ERROR for the checks that need it."""


class Unreachable(CommandFailed):
    """The device itself cannot be reached (ssh exit 255, no such namespace): its other commands are not tried."""


class Unavailable(Exception):
    """The device has no such source (no mlnx_qos on a VM, no config_db on a twin namespace): a SKIP."""


def _run(argv, timeout):
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CommandFailed("%s: %s" % (" ".join(argv[:6]), exc)) from exc
    if proc.returncode != 0:
        # 255 is ssh's own failure (and `ip netns exec`'s for a missing namespace), not the remote command's.
        kind = Unreachable if proc.returncode == 255 and argv[0] in ("ssh", "ip") else CommandFailed
        raise kind("%s exited %d: %s" % (" ".join(argv), proc.returncode, (proc.stderr or proc.stdout).strip()[-300:]))
    return proc.stdout


class Transport:
    name = "none"
    # Interfaces of a virtual device (veth) report no real speed and carry no optics.
    virtual = False

    def run(self, device, command):
        raise NotImplementedError


def twin_lldp_socket(cluster, host):
    """The twin's lldpd control socket for ``host`` (twin/daemons.py decides where it lives)."""
    from ..twin import state_dir
    from ..twin.daemons import lldpd_paths
    return lldpd_paths(state_dir(cluster), host)["socket"]


class NetnsTransport(Transport):
    """A device of the virtual twin: network namespace ``device``, FRR pathspace ``device``, lldpd reached
    through ``lldp_socket(device)``. The twin runs no SONiC, so ``config_db`` is the rendered
    ``config_db.json`` under ``config_db_dir/<device>/``, which is what the twin was built from."""
    name = "netns"
    virtual = True

    def __init__(self, lldp_socket, config_db_dir=None, timeout=30):
        self.lldp_socket = lldp_socket
        self.config_db_dir = config_db_dir
        self.timeout = timeout

    def run(self, device, command):
        tool, text = command
        if tool == "sh":
            return _run(["ip", "netns", "exec", device, "sh", "-c", text], self.timeout)
        if tool == "vtysh":
            return _run(["vtysh", "-N", device, "-c", text], self.timeout)
        if tool == "lldpcli":
            return _run(["lldpcli", "-u", self.lldp_socket(device)] + shlex.split(text), self.timeout)
        if tool == "config_db":
            path = os.path.join(self.config_db_dir or "", device, "config_db.json")
            if not self.config_db_dir or not os.path.exists(path):
                raise Unavailable("no rendered config_db.json for %s (run the build)" % device)
            with open(path, encoding="utf-8") as f:
                return f.read()
        raise Unavailable("the netns transport has no %s" % tool)


# How each tool is invoked over SSH. SONiC keeps lldpcli in its lldp container and FRR in bgp.
SSH_TOOLS = {
    "linux": {"vtysh": "sudo -n vtysh -c {q}", "lldpcli": "sudo -n lldpcli {text}", "config_db": None},
    "sonic": {"vtysh": "sudo -n vtysh -c {q}", "lldpcli": "docker exec lldp lldpcli {text}",
              "config_db": "sonic-cfggen -d --print-data"},
}


class SshTransport(Transport):
    """OpenSSH with keys only (BatchMode): ``hosts`` maps a device name to its address and user and
    whether it runs SONiC ({"host", "user", "port", "flavour"}); unknown devices are reached by name."""
    name = "ssh"

    def __init__(self, hosts=None, options=("-o", "BatchMode=yes", "-o", "ConnectTimeout=10"), timeout=60):
        self.hosts = hosts or {}
        self.options = list(options)
        self.timeout = timeout

    def remote_text(self, device, command):
        tool, text = command
        if tool == "sh":
            return text
        flavour = self.hosts.get(device, {}).get("flavour", "linux")
        template = SSH_TOOLS[flavour].get(tool)
        if template is None:
            raise Unavailable("%s has no %s (flavour %s)" % (device, tool, flavour))
        return template.format(q=shlex.quote(text), text=text)

    def run(self, device, command):
        remote = self.remote_text(device, command)
        host = self.hosts.get(device, {})
        target = host.get("host") or device
        if host.get("user"):
            target = "%s@%s" % (host["user"], target)
        argv = ["ssh"] + self.options + (["-p", str(host["port"])] if host.get("port") else []) + [target, remote]
        return _run(argv, self.timeout)
