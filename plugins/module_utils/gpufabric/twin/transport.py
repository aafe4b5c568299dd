"""The twin's transport for validation: a device of the virtual twin is a network namespace.

Validation (validate/) knows transports only by the interface of ``validate.transport.Transport``; the
twin's callers (its action plugin, ``twin.verify``, tests) build this one and hand it in, so validation
never imports the twin and runs the same on real switches.
"""
import glob
import os
import shlex

from ..validate.transport import Transport, Unavailable, run_argv
from . import netns_env
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
    through ``lldp_socket(device)`` (``twin.twin_lldp_socket``). A switch's own configuration (the ``config_db``
    source its NOS's collectors read) comes from the switch itself, as on a real one: the collector's command runs
    in the switch's namespace with what its NOS's stand-in gives it (``netns-env.json``: its /etc and its NOS's
    commands), its configuration database read live by the NOS's own command. ``env_root`` is where the twins keep
    those files."""
    name = "netns"
    virtual = True

    def __init__(self, lldp_socket, timeout=30, env_root="/run/gpufabric-twin"):
        self.lldp_socket = lldp_socket
        self.timeout = timeout
        self.env_root = env_root

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
        if tool == "native":
            env = netns_env.read(device, self.env_root)
            if env is None:
                raise Unavailable("%s runs no NOS management plane on the twin (no %s): its configuration cannot be "
                                  "read" % (device, netns_env.FILE))
            return "(%s%s)" % (netns_env.shell_prefix(env), text)
        if twin_tool(tool):
            return "%s %s" % (shlex.quote(twin_tool(tool)), text)
        return None

    def shell_argv(self, device, script):
        return ["ip", "netns", "exec", device, "sh", "-c", script]

    def run_many(self, device, commands):
        return self.run_batched(device, commands)

    def run(self, device, command):
        tool, _text = command
        shell = self.shell_text(device, command)
        if shell is None:
            raise Unavailable("the netns transport has no %s" % tool)
        return run_argv(self.shell_argv(device, shell) if tool in ("sh", "native") else shlex.split(shell),
                        self.timeout)
