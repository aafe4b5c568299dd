"""The example clusters plan as documented, and the reference docs match the schema."""
import os

import pytest

from gpufabric.catalog import Catalog
from gpufabric.errors import SpecError
from gpufabric.plan import build_plan
from gpufabric.spec import reference_markdown
from conftest import EXAMPLES, ROOT, load_example


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_plans_and_every_name_is_unique(name):
    plan = build_plan(load_example(name))
    names = [d.name for d in plan.devices]
    assert len(names) == len(set(names))
    assert plan.summary["servers"] == load_example(name)["servers"]["count"]


def test_lab_shape():
    s = build_plan(load_example("lab")).summary
    assert s["gpus"] == 32
    assert s["devices_by_role"]["backend_leaf"] == 16 and s["devices_by_role"]["backend_spine"] == 2
    assert s["links"]["backend server"] == 32 and s["links"]["backend leaf-spine"] == 32


def test_metalsoft_is_a_three_tier_rail_planes_clos():
    s = build_plan(load_example("metalsoft-16k")).summary
    b = s["backend"]
    assert s["gpus"] == 16384 and b["design"] == "rail_planes" and b["tiers"] == 3
    # ceil(2048 / 24) = 86 leaves a rail; pods of 32 leaves under 8 spines: 3 pods a rail.
    assert s["devices_by_role"]["backend_leaf"] == 8 * 86
    assert s["devices_by_role"]["backend_spine"] == 8 * 3 * 8
    assert b["oversubscription"] == {"leaf": "3:1", "spine": "1:1"}
    assert s["links"]["backend server"] == 16384


def test_superpod_and_100k_sizes():
    s = build_plan(load_example("superpod-1k")).summary
    assert s["gpus"] == 1024 and s["devices_by_role"]["backend_spine"] == 16
    assert s["backend"]["max_gpus"] == 1024
    big = build_plan(load_example("h100-100k")).summary
    assert big["gpus"] == 100000 and big["backend"]["tiers"] == 3


def test_leaf_advertises_one_aligned_summary_holding_all_its_server_links():
    plan = build_plan(load_example("metalsoft-16k"))
    for leaf in plan.by_role("backend_leaf")[:200]:
        base, prefix = leaf.server_block
        size = 1 << (32 - prefix)
        assert base % size == 0
        for link in leaf.links:
            if link.tier == "server":
                assert base <= link.ipv4 < base + size


def test_catalog_port_names_follow_sonic():
    cat = Catalog()
    assert [p[0] for p in cat.switch("Z9332F-ON", "x").ports[:3]] == ["Ethernet0", "Ethernet8", "Ethernet16"]
    assert cat.switch("Z9664F-ON", "x").ports[63][0] == "Ethernet252"
    assert [p[0] for p in cat.switch("S5296F-ON", "x").ports[96:98]] == ["Ethernet96", "Ethernet97"]
    assert cat.switch("S3248T-ON", "x").ports[53][0] == "Ethernet56"


def test_docs_spec_md_is_generated_from_the_schema():
    with open(os.path.join(ROOT, "docs", "spec.md")) as f:
        assert f.read() == reference_markdown(), "docs/spec.md is stale: run make docs"


