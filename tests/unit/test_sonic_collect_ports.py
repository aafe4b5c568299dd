"""SONiC's port observation: `show interfaces status` (sonic-utilities scripts/intfutil, tabulate's "simple" table)
and the kernel's carrier changes, parsed into the ``sysfs`` fact validation joins into each interface."""
from gpufabric.nos.sonic import collectors
from gpufabric.twin.emulators.sonic import show_status
from gpufabric.validate.state import _interfaces

# The layout of sonic-utilities 202511 (FEC, Vlan, Type and Asym PFC columns), values of a Z9332F leaf.
STATUS_202511 = """\
  Interface                    Lanes    Speed    MTU    FEC    Alias         Vlan    Oper    Admin             Type    Asym PFC
-----------  -----------------------  -------  -----  -----  -------  -----------  ------  -------  ---------------  ----------
  Ethernet0  33,34,35,36,37,38,39,40     400G   9100     rs     etp1       routed      up       up  QSFP-DD Double Density 8X Pluggable Transceiver         off
  Ethernet8  41,42,43,44,45,46,47,48     400G   9100     rs     etp2       routed    down       up  QSFP-DD Double Density 8X Pluggable Transceiver         off
 Ethernet16              49,50,51,52     100G   9100    N/A    etp3a  PortChannel1      up     down              N/A         N/A
 Ethernet18                    53,54     2.5G   1500    N/A    etp3b        trunk      up       up  QSFP28 or later         off
PortChannel1                     N/A     100G   9100    N/A      N/A       routed      up       up              N/A         N/A
"""
# An older layout (no FEC, Vlan columns), as sonic-utilities' Command-Reference shows it.
STATUS_OLD = """\
  Interface            Lanes    Speed    MTU            Alias    Oper    Admin    Type    Asym PFC
-----------  ---------------  -------  -----  ---------------  ------  -------  ------  ----------
  Ethernet0      49,50,51,52     100G   9100   hundredGigE1/1    down       up     N/A         off
"""


def _aligned(text):
    """The sample as tabulate aligns it: the rule's runs as wide as each column's widest cell."""
    rows = [line for line in text.splitlines() if not set(line.strip()) <= {"-"}]
    header, body = rows[0], rows[1:]
    names = ["Interface", "Lanes", "Speed", "MTU", "FEC", "Alias", "Vlan", "Oper", "Admin", "Type", "Asym PFC"]
    cells = []
    for line in body:
        parts = line.split()
        type_words = len(parts) - 11 + 1
        cells.append(parts[:9] + [" ".join(parts[9:9 + type_words])] + parts[9 + type_words:])
    assert header.split()[:3] == names[:3]
    return show_status.table(cells, names)


def test_parser_reads_the_202511_table_by_column_names_with_spaces_in_type():
    ports = collectors.interfaces_status(_aligned(STATUS_202511))
    assert ports["Ethernet0"] == {"speed": 400000, "mtu": 9100, "oper_up": True, "admin_up": True}
    assert ports["Ethernet8"]["oper_up"] is False and ports["Ethernet16"]["admin_up"] is False
    assert ports["Ethernet18"]["speed"] == 2500 and ports["Ethernet18"]["mtu"] == 1500
    assert "PortChannel1" not in ports


def test_parser_reads_an_older_layout():
    expected = {"speed": 100000, "mtu": 9100, "oper_up": False, "admin_up": True}
    assert collectors.interfaces_status(STATUS_OLD)["Ethernet0"] == expected


def test_a_text_without_the_table_is_unparsable_not_empty():
    for text in ("", "show: command not found\n", "Interface  Speed\n"):
        try:
            collectors.interfaces_status(text)
        except ValueError:
            continue
        raise AssertionError("parsed %r" % text)


def test_the_sonic_port_fact_joins_carrier_changes_and_the_switch_report():
    text = "/sys/class/net/Ethernet0/carrier_changes:4\n" + _aligned(STATUS_202511)
    fact = collectors.PARSERS["sysfs"][1](text)
    assert fact["Ethernet0"]["carrier_changes"] == 4 and fact["Ethernet0"]["reported"] is True
    links = {"Ethernet0": {"admin_up": True, "oper_up": False, "mtu": 9100},
             "Ethernet16": {"admin_up": True, "oper_up": True, "mtu": 9100}}
    joined = _interfaces(links, fact)
    # The switch's own report wins over its netdevs: oper state and the speed it runs at.
    assert joined["Ethernet0"]["oper_up"] is True and joined["Ethernet0"]["speed"] == 400000
    assert joined["Ethernet0"]["speed_reported"] and joined["Ethernet0"]["flaps"] == 4
    assert joined["Ethernet16"]["admin_up"] is False


def test_the_parser_reads_what_the_twins_switch_prints():
    config = {"PORT": {"Ethernet0": {"lanes": "1,2,3,4"}, "Ethernet4": {}}}
    appl = {"PORT_TABLE": {"Ethernet0": {"lanes": "1,2,3,4", "speed": "100000", "mtu": "9100", "oper_status": "up",
                                         "admin_status": "up"},
                           "Ethernet4": {"speed": "25000", "oper_status": "down", "admin_status": "down"}}}
    state = {"PORT_TABLE": {"Ethernet0": {"speed": "100000"}}}
    ports = collectors.interfaces_status(show_status.interfaces_status(config, appl, state))
    assert ports == {"Ethernet0": {"speed": 100000, "mtu": 9100, "oper_up": True, "admin_up": True},
                     "Ethernet4": {"speed": 25000, "mtu": None, "oper_up": False, "admin_up": False}}
