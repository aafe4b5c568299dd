"""Bill of materials: counts agree with the plan and the cabling plan; prices give a cost."""
import csv
import io

from docs_helpers import cables_of, plan_of
from gpufabric.docs.bom import render_bom, tally
from gpufabric.docs.cabling import Optics
from gpufabric.docs.settings import settings_for


def _bom_rows(name, overrides=None):
    plan = plan_of(name)
    settings = settings_for(plan, overrides)
    files = render_bom(plan, cables_of(name), Optics(settings), settings)
    return files, list(csv.DictReader(io.StringIO(files["docs/bom.csv"])))


def _total(rows, category):
    return sum(int(r["count"]) for r in rows if r["category"] == category)


def test_optics_are_two_per_optical_cable():
    cables = cables_of("metalsoft-16k")
    rows = _bom_rows("metalsoft-16k")[1]
    pluggable = sum(1 for c in cables if c.media.get("transceivers"))
    optical = sum(1 for c in cables if c.media.get("optical"))
    aoc = optical - pluggable
    assert pluggable > 0 and aoc > 0
    assert _total(rows, "transceivers") == 2 * pluggable
    assert _total(rows, "transceivers") + 2 * aoc == 2 * optical


def test_counts_match_the_plan():
    plan = plan_of("metalsoft-16k")
    rows = _bom_rows("metalsoft-16k")[1]
    assert _total(rows, "switches") == plan.summary["switches"]
    assert _total(rows, "servers") == plan.summary["servers"]
    assert _total(rows, "cables") == len(plan.links)


def test_cost_from_prices_with_family_fallback():
    plan = plan_of("lab")
    files, rows = _bom_rows("lab", {"prices": {"Z9332F-ON": 1000, "AOC 400G": 10}})
    leaves = plan.summary["devices_by_role"]["backend_leaf"]
    aoc400 = sum(1 for c in cables_of("lab") if c.media["name"] == "AOC" and c.link.speed == 400)
    priced = sum(float(r["cost"]) for r in rows if r["cost"])
    assert priced == 1000 * leaves + 10 * aoc400
    assert "Cost: %s USD" % "{:,.0f}".format(priced) in files["docs/bom.md"]


def test_without_prices_counts_only():
    files, rows = _bom_rows("lab")
    assert "counts only" in files["docs/bom.md"] and not any(r["cost"] for r in rows)


def test_tally_groups_identical_cables():
    plan = plan_of("lab")
    bom = tally([], cables_of("lab"), Optics(settings_for(plan)))
    assert bom.total("cables") == len(plan.links)
