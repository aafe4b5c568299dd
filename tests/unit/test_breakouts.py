"""Breakouts as a planned fact: the mode each port runs follows from the speeds at both ends (or the
spec), and the radix, the tiers and the addressing follow from the broken-out ports."""
import copy

import pytest

from conftest import load_example
from gpufabric.errors import SpecError
from gpufabric.plan import build_plan
from gpufabric.structured import FabricContext, device_config


def _th5():
    return load_example("th5-1k")


@pytest.fixture(scope="module")
def plan():
    return build_plan(_th5())


def test_1024_gpus_with_400g_nics_on_z9864f_plan_16_leaves_and_8_spines_at_1_to_1(plan):
    s = plan.summary
    assert s["gpus"] == 1024
    assert s["devices_by_role"]["backend_leaf"] == 16 and s["devices_by_role"]["backend_spine"] == 8
    assert s["backend"]["oversubscription"] == {"leaf": "1:1"}
    assert s["backend"]["tiers"] == 2 and s["backend"]["servers_per_scalable_unit"] == 64
    leaf = plan.backend.leaves[0]
    down = [e for e in leaf.ends() if e.link.tier == "server"]
    up = [e for e in leaf.ends() if e.link.tier == "leaf-spine"]
    assert len(down) == 64 and {e.link.speed for e in down} == {400}
    assert len(up) == 32 and {e.link.speed for e in up} == {800}
    # 2 x 400G down: 64 GPU links on 32 physical ports, each port's two halves
    cages = {leaf.model.cage_of(e.port)[0] for e in down}
    assert len(cages) == 32
    assert {leaf.model.cage_of(e.port)[3] for e in down} == {"2x400G(8)"}
    assert {leaf.model.cage_of(e.port)[3] for e in up} == {None}


def test_no_physical_port_carries_two_rails(plan):
    for leaf in plan.backend.leaves:
        rails = {}
        for end in leaf.ends():
            if end.link.tier == "server":
                rails.setdefault(leaf.model.cage_of(end.port)[0], set()).add(end.peer.model.backend_nics.index(
                    next(n for n in end.peer.model.backend_nics if n["name"] == end.peer_port)))
        assert all(len(r) == 1 for r in rails.values())


def test_the_leaf_config_has_the_sub_ports_and_every_cage_mode(plan):
    cfg = device_config(plan.backend.leaves[0], FabricContext(plan))
    by_name = {i["name"]: i for i in cfg["ethernet_interfaces"]}
    assert by_name["Ethernet4"]["breakout"] == {"port": "Ethernet0", "mode": "2x400G(8)", "sub": 1, "of": 2}
    assert "breakout" not in by_name["Ethernet256"]
    assert cfg["breakouts"]["Ethernet0"] == "2x400G(8)" and cfg["breakouts"]["Ethernet256"] == "1x800G"
    assert cfg["breakouts"]["Ethernet512"] == "1x25G" and len(cfg["breakouts"]) == 66
    spine = device_config(plan.backend.spines[0], FabricContext(plan))
    assert "breakouts" not in spine


def test_a_leaf_uplink_breakout_breaks_the_spine_downlinks_to_meet_it():
    spec = _th5()
    spec["backend"]["leaf"]["uplink_breakout"] = "2x400G"
    spec["backend"]["spine"]["count"] = 16
    plan = build_plan(spec)
    leaf, spine = plan.backend.leaves[0], plan.backend.spines[0]
    up = [e for e in leaf.ends() if e.link.tier == "leaf-spine"]
    assert len(up) == 64 and {e.link.speed for e in up} == {400}
    assert {spine.model.cage_of(e.port)[3] for e in spine.ends() if e.link.tier == "leaf-spine"} == {"2x400G(8)"}
    assert plan.summary["backend"]["oversubscription"] == {"leaf": "1:1"}


