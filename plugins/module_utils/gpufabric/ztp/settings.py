"""What the provisioning host serves and where: everything ZTP needs besides the plan."""
from ..errors import SpecError

# iDRAC auto config reads an HTTP share on port 80 only (its option 43 string has no port field).
HTTP_PORT = 80


class ZtpSettings:
    __slots__ = ("server", "nos_images", "onie_image", "lease_seconds", "kea_interfaces", "kea_lease_file",
                 "kea_log_file", "pxe_interface", "bios_attributes")

    def __init__(self, server, nos_images=None, onie_image="", lease_seconds=3600, kea_interfaces=("*",),
                 kea_lease_file="/var/lib/kea/kea-leases4.csv", kea_log_file="/var/log/kea/kea-dhcp4.log",
                 pxe_interface="NIC.Slot.9-1-1", bios_attributes=None):
        if not server:
            raise SpecError("oob.provisioning_host", "missing: zero-touch provisioning needs the provisioning "
                            "host's IPv4 address (the OOB switches relay DHCP to it), e.g. 10.200.0.10")
        if not isinstance(nos_images or {}, dict):
            raise SpecError("nos_images", "%r is not a mapping of NOS name to image (a path under www/ or a URL), "
                            "e.g. {<nos>: images/<nos>.bin}" % (nos_images,))
        if not isinstance(bios_attributes or {}, dict):
            raise SpecError("bios_attributes", "%r is not a mapping of BIOS attribute names to values" % (
                bios_attributes,))
        self.server = server
        # NOS name -> the image its ZTP installs first: a file under www/ of the tree, or a full URL.
        self.nos_images = dict(nos_images or {})
        self.onie_image = onie_image
        self.lease_seconds = int(lease_seconds)
        self.kea_interfaces = list(kea_interfaces)
        self.kea_lease_file = kea_lease_file
        self.kea_log_file = kea_log_file
        self.pxe_interface = pxe_interface
        self.bios_attributes = dict(bios_attributes or {})

    @property
    def base_url(self):
        return "http://%s/" % self.server

    def image(self, nos):
        """The image a switch running ``nos`` installs during ZTP, '' for none."""
        return self.nos_images.get(nos) or ""

    def url(self, path):
        """A file of the tree (or an absolute URL given by the operator) as the devices fetch it."""
        if "://" in path:
            return path
        return self.base_url + path
