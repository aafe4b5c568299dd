"""Zero-touch provisioning from the plan (docs/ztp.md).

- positions.py: every management port by cabling position (OOB switch and port), as option 82 names it
- kea.py: the Kea DHCPv4 configuration that answers by position, never by MAC
- a NOS home's ztp (nos/<name>/ztp.py): per switch what its NOS boots from
- idrac.py: iDRAC auto config (option 43) and server configuration profiles
- tree.py: the HTTP file tree and the Kea config under build/<cluster>/ztp/, written atomically
- report.py: who asked at which position and got nothing (unplanned ports, swapped cables)
"""
