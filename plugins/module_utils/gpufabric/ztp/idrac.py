"""iDRAC auto config: the option 43 string that points each iDRAC at its server configuration
profile (SCP), and that profile: the gpu_server role's BIOS baseline plus PXE boot on the frontend NIC.

Behaviour followed: Dell iDRAC9 User's Guide (firmware 4.x to 7.x), "Auto Config": the iDRAC sends
vendor class "iDRAC" (option 60) and reads option 43 as one text string of switches: -f file name,
-i share address, -n share name, -s share type (0 NFS, 2 CIFS, 5 HTTP, 6 HTTPS; HTTP needs 14G or
later), at most 255 characters. Without -f it would look for <service tag>-config.xml, then
<model>-config.xml, then config.xml; the plan knows positions, not service tags, so every iDRAC is
given the file of the server planned at its position. SCP JSON layout: SystemConfiguration.Components[]
with FQDD and Attributes[{Name, Value}] (Dell "Server Configuration Profiles" reference guide).
"""
from ..errors import SpecError

SHARE_HTTP = 5
SHARE_NAME = "idrac"
OPTION43_MAX = 255
BIOS_FQDD = "BIOS.Setup.1-1"


def profile_path(server):
    return "%s/%s.json" % (SHARE_NAME, server)


def autoconfig_option(server, settings):
    """The option 43 text for the iDRAC of ``server``."""
    text = "-f %s.json -i %s -n %s -s %d" % (server, settings.server, SHARE_NAME, SHARE_HTTP)
    if len(text) > OPTION43_MAX:
        raise SpecError("cluster.hostnames.server", "the iDRAC auto config string for %s is %d characters; DHCP "
                        "option 43 holds %d: use shorter server names" % (server, len(text), OPTION43_MAX))
    return text


def provisioning_bios(settings):
    """BIOS attributes that make the first boot a PXE boot on the frontend NIC (UEFI, IPv4)."""
    return {"BootMode": "Uefi", "PxeDev1EnDis": "Enabled", "PxeDev1Interface": settings.pxe_interface,
            "PxeDev1Protocol": "IPv4", "SetBootOrderFqdd1": "NIC.PxeDevice.1-1"}


def server_profile(model, settings):
    """The SCP (a dict) of a server of catalog model ``model``. The BIOS baseline is the gpu_server role's
    (``gpu_server_bios_attributes``, passed in as settings.bios_attributes); where it sets an attribute the
    PXE settings also set, the baseline wins."""
    attributes = dict(provisioning_bios(settings), **settings.bios_attributes)
    return {"SystemConfiguration": {
        "Model": "PowerEdge %s" % model,
        "Components": [{"FQDD": BIOS_FQDD, "Attributes": [
            {"Name": name, "Value": value} for name, value in sorted(attributes.items())]}]}}
