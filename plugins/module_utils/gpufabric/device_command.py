"""What a collector asks a device and how asking can fail: the words collectors (a NOS home's, frr_linux/) and
transports (validate/transport.py, the twin's) share, below both.

``Command(tool, text)``: ``sh`` runs ``text`` in the device's shell; any other tool is reached the way the
transport knows for the device (``vtysh``, ``lldpcli``, ``native``: a NOS's own command run in the switch's shell
with what its NOS gives it, or a tool a NOS home names in its collectors' ``SSH_TOOLS``)."""
from collections import namedtuple

Command = namedtuple("Command", "tool text")


class CommandFailed(Exception):
    """The command ran and failed (or could not be started): an ERROR for the checks that need it."""


class Unreachable(CommandFailed):
    """The device itself cannot be reached (ssh exit 255, no such namespace): its other commands are not tried."""


class Unavailable(Exception):
    """The device has no such source (no mlnx_qos on a VM, no NOS configuration on a twin namespace): a SKIP."""
