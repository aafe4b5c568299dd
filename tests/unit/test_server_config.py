"""Firmware baseline, BIOS diff, rail networking and NCCL environment, from the lab plan's host data."""
import pytest

from gpufabric import export
from gpufabric.errors import SpecError
from gpufabric.plan import build_plan
from gpufabric.server import bios, firmware, live, nccl, network

INVENTORY = [{"id": "Installed-159-1.6.4", "name": "BIOS", "version": "1.6.4", "updateable": True},
             {"id": "Installed-25227-7.00.00.00", "name": "Integrated Dell Remote Access Controller",
              "version": "7.00.00.00", "updateable": True}] + [
    {"id": "Installed-0-28.39.1002__NIC.Slot.%d-1-1" % s, "name": "Mellanox ConnectX-7 Single Port VPI NDR OSFP Adapter",
     "version": "28.39.1002" if s != 35 else "28.36.1010", "updateable": True} for s in range(31, 39)]


@pytest.fixture
def lab_fabric(lab_spec):
    hv = export.hostvars(build_plan(lab_spec))
    return hv["lab-gpu0001"]["fabric"], hv["lab-gpu0002"]["fabric"]


def test_firmware_baseline_finds_the_one_old_nic():
    changes = firmware.compare(INVENTORY, {"BIOS": "1.6.4", "Mellanox ConnectX-7": "28.39.1002",
                                           "Integrated Dell Remote Access Controller": "7.00.00.00"})
    assert [(c["id"], c["current"], c["action"], c["reboot_required"]) for c in changes] == [
        ("Installed-0-28.39.1002__NIC.Slot.35-1-1", "28.36.1010", "update", True)]


def test_firmware_versions_compare_as_numbers_and_bmc_needs_no_host_reboot():
    assert firmware.version_key("1.10.2") > firmware.version_key("1.9.9")
    changes = firmware.compare(INVENTORY, {"Integrated Dell Remote Access Controller": "7.10.30.00"})
    assert changes[0]["reboot_required"] is False
    assert firmware.compare(INVENTORY, {"BIOS": "1.5.0"}) == []
    assert firmware.compare(INVENTORY, {"BIOS": "1.5.0"}, allow_downgrade=True)[0]["action"] == "downgrade"


def test_firmware_unknown_component_and_empty_version():
    with pytest.raises(SpecError, match=r"^baseline.Broadcom: no such component in the BMC's firmware inventory; "
                                        r"it has: BIOS, Integrated"):
        firmware.compare(INVENTORY, {"Broadcom": "1"}, "baseline")
    with pytest.raises(SpecError, match=r"^gpu_server_firmware_baseline.BIOS: empty version"):
        firmware.compare(INVENTORY, {"BIOS": ""})


def test_firmware_nic_versions_in_idrac_four_parts_and_one_job_per_component():
    inventory = [{"id": "Installed-105126-%s__NIC.Slot.%d-1-1" % (v, s), "version": v, "updateable": True,
                  "name": "NVIDIA ConnectX-7 Single Port NDR OSFP Adapter - C4:70:BD:5A:00:%02X" % s}
                 for s, v in ((31, "28.39.10.02"), (32, "28.36.10.10"), (33, "28.36.10.10"))]
    assert firmware.in_scheme_of("28.39.1002", "28.36.10.10") == "28.39.10.02"
    assert firmware.in_scheme_of("1.7.5", "1.6.4") == "1.7.5"
    changes = firmware.compare(inventory, {"NVIDIA ConnectX-7": "28.39.1002"})
    assert [(c["current"], c["wanted"]) for c in changes] == [("28.36.10.10", "28.39.10.02")] * 2
    assert firmware.by_component(changes) == [{"component": "NVIDIA ConnectX-7", "wanted": "28.39.10.02",
                                               "names": [changes[0]["name"], changes[1]["name"]],
                                               "current": ["28.36.10.10"] * 2, "reboot_required": True}]


def test_firmware_inventory_counts_installed_and_current_once():
    members = [{"Id": "Current-105126-28.36.10.10__NIC.Slot.31-1-1", "Name": "NVIDIA ConnectX-7 - M", "Version": "28.36.10.10"},
               {"Id": "Installed-105126-28.36.10.10__NIC.Slot.31-1-1", "Name": "NVIDIA ConnectX-7 - M",
                "Version": "28.36.10.10", "Updateable": True}]
    assert [i["id"] for i in firmware.inventory_from_redfish(members)] == ["Installed-105126-28.36.10.10__NIC.Slot.31-1-1"]


def test_firmware_inventory_skips_previous_images():
    members = [{"Id": "Previous-159-1.5.0", "Name": "BIOS", "Version": "1.5.0"},
               {"Id": "Installed-159-1.6.4", "Name": "BIOS", "Version": "1.6.4", "Updateable": True}]
    assert firmware.inventory_from_redfish(members) == [INVENTORY[0]]


