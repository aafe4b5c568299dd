"""Kea DHCPv4 configuration that hands out addresses by cabling position (option 82), never by MAC.

Per access port of an OOB switch a client class ``at:<circuit-id>`` (a request relayed from that
port), and per planned position a class ``pos:<circuit-id>`` (that, and the device is of the planned kind: an iDRAC announces vendor class
"iDRAC" in option 60, anything else must not). Each ``pos:`` class owns a one-address pool holding the
planned address, and carries the boot options of the position. A device on an unplanned port, or of
the wrong kind (a swapped cable), matches no ``pos:`` class and gets nothing; Kea logs the refusal
with its classes, so the ``at:`` class names the position (report.py reads that log).

Behaviour followed: Kea 2.2 (Debian 12 kea-dhcp4-server), Kea Administrator Reference Manual
sections "Client Classification" (relay4[] and member() expressions, class-restricted pools) and
"DHCPv4 vendor-specific options" (option 43 defined inside a client class).
"""
import ipaddress

from ..errors import SpecError

IDRAC_VENDOR_CLASS = "iDRAC"
# DHCP option codes the devices read (Kea names where Kea has one).
OPT_ONIE_URL = 114                     # ONIE's default-url: the NOS installer (ONIE discovery, exact URLs)
OPT_HOSTNAME = "host-name"             # 12
OPT_VENDOR = "vendor-encapsulated-options"  # 43: iDRAC auto config string


def _literal(text, what):
    # Kea expression strings are single-quoted with no escape; plan names never hold a quote.
    if "'" in text:
        raise SpecError(what, "%r holds a single quote, which a Kea class expression cannot carry" % text)
    return "'%s'" % text


def _option(name_or_code, data):
    opt = {"data": data, "always-send": True}
    opt["code" if isinstance(name_or_code, int) else "name"] = name_or_code
    return opt


def port_class(relay, cid):
    return {"name": "at:" + cid, "test": "relay4[1].hex == %s" % _literal(cid, relay)}


def position_class(pos, boot):
    """The class of one planned position; ``boot`` is the option data for its device."""
    at = "at:" + pos.circuit_id
    vendor = "option[60].text == %s" % _literal(IDRAC_VENDOR_CLASS, "vendor class")
    kind_test = vendor if pos.kind == "bmc" else "not (%s)" % vendor
    owned = {"name": "pos:" + pos.circuit_id,
             "test": "member(%s) and %s" % (_literal(at, pos.relay), kind_test),
             "option-data": [_option(OPT_HOSTNAME, pos.device)] + boot}
    if pos.kind == "bmc":
        # Kea's own option 43 encapsulates sub-options; iDRAC reads it as one text string.
        owned["option-def"] = [{"name": OPT_VENDOR, "code": 43, "type": "string"}]
    return owned


def boot_options(pos, settings, switch_boot, idrac_option):
    """The option data of one position: for a switch, ``switch_boot`` (its NOS's ZTP option: name, data and, for
    an option Kea does not know, its definition "def") and the ONIE installer URL."""
    if pos.kind == "switch":
        opts = [_option(switch_boot["name"], switch_boot["data"])]
        if settings.onie_image:
            opts.append(_option(OPT_ONIE_URL, settings.url(settings.onie_image)))
        return opts
    if pos.kind == "bmc":
        return [_option(OPT_VENDOR, idrac_option)]
    return []


def kea_config(ports, positions, boots, settings, mgmt_network, gateway, option_defs=()):
    """The whole kea-dhcp4.conf as a dict. ``ports`` [(relay, port, circuit-id)] of every access port,
    ``boots`` {circuit-id: option data list} of every planned position, ``option_defs`` the definitions of options
    a NOS's ZTP reads that Kea has no name for (a site-specific code such as 239)."""
    net = ipaddress.ip_network(mgmt_network)
    classes = [port_class(relay, cid) for relay, _port, cid in ports]
    pools = []
    for pos in positions:
        classes.append(position_class(pos, boots[pos.circuit_id]))
        pools.append({"pool": "%s - %s" % (pos.address, pos.address), "client-class": "pos:" + pos.circuit_id})
    config = {
        "interfaces-config": {"interfaces": settings.kea_interfaces, "dhcp-socket-type": "udp"},
        "lease-database": {"type": "memfile", "persist": True, "name": settings.kea_lease_file,
                           "lfc-interval": 3600},
        # The relay agent information of each lease is kept with it: the lease file shows the position.
        "store-extended-info": True,
        "valid-lifetime": settings.lease_seconds,
        # Devices change client-ids between ONIE, the NOS and iDRAC; the position is the identity.
        "match-client-id": False,
        "client-classes": classes,
        "subnet4": [{"id": 1, "subnet": str(net), "option-data": [{"name": "routers", "data": gateway}],
                     "pools": pools}],
        "loggers": [{"name": "kea-dhcp4", "output_options": [{"output": settings.kea_log_file}],
                     "severity": "INFO"}],
    }
    if option_defs:
        config["option-def"] = sorted(option_defs, key=lambda d: d["code"])
    return {"Dhcp4": config}
