"""What an EOS rail leaf enforces of tenant isolation now, read from the switch: its running configuration (``show
running-config`` as text, EOS's CLI, which the account's bash runs as ``Cli -p 15 -c``, as collectors.py's commands),
so a tenant change starts from the fabric as it is (tenants/live.py puts the leaves together).

The collection renders through pyavd (avd_input.py) each tenant's IPv4 access list ``ip access-list TENANT_<NAME>``
(the free pool's ``QUARANTINE``) applied inbound to that tenant's server ports (``ip access-group <name> in`` under
``interface EthernetN/M``), and, in VRF mode, each tenant's ports into the VRF ``Vrf-<name>`` (``vrf Vrf-<name>``
under the interface). A tenant name has no underscore and no capital (tenant_assignment.py), so the list's name gives
it back. EOS applies an access group naming a list that is not defined as permit-all (EOS user manual, "Access
Control Lists": "ACL applied to an interface but not configured"), so such a port isolates nothing."""
import re

from ...structured.tenant_acl import tenant_of_acl
from ...structured.tenant_vrf import vrf_name

# The command whose output is the switch's running configuration, as text (a login's bash runs EOS's CLI with Cli).
RUNNING_COMMAND = "Cli -p 15 -c 'show running-config'"
_VRF_PREFIX = vrf_name("")


def blocks(text):
    """[(top-level line, [its indented lines, stripped])] of a running-config's text (``!`` lines dropped)."""
    out = []
    for raw in (text or "").splitlines():
        line = raw.rstrip()
        if not line.strip() or line.strip().startswith("!") or line.strip() == "end":
            continue
        if not line[0].isspace():
            out.append((line, []))
        elif out:
            out[-1][1].append(line.strip())
    return out


def bindings(running):
    """{"acl": {port: tenant}, "vrf": {port: tenant}} of a running EOS switch (``running``: ``show running-config``
    text): the tenant of the IPv4 access list applied inbound to each Ethernet port, and of the VRF each port is in."""
    found = blocks(running)
    defined = {line.split()[2] for line, _lines in found
               if re.match(r"ip access-list \S+\Z", line) and line.split()[2] != "standard"}
    acl, vrf = {}, {}
    for line, lines in found:
        m = re.match(r"interface (Ethernet\S+)\Z", line)
        if not m:
            continue
        port = m.group(1)
        for child in lines:
            group = re.match(r"ip access-group (\S+) in\Z", child)
            if group and group.group(1) in defined and tenant_of_acl(group.group(1)) is not None:
                acl[port] = tenant_of_acl(group.group(1))
            name = re.match(r"vrf (\S+)\Z", child)
            if name and name.group(1).startswith(_VRF_PREFIX) and len(name.group(1)) > len(_VRF_PREFIX):
                vrf[port] = name.group(1)[len(_VRF_PREFIX):]
    return {"acl": acl, "vrf": vrf}
