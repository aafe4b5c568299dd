"""config_db.json text: the project's indenting writer gives exactly the standard library's text."""
import json

import pytest

from gpufabric.build import render_switches
from gpufabric.plan import build_plan
from gpufabric.nos.sonic.render import indented_json


@pytest.mark.parametrize("value", [
    {}, [], {"a": {}}, {"a": []}, {"b": "1", "a": {"z": ["x", "y"], "é": "ü\n\"q\""}},
    {"T": {"r1": {"n": 1, "f": 1.5, "t": True, "none": None}}}, [[], [{}], ["s"]],
    {"m": {"2": "b", "10": "a"}},
    {"nested": {"ints": {3: "c", 1: "a"}}},
    # tables of rows of strings (written in one C encoder call, then cut apart): empty rows first, between and last,
    # strings holding what ends one row and starts the next
    {"T": {"a": {}, "b": {"y": "1", "x": "},\n        {"}, "c": {}, "d": {"z": "é"}, "e": {}}},
    {"T": {"only": {}}}, {"T": {"k": {"f": "v"}}},
])
def test_same_text_as_the_standard_library(value):
    assert indented_json(value) == json.dumps(value, indent=4, sort_keys=True)


def test_every_lab_config_db_is_what_json_dumps_writes(lab_spec):
    plan = build_plan(lab_spec)
    texts = {path: text for path, text in render_switches(plan).items() if path.endswith("config_db.json")}
    assert texts
    for text in texts.values():
        assert text == json.dumps(json.loads(text), indent=4, sort_keys=True) + "\n"
