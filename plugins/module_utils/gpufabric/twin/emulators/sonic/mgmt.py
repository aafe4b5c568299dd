"""The management port of a twin SONiC switch, as its live CONFIG_DB sets it: where SSH would reach the switch.

SONiC gives eth0 the addresses of CONFIG_DB's MGMT_INTERFACE rows (`eth0|<address>/<length>`, sonic-buildimage's
interfaces.j2 writes them into /etc/network/interfaces, which the interfaces-config service applies), and runs DHCP on
eth0 when there is none. The twin's eth0 keeps the planned address (its OOB veth), so instead of renumbering it the
switch's management plane writes what eth0 would answer on into the switch's run directory, ``FILE``, each time a
`config` command changed CONFIG_DB (and when the switch boots); the netns connection reads it before each command
and refuses, as SSH would time out, to reach the switch at an address it does not answer on
(plugins/connection/netns.py). ``{"addresses": null}``: DHCP, which the twin answers as on the planned address.
"""
import ipaddress
import json
import os

from ... import daemons

FILE = "mgmt-reach.json"
PORT = "eth0"


def addresses(config):
    """The IPv4 and IPv6 addresses eth0 answers on by CONFIG_DB ``config``, or None (no row: DHCP)."""
    found = []
    for key in config.get("MGMT_INTERFACE", {}):
        port, _sep, prefix = key.partition("|")
        if port == PORT and prefix:
            try:
                found.append(str(ipaddress.ip_interface(prefix).ip))
            except ValueError:
                continue
    return sorted(found) if found else None


def publish(run_dir, config):
    """Write what eth0 answers on into the switch's run directory; returns whether it changed."""
    text = json.dumps({"addresses": addresses(config)}, sort_keys=True) + "\n"
    return daemons.write_if_changed(os.path.join(run_dir, FILE), text, 0o644, owner=None)