def test_bios_diff_pending_and_reboot():
    current = {"SysProfile": "PerfPerWattOptimizedDapc", "LogicalProc": "Enabled", "NumaNodesPerSocket": 1}
    to_set, pending = bios.diff(current, {}, {"SysProfile": "PerfOptimized", "LogicalProc": "Enabled"})
    assert to_set == {"SysProfile": {"before": "PerfPerWattOptimizedDapc", "after": "PerfOptimized"}} and not pending
    # Already queued: nothing to PATCH, but the reboot is still owed.
    to_set, pending = bios.diff(current, {"SysProfile": "PerfOptimized"}, {"SysProfile": "PerfOptimized"})
    assert to_set == {} and pending and bios.reboot_required(to_set, pending)
    assert not bios.reboot_required(*bios.diff(current, {}, {"LogicalProc": "Enabled"}))
    with pytest.raises(SpecError, match=r"NumaNodesPerSocket: 'two' is not a number"):
        bios.diff(current, {}, {"NumaNodesPerSocket": "two"})


def test_rail_nics_from_plan(lab_fabric):
    cfg = network.config(lab_fabric[0], "192.168.1.2", 22, "192.168.0.1")
    nics = cfg["backend"]
    assert [n["name"] for n in nics] == ["ens%dnp0" % i for i in range(1, 9)]
    assert nics[0] == {"name": "ens1np0", "rail": 0, "address": "10.0.0.1", "prefix": 31, "cidr": "10.0.0.1/31",
                       "network": "10.0.0.0/31", "gateway": "10.0.0.0", "table": 101, "priority": 1001, "mtu": 9000,
                       "peer": "lab-r0-leaf01", "peer_interface": "Ethernet0", "rdma": "mlx5_0"}
    assert len({n["table"] for n in nics}) == len({n["priority"] for n in nics}) == 8
    assert cfg["frontend"] == {"name": "bond0", "mode": "802.3ad", "members": ["ens9f0np0", "ens9f1np1"],
                               "address": "10.64.0.4/28", "gateway": "10.64.0.1", "mtu": 9000}
    assert cfg["management"] == {"name": "eno8303", "address": "192.168.1.2/22", "gateway": "192.168.0.1", "mtu": 1500}
    assert cfg["sysctls"]["net.ipv4.conf.ens8np0.rp_filter"] == 2
    assert cfg["sysctls"]["net.ipv4.conf.all.arp_ignore"] == 1
    assert network.config(lab_fabric[0])["management"] is None


def test_nccl_env_lists_the_rail_hcas_and_keeps_rings_on_their_rail_where_rails_are_isolated(lab_fabric):
    nics = network.backend(lab_fabric[0])
    env = nccl.environment(nics, "bond0", 106, "rail_optimized")
    assert env == {"NCCL_IB_HCA": "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7", "NCCL_IB_TC": "106",
                   "NCCL_IB_GID_INDEX": "3", "NCCL_SOCKET_IFNAME": "bond0"}
    assert "NCCL_IB_TC=106" in nccl.render(env).splitlines()
    for design in ("rail_planes", "rail_only"):
        assert nccl.environment(nics, "bond0", 106, design)["NCCL_CROSS_NIC"] == "0"
    nics[2]["rdma"] = None
    with pytest.raises(SpecError, match="no RDMA device name for ens3np0"):
        nccl.environment(nics, "bond0", 106, "rail_optimized")


def test_live_commands_idempotent_from_ip_json(lab_fabric):
    nic = network.backend(lab_fabric[0])[0]
    assert live.link_commands(nic, {"mtu": 1500, "flags": ["BROADCAST"]}) == [
        ["link", "set", "dev", "ens1np0", "mtu", "9000"], ["link", "set", "dev", "ens1np0", "up"]]
    assert live.link_commands(nic, {"mtu": 9000, "flags": ["UP"]}) == []
    assert live.addr_commands(nic, [{"addr_info": [{"family": "inet", "local": "10.0.0.1", "prefixlen": 31}]}]) == []
    routes = [{"dst": "10.0.0.0/31", "dev": "ens1np0", "prefsrc": "10.0.0.1"},
              {"dst": "default", "gateway": "10.0.0.0", "dev": "ens1np0"}]
    assert live.route_commands(nic, routes) == []
    assert len(live.route_commands(nic, [])) == 2
    assert live.rule_commands(nic, [{"priority": 1001, "src": "10.0.0.1", "table": "101"}]) == []
    stale = live.rule_commands(nic, [{"priority": 1001, "src": "10.9.0.1", "table": "101"}])
    assert stale[0] == ["rule", "del", "priority", "1001"] and stale[1][:3] == ["rule", "add", "from"]


def test_a_rail_nic_needs_a_31_and_its_gateway_is_the_other_address():
    from gpufabric.server.network import backend
    fabric = {"interfaces": [{"name": "ens1np0", "network": "backend", "ipv4": "10.9.0.6/31"}]}
    (nic,) = backend(fabric)
    assert (nic["address"], nic["cidr"], nic["network"], nic["gateway"]) == (
        "10.9.0.6", "10.9.0.6/31", "10.9.0.6/31", "10.9.0.7")
    for text in ("10.9.0.6/30", "10.9.0.6"):
        fabric["interfaces"][0]["ipv4"] = text
        with pytest.raises(SpecError, match="fabric.interfaces.ens1np0.ipv4: %s is not a /31" % text):
            backend(fabric)
