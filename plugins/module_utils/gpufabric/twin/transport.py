"""The twin's transport for validation: a device of the virtual twin is a network namespace.

Validation (validate/) knows transports only by the interface of ``validate.transport.Transport``; the
twin's callers (its action plugin, ``twin.verify``, tests) build this one and hand it in, so validation
never imports the twin and runs the same on real switches.
"""
import glob
import os
import shlex

from ..validate.transport import Transport, Unavailable, run_argv
from .vrf import is_vrf_link


# Where the twin's NOS stand-ins put their switch's own commands (a NOS's CLI): a tool of a Command found
# there runs inside the device's namespace.
TOOL_DIRS = "/run/gpufabric-*/bin"


def twin_tool(tool):
    """The path of a NOS command the twin provides, or None."""
    found = sorted(p for p in glob.glob(os.path.join(TOOL_DIRS, tool)) if os.access(p, os.X_OK))
    return found[0] if found else None


class NetnsTransport(Transport):
    """A device of the virtual twin: network namespace ``device``, FRR pathspace ``device``, lldpd reached
    through ``lldp_socket(device)`` (``twin.twin_lldp_socket``). The twin runs no NOS of its own, so the
    ``config_db`` source (a NOS's configuration database, read by its collectors) is the rendered
    ``config_db.json`` under ``config_db_dir/<device>/``, which is what the twin was built from."""
    name = "netns"
    virtual = True

    def __init__(self, lldp_socket, config_db_dir=None, timeout=30):
        self.lldp_socket = lldp_socket
        self.config_db_dir = config_db_dir
        self.timeout = timeout

    def internal_peer(self, address):
        # A twin leaf's session to one of its tenant VRFs stands in for VRF leaking (twin/vrf.py).
        return is_vrf_link(address)

    def shell_text(self, device, command):
        tool, text = command
        if tool == "sh":
            return text
        if tool == "vtysh":
            return "vtysh -N %s -c %s" % (shlex.quote(device), shlex.quote(text))
        if tool == "lldpcli":
            return "lldpcli -u %s %s" % (shlex.quote(self.lldp_socket(device)), text)
        if tool != "config_db" and twin_tool(tool):
            return "%s %s" % (shlex.quote(twin_tool(tool)), text)
        return None

    def shell_argv(self, device, script):
        return ["ip", "netns", "exec", device, "sh", "-c", script]

    def run_many(self, device, commands):
        return self.run_batched(device, commands)

    def run(self, device, command):
        tool, text = command
        shell = self.shell_text(device, command)
        if shell is not None:
            return run_argv(self.shell_argv(device, shell) if tool == "sh" else shlex.split(shell), self.timeout)
        if tool == "config_db":
            path = os.path.join(self.config_db_dir or "", device, "config_db.json")
            if not self.config_db_dir or not os.path.exists(path):
                raise Unavailable("no rendered config_db.json for %s (run the build)" % device)
            with open(path, encoding="utf-8") as f:
                return f.read()
        raise Unavailable("the netns transport has no %s" % tool)
