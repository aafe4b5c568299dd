"""Breakouts in the build documents: the bill of materials counts one switch-side optic per
broken-out cage (two GPU links) or one breakout cable per cage; device pages list the cages."""
import pytest

from conftest import load_example
from gpufabric.docs import bom as bom_mod
from gpufabric.docs.cabling import Optics, plan_cables
from gpufabric.docs.settings import settings_for
from gpufabric.plan import build_plan
from gpufabric.build import render_all


def _th5():
    return load_example("th5-1k")


@pytest.fixture(scope="module")
def plan():
    return build_plan(_th5())


def _tally(plan):
    settings = settings_for(plan)
    return bom_mod.tally(plan.devices, plan_cables(plan, settings), Optics(settings))


def test_one_switch_side_optic_per_two_gpu_links(plan):
    rows = {name: n for name, _d, n, _k in _tally(plan).rows("transceivers")}
    gpu_links = sum(1 for link in plan.links if link.tier == "server" and link.network == "backend")
    twin = {name: n for name, n in rows.items() if "twin-port" in name}
    assert gpu_links == 1024
    assert twin == {"800G-2xDR4 twin-port OSFP112": gpu_links // 2}
    assert rows["400G-DR4 OSFP"] == gpu_links            # one at every NIC
    leaf_spine = sum(1 for link in plan.links if link.tier == "leaf-spine" and link.network == "backend")
    assert rows["800G-DR8 OSFP112"] == 2 * leaf_spine    # whole 800G ports: one optic at each end


def test_without_pluggable_optics_a_cage_takes_one_breakout_cable():
    spec = _th5()
    del spec["docs"]                  # the defaults: AOC up to 50 m
    plan = build_plan(spec)
    rows = _tally(plan).rows("cables")
    breakout = sum(n for name, _d, n, _k in rows if "breakout 800G to 2x400G" in name)
    assert breakout == 16 * 32        # every down cage of the 16 leaves, each serving two GPUs
    assert not any("twin-port" in name for name, _d, _n, _k in _tally(plan).rows("transceivers"))


def test_device_page_shows_each_physical_port_and_its_sub_ports(plan):
    page = render_all(plan)["docs/devices/th5-r0-leaf01.md"]
    assert "## Breakouts" in page
    assert "| Ethernet0 | 2x400G(8) | Ethernet0, Ethernet4 | th5-gpu0001, th5-gpu0002 |" in page
    spine_page = render_all(plan)["docs/devices/th5-spine01.md"]
    assert "## Breakouts" not in spine_page
