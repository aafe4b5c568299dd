"""The 800G catalog: Tomahawk 5 and Spectrum-4 switches, their breakouts and sub-port names, the
current GPU servers; the SONiC platform facts agree with the catalog's ports."""
import pytest

from gpufabric.catalog import Catalog, parse_mode
from gpufabric.errors import SpecError
from gpufabric.nos.sonic import platform as sonic_platform


@pytest.fixture(scope="module")
def catalog():
    return Catalog()


def test_z9864f_has_64_800g_cages_named_in_steps_of_8(catalog):
    model = catalog.switch("Z9864F-ON", "x")
    fabric = [p for p in model.ports if p[1] == 800]
    assert len(fabric) == 64
    assert [p[0] for p in fabric[:3]] == ["Ethernet0", "Ethernet8", "Ethernet16"]
    assert fabric[-1][0] == "Ethernet504"
    assert model.rack_units == 2 and model.power_max_w >= model.power_typical_w > 0
    assert "2x400G(8)" in model.breakouts[0]


def test_every_z9864f_port_and_sub_port_has_its_lanes_from_the_platform(catalog):
    model = catalog.switch("Z9864F-ON", "x")
    view = model.broken_out({i: model.find_mode(i, 2, 400) for i, p in enumerate(model.ports) if p[1] == 800})
    for i, (name, _speed, _use, _ff) in enumerate(model.ports):
        lanes = sonic_platform.lanes("Z9864F-ON", name).split(",")
        assert len(lanes) == model.lanes[i], name
    # a 2x400G cage's sub-ports are named by their first lane: Ethernet0 and Ethernet4
    assert [p[0] for p in view.ports[:4]] == ["Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"]
    assert view.modes["Ethernet0"] == "2x400G(8)"
    assert view.cage_of("Ethernet4") == ("Ethernet0", 1, 2, "2x400G(8)")
    assert view.cage_of("Ethernet512") == ("Ethernet512", 0, 1, None)
    assert view.cage_of("eth0") == ("eth0", 0, 1, None)


def test_sn5600_has_64_800g_cages_and_2x400g_breakouts(catalog):
    model = catalog.switch("SN5600", "x")
    assert len(model.ports) == 64 and all(p[1] == 800 for p in model.ports)
    view = model.broken_out({0: model.find_mode(0, 2, 400)})
    assert [p[1] for p in view.ports[:3]] == [400, 400, 800]
    assert view.parent[1][1:4] == (model.ports[0][0], 1, 2)
    assert model.find_mode(0, 3, 200) is None


def test_a_breakout_pattern_names_sub_ports_like_cumulus(catalog):
    from gpufabric.spec import SWITCH_MODEL
    raw = {"port_name": "swp{number}", "breakout_name": "{port}s{sub}",
           "port_groups": [{"count": 2, "speed": 800, "lanes": 8, "breakouts": ["2x400G"]}]}
    cat = Catalog({"switches": {"five": SWITCH_MODEL.validate(raw, "m")}})
    view = cat.switch("five", "x").broken_out({0: "2x400G"})
    assert [p[:2] for p in view.ports] == [("swp1s0", 400), ("swp1s1", 400), ("swp2", 800)]


def test_servers_of_the_800g_generation(catalog):
    xe9680l = catalog.server("XE9680L", "x")
    xe9780 = catalog.server("XE9780", "x")
    assert xe9680l.rack_units < catalog.server("XE9680", "x").rack_units
    assert {n["speed"] for n in xe9680l.backend_nics} == {400}
    assert {n["speed"] for n in xe9780.backend_nics} == {800} and xe9780.gpus == 8
    assert xe9680l.cooling == "liquid" and xe9780.power_max_w > xe9680l.power_max_w


def test_parse_mode():
    assert parse_mode("2x400G(8)") == (2, 400) and parse_mode("1x800G") == (1, 800)
    assert parse_mode("2x400") is None


def test_a_spec_model_with_a_malformed_breakout_is_refused():
    raw = {"port_groups": [{"count": 4, "speed": 800, "lanes": 8, "breakouts": ["two by 400"]}]}
    with pytest.raises(SpecError) as err:
        Catalog({"switches": {"odd": __import__("gpufabric.spec", fromlist=["x"]).SWITCH_MODEL.validate(raw, "m")}})
    assert "models.switches.odd.port_groups[0].breakouts" in str(err.value) and "2x400G" in str(err.value)