@pytest.mark.parametrize("change, key, words", [
    (lambda s: s["backend"]["leaf"].update(downlink_breakout="3x200G"), "backend.leaf.downlink_breakout",
     ["'3x200G'", "Z9864F-ON", "2x400G(8)", "use one of them"]),
    (lambda s: s["servers"].update(model="XE9780", per_rack=2) or s["backend"]["leaf"].update(model="Z9664F-ON"),
     "backend.leaf.model", ["800G", "faster", "Z9664F-ON's 400G"]),
    (lambda s: s["backend"]["leaf"].update(downlinks=63), "backend.leaf.downlinks",
     ["63", "2x400G(8)", "62 or 64"]),
    (lambda s: s["backend"].update(design="top_of_rack", spine={"model": "Z9864F-ON"}) or
     s["servers"].update(per_rack=2) or
     s["backend"]["leaf"].update(downlinks=32, uplinks=16), "backend.leaf.downlink_breakout",
     ["rails 0 and 1", "one physical port Ethernet0", "rail design"]),
])
def test_bad_breakouts_are_refused_in_one_line(change, key, words):
    spec = copy.deepcopy(_th5())
    change(spec)
    with pytest.raises(SpecError) as err:
        build_plan(spec)
    text = str(err.value)
    assert text.startswith(key + ":") and "\n" not in text, text
    for word in words:
        assert word in text, text


def test_800g_nics_on_800g_cages_need_no_breakout():
    from conftest import load_example
    plan = build_plan(load_example("b300-512"))
    leaf = plan.backend.leaves[0]
    down = [e for e in leaf.ends() if e.link.tier == "server"]
    assert len(down) == 32 and {e.link.speed for e in down} == {800}
    assert getattr(leaf.model, "parent", None) is None      # the catalog model itself: whole ports
    assert plan.summary["backend"]["oversubscription"] == {"leaf": "1:1"}
    assert plan.summary["gpus"] == 512 and plan.summary["devices_by_role"]["backend_spine"] == 8
    assert "breakouts" not in device_config(leaf, FabricContext(plan))


def test_breakout_tables_pass_the_renderer_schema_and_deploy_keeps_the_platforms_elsewhere(plan):
    from gpufabric.nos.sonic.config_db import config_db
    from gpufabric.nos.sonic.deploy import target_config
    from gpufabric.nos.sonic.schema import check_config_db
    ctx = FabricContext(plan)
    leaf = config_db(device_config(plan.backend.leaves[0], ctx))
    assert check_config_db(leaf) == []
    assert leaf["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "2x400G(8)"}
    running = {"BREAKOUT_CFG": {"Ethernet0": {"brkout_mode": "1x800G"}, "Ethernet8": {"brkout_mode": "1x800G"}},
               "PORT": {"Ethernet0": {"lanes": "1,2,3,4,5,6,7,8", "speed": "800000"}}}
    target = target_config(running, leaf)
    assert target["BREAKOUT_CFG"] == leaf["BREAKOUT_CFG"]            # ours where the build breaks ports out
    assert target["PORT"]["Ethernet0"]["lanes"] == "1,2,3,4" and "Ethernet4" in target["PORT"]
    spine = config_db(device_config(plan.backend.spines[0], ctx))
    assert "BREAKOUT_CFG" not in spine
    assert target_config(running, spine)["BREAKOUT_CFG"] == running["BREAKOUT_CFG"]   # the platform's elsewhere


@pytest.mark.parametrize("model", ["generic-64x800g", "SN5600"])
def test_the_other_51t_models_render_for_sonic_with_breakouts(model, sonic_models):
    from conftest import load_example
    from gpufabric.nos.sonic import yang as sonic_yang
    from gpufabric.nos.sonic.config_db import config_db
    spec = load_example("th5-lab")
    spec["backend"]["leaf"]["model"] = spec["backend"]["spine"]["model"] = model
    plan = build_plan(spec)
    ctx = FabricContext(plan)
    for dev in (plan.backend.leaves[0], plan.backend.spines[0]):
        db = config_db(device_config(dev, ctx))
        assert sonic_yang.validate(sonic_models, db, dev.name) == []
    leaf = config_db(device_config(plan.backend.leaves[0], ctx))
    assert leaf["BREAKOUT_CFG"][plan.backend.leaves[0].model.physical.ports[0][0]]["brkout_mode"].startswith("2x400G")


def test_the_summary_names_each_tiers_breakouts(plan):
    from gpufabric.summary import render_text
    assert plan.summary["backend"]["breakouts"] == {"leaf": "32 ports 2x400G(8)"}
    assert "backend breakouts (per switch): leaf 32 ports 2x400G(8)" in render_text(plan.summary)
