"""A switch running FRR, lldpd and iproute2: the command that reads each observation validation checks, and the
parser that turns its output into the neutral fact (the ``COMMANDS``/``PARSERS`` a home's collectors.py holds).

``Command(tool, text)``: ``sh`` runs in the switch's shell, ``vtysh`` and ``lldpcli`` reach its FRR and lldpd
(``SSH_TOOLS`` says how over SSH on a Linux host; a NOS whose tools sit elsewhere says it in its home)."""
from ..device_command import Command
from . import parsers

COMMANDS = {
    "lldp": Command("lldpcli", "-f json show neighbors details"),
    "bgp": Command("vtysh", "show bgp vrf default ipv4 unicast summary json"),
    "routes": Command("vtysh", "show ip route json"),
    "links": Command("sh", "ip -j -s link show"),
    "sysfs": Command("sh", "grep -H . /sys/class/net/*/carrier_changes /sys/class/net/*/speed 2>/dev/null; true"),
}
# observation -> (the fact it gives, parser). ``links`` and ``sysfs`` are joined into the ``interfaces`` fact by
# validation (validate/state.py), as any NOS's links and counters are.
PARSERS = {
    "lldp": ("lldp", parsers.lldp_neighbors),
    "bgp": ("bgp", parsers.bgp_summary),
    "routes": ("routes", parsers.routes),
    "links": ("links", parsers.ip_links),
    "sysfs": ("sysfs", parsers.sysfs_values),
}
SSH_TOOLS = {"vtysh": "sudo -n vtysh -c {q}", "lldpcli": "sudo -n lldpcli {text}"}
