"""Cabling plan: one cable per link, unique and growth-stable IDs, lengths and media from the layout;
the switches size PFC headroom (CABLE_LENGTH) for the cable the plan orders."""
import csv
import io
import json

import pytest

from conftest import load_example
from docs_helpers import cables_of, plan_of
from gpufabric.build import render_switches
from gpufabric.docs.cabling import Media, Optics, cable_row, plan_cables, render_cabling
from gpufabric.docs.settings import defaults, settings_for
from gpufabric.plan import build_plan
from gpufabric.plan.cables import CableLengths
from gpufabric.plan.model import Rack
from gpufabric.nos.sonic import platform as sonic_platform


@pytest.mark.parametrize("name", ["lab", "superpod-1k", "metalsoft-16k"])
def test_one_csv_row_per_link_and_ids_unique(name):
    plan = plan_of(name)
    files = render_cabling(plan, cables_of(name), settings_for(plan))
    rows = list(csv.DictReader(io.StringIO(files["docs/cabling.csv"])))
    assert len(rows) == len(plan.links)
    ids = [r["cable_id"] for r in rows]
    assert len(set(ids)) == len(ids)
    assert all(r["label_a"].startswith(r["cable_id"]) and r["b_device"] in r["label_a"] for r in rows)


def test_cable_ids_do_not_move_when_servers_are_added():
    def ids(count):
        spec = load_example("lab")
        spec["servers"]["count"] = count
        spec["oob"]["pool"] = "192.168.0.0/20"
        plan = build_plan(spec)
        return {(c.link.a.name, c.link.a_port, c.link.b.name, c.link.b_port): c.id
                for c in plan_cables(plan, settings_for(plan))}
    small, grown = ids(4), ids(8)
    assert len(grown) > len(small)
    assert all(grown[ends] == cid for ends, cid in small.items())


def _rack(row, column):
    return Rack("r%d-%d" % (row, column), row, column, "network", 0)


def _lengths():
    settings = defaults()
    return CableLengths(settings["layout"], settings["stock_lengths_m"])


def test_length_grows_with_distance():
    here = _rack(0, 0)
    racks = [here, _rack(0, 1), _rack(0, 5), _rack(1, 5), _rack(4, 5), _rack(40, 20)]
    lengths = [_lengths().estimate(here, r) for r in racks]
    assert lengths == sorted(lengths) and len(set(lengths)) == len(lengths)


@pytest.mark.parametrize("length, speed, media", [(2, 400, "DAC"), (3, 400, "DAC"), (5, 400, "AOC"),
                                                  (50, 400, "AOC"), (70, 400, "SR"), (300, 400, "DR"),
                                                  (1000, 400, "FR"), (3000, 400, "LR"), (2, 1, "Cat6")])
def test_media_by_reach(length, speed, media):
    assert Media(defaults()).choose(_lengths().stock(length), speed)["name"] == media


def test_layout_in_the_spec_moves_the_core_row():
    core = [c for c in cables_of("lab") if c.link.a.rack.row < 0 and c.link.b.rack.row >= 0]
    spec = load_example("lab")
    spec["docs"] = {"layout": {"core_row": 30}}
    plan = build_plan(spec)
    far = {(c.link.a.name, c.link.a_port): c for c in plan_cables(plan, settings_for(plan))}
    assert core and all(far[(c.link.a.name, c.link.a_port)].length > c.length for c in core)


@pytest.mark.parametrize("name", ["lab", "superpod-1k", "twin-256", "planes-3tier-small", "railonly-small"])
def test_switch_cable_length_is_the_class_of_the_ordered_cable(name):
    """Every cabled port with a CABLE_LENGTH (the PFC headroom class) has the class of the stock
    length the cabling plan orders for that very cable, at both ends."""
    plan = plan_of(name)
    rows = list(csv.DictReader(io.StringIO(render_cabling(plan, cables_of(name), settings_for(plan))
                                           ["docs/cabling.csv"])))
    ordered = {}
    for row in rows:
        for side in "ab":
            ordered[(row[side + "_device"], row[side + "_port"])] = float(row["stock_length_m"])
    checked = 0
    models = {dev.name: dev.model.name for dev in plan.devices}
    for path, text in render_switches(plan).items():
        if not path.endswith("config_db.json"):
            continue
        host = path.split("/")[1]
        db = json.loads(text)
        for port, length in db.get("CABLE_LENGTH", {}).get("AZURE", {}).items():
            assert (host, port) in ordered, "CABLE_LENGTH of %s %s, a port the cabling plan has no cable for" % (
                host, port)
            # The shortest length of the platform's pg_profile_lookup.ini that covers the ordered cable.
            speed = int(db["PORT"][port]["speed"])
            assert length == sonic_platform.lossless_cable(models[host], speed, ordered[(host, port)]), (host, port)
            checked += 1
    assert checked >= sum(1 for row in rows if row["network"] == "backend")


def test_optics_named_by_speed_media_and_cage():
    plan = plan_of("metalsoft-16k")
    optics = Optics(settings_for(plan))
    dr = next(c for c in cables_of("metalsoft-16k") if c.media["name"] == "DR" and c.link.speed == 400)
    row = cable_row(dr, optics)
    assert row[13] == "400G-DR4 QSFP56-DD" and row[14].startswith("400G-DR4")
