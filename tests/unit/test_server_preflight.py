"""Preflight and acceptance parsers on real tool output (tests/unit/fixtures/server/README.md names the sources)."""
import os

import pytest

from gpufabric.server import acceptance, preflight

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "server")
RAILS = [{"name": "ens%dnp0" % (i + 1), "rail": i, "rdma": "mlx5_%d" % i} for i in range(8)]


def fixture(name):
    with open(os.path.join(FIX, name), encoding="utf-8") as f:
        return f.read()


def test_ofed_info_of_doca_and_mlnx_ofed():
    assert preflight.parse_ofed_info(fixture("ofed_info_s_doca.txt")) == {"stack": "DOCA-OFED",
                                                                          "version": "24.10-1.1.4.0.200"}
    assert preflight.parse_ofed_info(fixture("ofed_info_s_mlnx.txt")) == {"stack": "MLNX_OFED",
                                                                          "version": "23.10-5.1.4.0"}
    assert preflight.ofed_problem(fixture("ofed_info_s_doca.txt"), "23.10") is None
    assert preflight.ofed_problem(fixture("ofed_info_s_mlnx.txt"), "24.04") == (
        "MLNX_OFED 23.10-5.1.4.0 is older than 24.04: upgrade it")
    assert preflight.ofed_problem("", "23.10").startswith("no DOCA-OFED or MLNX_OFED")


def test_topology_puts_each_rail_nic_on_its_gpus_switch():
    topo = preflight.parse_topo(fixture("nvidia_smi_topo_8xh100.txt"))
    assert topo["gpus"] == ["GPU%d" % i for i in range(8)]
    assert topo["nics"]["mlx5_3"]["GPU3"] == "PIX" and topo["nics"]["mlx5_3"]["GPU4"] == "SYS"
    assert preflight.affinity_problems(topo, RAILS) == []


def test_topology_finds_a_plan_whose_rail_order_does_not_match_the_gpus():
    topo = preflight.parse_topo(fixture("nvidia_smi_topo_8xh100.txt"))
    swapped = [dict(n) for n in RAILS]
    swapped[0]["rdma"], swapped[4]["rdma"] = "mlx5_4", "mlx5_0"
    assert preflight.affinity_problems(topo, swapped) == [
        "rail 0 ens1np0 (mlx5_4) is SYS from GPU0, not on its PCIe switch; it sits with GPU4: the NIC/rail order "
        "does not match the GPUs",
        "rail 4 ens5np0 (mlx5_0) is SYS from GPU4, not on its PCIe switch; it sits with GPU0: the NIC/rail order "
        "does not match the GPUs"]
    with pytest.raises(ValueError, match="no GPU0 column header"):
        preflight.parse_topo(fixture("ofed_info_s_doca.txt"))


def test_rdma_devices_behind_the_rail_nics():
    found = {n["name"]: [n["rdma"]] for n in RAILS}
    assert preflight.rdma_problems(RAILS, found) == []
    found["ens3np0"] = ["mlx5_9"]
    del found["ens8np0"]
    assert preflight.rdma_problems(RAILS, found) == ["rail 2 ens3np0: RDMA device mlx5_9, planned mlx5_2",
                                                     "rail 7 ens8np0: no such network interface"]


def test_ib_write_bw_over_roce():
    parsed = acceptance.parse_ib_write_bw(fixture("ib_write_bw_roce_client.txt"))
    assert (parsed["device"], parsed["link_type"], parsed["gid_index"]) == ("mlx5_0", "Ethernet", 3)
    assert parsed["rows"] == [{"bytes": 65536, "iterations": 560960, "bw_peak_gbps": 0.0, "bw_avg_gbps": 98.03,
                               "msg_rate_mpps": 0.186974}]
    assert acceptance.ib_write_bw_problem(parsed, 100, 0.9, "rail 0") is None
    assert acceptance.ib_write_bw_problem(parsed, 400, 0.9, "rail 0") == (
        "rail 0: mlx5_0 ib_write_bw 98.03 Gb/s at 65536 bytes, below 90% of 400 Gb/s (360.0)")
    with pytest.raises(ValueError, match="--report_gbits"):
        acceptance.parse_ib_write_bw(fixture("ib_write_bw_roce_client.txt").replace("Gb/sec", "MB/sec"))


def test_all_reduce_perf_across_two_servers():
    parsed = acceptance.parse_all_reduce_perf(fixture("all_reduce_perf_2x8_h100.txt"))
    assert parsed["ranks"] == 16 and parsed["hosts"] == ["nccl-tests-h100-worker-0", "nccl-tests-h100-worker-1"]
    assert parsed["avg_busbw"] == 194.675 and parsed["out_of_bounds_ok"] is True
    assert parsed["rows"][-1] == {"bytes": 8589934592, "out_busbw": 196.52, "in_busbw": 196.51, "wrong": 0}
    assert acceptance.all_reduce_problem(parsed, 180) is None
    assert acceptance.all_reduce_problem(parsed, 350) == (
        "all_reduce_perf: bus bandwidth 196.51 GB/s at 8589934592 bytes over 16 ranks on 2 hosts, below 350.0 GB/s")