@pytest.mark.parametrize("path, value, message", [
    ("backend.ipv6", True, "backend.ipv6: IPv6 is not rendered yet"),
    ("backend.pools.loopbacks_ipv6", "fd00:1::/64", "backend.pools.loopbacks_ipv6: IPv6 is not rendered yet"),
    ("frontend.pools.leaf_spine_ipv6", "fd00:3::/64", "frontend.pools.leaf_spine_ipv6: IPv6 is not rendered yet"),
    ("frontend.dual_homing", "evpn_mh", "frontend.dual_homing: evpn_mh is not rendered yet"),
])
def test_inputs_no_renderer_implements_are_refused_in_one_line(path, value, message):
    spec = load_example("lab")
    *parents, key = path.split(".")
    node = spec
    for part in parents:
        node = node.setdefault(part, {})
    node[key] = value
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_spines_sized_to_the_cluster_follow_nvidias_superpod_table():
    # NVIDIA DGX SuperPOD (H100) reference architecture: 4, 8 and 16 spines for 1, 2 and 3-4
    # scalable units of 32 servers on 64-port switches.
    import copy
    spec = copy.deepcopy(load_example("superpod-1k"))
    spec["backend"]["spine"] = {"model": spec["backend"]["spine"]["model"], "size_for": "cluster"}
    for units, spines in ((1, 4), (2, 8), (3, 16), (4, 16)):
        spec["servers"]["count"] = 32 * units
        s = build_plan(spec).summary
        assert s["devices_by_role"]["backend_spine"] == spines
        assert "sized for this cluster" in s["backend"]["spine_sizing"]
    # the default keeps the hardware maximum and says what the cluster alone would need
    spec["backend"]["spine"].pop("size_for")
    spec["servers"]["count"] = 32
    s = build_plan(spec).summary
    assert s["devices_by_role"]["backend_spine"] == 32
    assert "this cluster needs only 4" in s["backend"]["spine_sizing"]


def test_cluster_sizing_is_refused_for_three_tier_pods():
    import copy
    from gpufabric.errors import SpecError
    spec = copy.deepcopy(load_example("metalsoft-16k"))
    spec["backend"]["spine"]["size_for"] = "cluster"
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    assert str(info.value).startswith("backend.spine.size_for: cluster sizing applies to a two-tier")


def test_meta_24k_reproduces_the_published_counts():
    # Llama 3 paper (arXiv 2407.21783, 3.3.1) and glennklockwood.com/garden/systems/meta's-h100-clusters:
    # 24,576 GPUs, 3,072 servers, 2 servers (16 GPUs) per rack on one ToR, 1,536 racks, 8 pods of 192
    # racks / 3,072 GPUs, non-blocking inside a pod, 1:7 above it. Gangidi et al. (SIGCOMM 2024): 18
    # CTSW per AI zone (16 GPU links, 1.125 x as many uplinks); the 18 ATSW.
    plan = build_plan(load_example("meta-24k"))
    s, b = plan.summary, plan.summary["backend"]
    assert s["gpus"] == 24576 and s["servers"] == 3072
    assert sum(1 for r in plan.racks if r.kind == "server") == 1536
    assert b["pods"] == 8 and s["devices_by_role"]["backend_leaf"] == 1536
    assert s["devices_by_role"]["backend_spine"] == 8 * 18 and s["devices_by_role"]["backend_superspine"] == 18
    for pod in range(8):
        leaves = [d for d in plan.backend.leaves if d.pod == pod]
        assert len(leaves) == 192 and sum(len([x for x in d.links if x.tier == "server"]) for d in leaves) == 3072
    assert {d.pod for d in plan.backend.spines} == set(range(8))
    # 7:1 over 192 downlinks: 28 uplinks, the fewest at or below 7:1 (27 would be 7.11:1)
    assert b["oversubscription"]["spine"] == "48:7" and len(plan.sizing.backend.spine_up) == 28
    assert 192 / 28 <= 7 < 192 / 27


def test_meta_32k_is_eight_zones_of_4096_gpus():
    # inventories/meta-32k: Meta, Networking@Scale 2025 (summarised at zenml.io, "scaling AI network
    # infrastructure ... 100k GPU"): an AI zone holds 2,000 to 4,000 GPUs; a DC building has 4 halls of up
    # to 2 zones. Eight zones of 4,096 GPUs (256 racks of 16) make the 32k cluster, on meta-24k's hardware.
    import copy
    plan = build_plan(load_example("meta-32k"))
    s = plan.summary
    assert s["gpus"] == 32768 and s["backend"]["pods"] == 8
    assert s["devices_by_role"]["backend_leaf"] == 2048 and s["devices_by_role"]["backend_spine"] == 8 * 18
    assert s["devices_by_role"]["backend_superspine"] == 18
    # 256 downlinks at 7:1: 37 uplinks (6.92:1; 36 would be 7.11:1)
    down, up = len(plan.sizing.backend.spine_down), len(plan.sizing.backend.spine_up)
    assert (down, up) == (256, 37) and s["backend"]["oversubscription"]["spine"] == "256:37"
    assert down / up <= 7 < down / (up - 1)
    # the same hardware and zone arithmetic as meta-24k: only the zone size differs
    other = copy.deepcopy(load_example("meta-24k"))
    other["servers"]["count"], other["backend"]["pod_gpus"] = 4096, 4096
    other["cluster"]["name"] = "meta32k"
    assert build_plan(other).summary == s


