"""Parsers of mlxconfig and mlnx_qos, on real output of those tools (fixtures/server/README.md names sources)."""
import os

import pytest

from gpufabric.errors import SpecError
from gpufabric.server import mellanox, roce

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "server")


def fixture(name):
    with open(os.path.join(FIX, name)) as f:
        return f.read()


def test_mlnx_qos_dscp_pfc3():
    q = mellanox.parse_mlnx_qos(fixture("mlnx_qos_dscp_pfc3.txt"))
    assert q["trust"] == "dscp"
    assert q["pfc"] == [0, 0, 0, 1, 0, 0, 0, 0] == mellanox.pfc_vector([3])
    assert 26 in q["dscp2prio"][3] and 48 in q["dscp2prio"][6]


def test_mlnx_qos_default_is_pcp_without_pfc():
    q = mellanox.parse_mlnx_qos(fixture("mlnx_qos_pcp_default.txt"))
    assert q == {"trust": "pcp", "pfc": [0] * 8, "dscp2prio": {}}


def test_mlnx_qos_rejects_other_text():
    with pytest.raises(ValueError):
        mellanox.parse_mlnx_qos(fixture("mlxconfig_q_cx5.txt"))


def test_pfc_priority_out_of_range():
    with pytest.raises(SpecError, match="priority 8 is outside 0-7"):
        mellanox.pfc_vector([8])


def test_mlxconfig_query_cx5():
    q = mellanox.parse_mlxconfig_query(fixture("mlxconfig_q_cx5.txt"))
    assert q["device"]["Device type"] == "ConnectX5"
    assert q["columns"] == ["Default", "Current", "Next Boot"]
    assert q["params"]["ADVANCED_PCI_SETTINGS"] == {"Default": "False(0)", "Current": "True(1)", "Next Boot": "True(1)"}
    assert set(q["params"]) == {"MEMIC_BAR_SIZE", "MEMIC_SIZE_LIMIT", "ADVANCED_PCI_SETTINGS", "SAFE_MODE_THRESHOLD",
                                "SAFE_MODE_ENABLE"}


def test_mlxconfig_changes_by_name_or_number_and_no_pending():
    q = mellanox.parse_mlxconfig_query(fixture("mlxconfig_q_cx5.txt"))
    for wanted in (True, "True", "1", 1):
        assert mellanox.mlxconfig_changes(q, {"ADVANCED_PCI_SETTINGS": wanted}) == ({}, [])
    to_set, pending = mellanox.mlxconfig_changes(q, {"SAFE_MODE_ENABLE": False, "SAFE_MODE_THRESHOLD": 10})
    assert to_set == {"SAFE_MODE_ENABLE": {"before": "True(1)", "after": "False"}} and pending == []


def test_mlxconfig_pending_reset():
    q = mellanox.parse_mlxconfig_query(fixture("mlxconfig_q_pending.txt"))
    to_set, pending = mellanox.mlxconfig_changes(q, {"SRIOV_IB_ROUTING_MODE_P1": "GID"})
    assert to_set == {} and pending == ["SRIOV_IB_ROUTING_MODE_P1"]


def test_mlxconfig_unknown_parameter_names_it():
    q = mellanox.parse_mlxconfig_query(fixture("mlxconfig_q_cx6lx_partial.txt"))
    assert q["params"]["ROCE_NEXT_PROTOCOL"]["Current"] == "254"
    with pytest.raises(SpecError, match=r"^mlxconfig.LINK_TYPE_P3: mlx5_0 has no such firmware parameter$"):
        mellanox.mlxconfig_changes(q, {"LINK_TYPE_P3": "ETH"}, "mlx5_0")


def test_traffic_class_reads_back_as_global_tclass():
    # A set tc/1/traffic_class reads "Global tclass=106" (shown in the RoCE notes of mlnx_qos_pcp_default.txt).
    assert roce.normalise("Global tclass=106\n") == "106"
    assert roce.normalise("") == ""


def test_roce_paths():
    s = roce.settings("/r", "ens1np0", "mlx5_0", [3], 48, 106, "RoCE v2", cnp_priority=6)
    assert s["/r/sys/class/net/ens1np0/ecn/roce_np/cnp_802p_prio"] == "6"
    assert s["/r/sys/class/net/ens1np0/ecn/roce_np/enable/3"] == "1"
    assert s["/r/sys/class/net/ens1np0/ecn/roce_rp/enable/3"] == "1"
    assert s["/r/sys/class/net/ens1np0/ecn/roce_np/cnp_dscp"] == "48"
    assert s["/r/sys/class/infiniband/mlx5_0/tc/1/traffic_class"] == "106"
    assert s["/r/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode"] == "RoCE v2"
