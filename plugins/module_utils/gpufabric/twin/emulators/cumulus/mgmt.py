"""The management port of a Cumulus switch of the twin: what an applied configuration does to ``eth0``, and so
whether the controller still reaches the switch's NVUE API.

A switch's API listens on its management address (user guide 5.14, "NVUE API": the API is reached at the switch's
management address, port 8765). The twin gives ``eth0`` the planned management address at boot, as DHCP or ZTP
would; the controller knows the switch by that address. An applied configuration that sets ``interface eth0 ip
address`` to addresses without it moves the switch off that address: the addresses on ``eth0`` in the namespace
become the configured ones (the OOB network no longer reaches the old one), and the API stops answering the
controller (``reachable`` false: nvue_http.py closes its connections unanswered) until a configuration holding the
address again is applied, as the confirm timer's rollback does. No address configured (or ``dhcp``): the boot
address stays.
"""
import ipaddress
import json
import os
import subprocess


def boot_addresses(host, directory):
    """The IPv4 addresses (with prefix) ``eth0`` had when the switch first came up, kept in ``mgmt.json``."""
    path = os.path.join(directory, "mgmt.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    proc = subprocess.run(["ip", "-n", host, "-j", "-4", "addr", "show", "dev", "eth0"], capture_output=True,
                          text=True, check=False)
    found = []
    for link in json.loads(proc.stdout or "[]") if proc.returncode == 0 else []:
        found += ["%s/%s" % (a["local"], a["prefixlen"]) for a in link.get("addr_info", ())]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(found, f)
    return found


def configured(config):
    """The IPv4 addresses the configuration gives ``eth0`` (None: none set, or DHCP)."""
    addresses = (((((config or {}).get("interface") or {}).get("eth0") or {}).get("ip") or {}).get("address") or {})
    fixed = []
    for text in addresses:
        try:
            if ipaddress.ip_interface(text).version == 4:
                fixed.append(text)
        except ValueError:
            continue  # dhcp
    return sorted(fixed) or None


def reachable(config, boot):
    """Whether the controller, which knows the switch by its boot address, still reaches it under ``config``."""
    wanted = configured(config)
    if not boot or wanted is None:
        return True
    have = {str(ipaddress.ip_interface(a).ip) for a in wanted}
    return any(str(ipaddress.ip_interface(a).ip) in have for a in boot)


def sync(host, config, boot):
    """``eth0`` in the namespace given the configured addresses, or its boot addresses when none are set."""
    wanted = configured(config) or boot
    if not wanted:
        return
    proc = subprocess.run(["ip", "-n", host, "-j", "-4", "addr", "show", "dev", "eth0"], capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        return
    have = sorted("%s/%s" % (a["local"], a["prefixlen"]) for link in json.loads(proc.stdout or "[]")
                  for a in link.get("addr_info", ()))
    if have == sorted(wanted):
        return
    subprocess.run(["ip", "-n", host, "addr", "flush", "dev", "eth0"], check=False, capture_output=True)
    for address in wanted:
        subprocess.run(["ip", "-n", host, "addr", "add", address, "dev", "eth0"], check=False, capture_output=True)