@pytest.mark.parametrize("change, message", [
    ({"pod_gpus": 3000}, "backend.pod_gpus: 3000 GPUs is not a whole number of scalable units of 16 GPUs"),
    ({"superspine": None}, "backend.pod_gpus: pods exist in three or four tiers only"),
    ({"spine": {"model": "chassis-576x400g", "count": 18, "downlinks": 100}},
     "backend.spine.downlinks: 100 downlinks, but a pod of backend.pod_gpus needs 192"),
])
def test_pod_size_errors_name_the_key(change, message):
    import copy
    spec = copy.deepcopy(load_example("meta-24k"))
    spec["backend"].update(change)
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


def test_four_tiers_of_64_port_switches_hold_100k_gpus():
    # A non-blocking fat tree of k-port switches holds k^3/4 hosts in three tiers (65,536 at k = 64):
    # 100,000 GPUs need a fourth tier, which holds k^4/8 (2,097,152) at one link per core switch.
    import copy
    spec = copy.deepcopy(load_example("h100-100k-4tier"))
    three = copy.deepcopy(spec)
    three["backend"]["core"] = None
    with pytest.raises(SpecError) as info:
        build_plan(three)
    assert "holds at most 8192 servers, 65536 GPUs" in str(info.value)
    assert "add backend.core (four tiers)" in str(info.value)
    plan = build_plan(spec)
    s, b = plan.summary, plan.summary["backend"]
    assert s["gpus"] == 100000 and b["tiers"] == 4 and b["zones"] == 4 and b["pods"] == 98
    roles = s["devices_by_role"]
    # 391 SUs x 8 rails; 98 pods x 32 spines; 4 zones x 32 x 32 superspines; 32 x 32 core planes x 2
    assert (roles["backend_leaf"], roles["backend_spine"]) == (391 * 8, 98 * 32)
    assert (roles["backend_superspine"], roles["backend_core"]) == (4 * 32 * 32, 32 * 32 * 2)
    assert b["oversubscription"] == {"leaf": "1:1", "spine": "1:1", "superspine": "1:1"}
    # 2 core switches per plane, 16 links from each superspine: 4 zones, 131,072 GPUs
    assert b["max_gpus"] == 4 * 32 * 1024
    # the sizing alone: a plan of it would need pools for 32,768 core switches
    from gpufabric.plan.sizing import size
    from gpufabric.spec import validate
    spec["backend"]["core"].pop("count")
    valid = validate(spec)
    sizing = size(valid, Catalog(valid["models"]))
    assert sizing.max_servers * 8 == 64 ** 4 // 8 and sizing.backend.cores_per_plane == 32


@pytest.mark.parametrize("tier, count, message", [
    ("core", 3, "backend.core.count: 3 core switches per plane do not divide the 32 superspine uplinks evenly"),
    ("superspine", 5, "backend.superspine.count: 5 superspines per plane do not divide the 32 spine uplinks evenly"),
])
def test_upper_tier_counts_that_do_not_divide_the_uplinks_are_refused(tier, count, message):
    # An uneven fan-out would give some switches more links than others: refused, with the divisors.
    import copy
    spec = copy.deepcopy(load_example("h100-100k-4tier"))
    spec["backend"][tier]["count"] = count
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    text = str(info.value)
    assert text.startswith(message) and text.endswith("(1, 2, 4, 8, 16, 32)") and "\n" not in text
