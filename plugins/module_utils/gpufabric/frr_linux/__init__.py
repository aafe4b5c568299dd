"""A device that runs Linux with FRR, lldpd and iproute2: the commands that read it and the parsers of their output.

Neutral code assumes none of this. A NOS home whose switches run that stack uses it (its collectors, BGP gate
reader and drain lines are these), and the GPU servers, which run Linux by design
(render/linux_host*), are collected through ``host.py``. A home whose NOS answers otherwise (``show ... | json``, say)
gives its own (home_contract.py; docs/architecture.md, "The home contract").

- parsers.py: vtysh, lldpcli, ``ip -j``, sysfs and mlnx_qos output as plain data
- collectors.py: a switch's commands and parsers for the observations validation checks (lldp, bgp, routes,
  links, sysfs)
- host.py: a GPU server's (those of collectors.py, its addresses, rules, route tables, NIC QoS)
- bgp.py: the deploy's BGP gate reading FRR (which commands, their JSON as the gate's facts)
- drain.py: the vtysh lines that drain a running switch, and the line that shows it is drained
"""
