"""The optional spec sections reach what they configure."""
import json

import pytest

from conftest import load_example
from gpufabric.build import render_all
from gpufabric.errors import SpecError
from gpufabric.plan import build_plan


def test_switch_config_services_reach_config_db():
    spec = load_example("lab")
    spec["switch_config"] = {"ntp_servers": ["192.0.2.10"], "syslog_servers": ["192.0.2.11"]}
    files = render_all(build_plan(spec))
    db = json.loads(files["devices/lab-r0-leaf01/config_db.json"])
    assert "192.0.2.10" in db["NTP_SERVER"] and "192.0.2.11" in db["SYSLOG_SERVER"]


def test_switch_config_rejects_a_hostname_where_an_address_belongs():
    spec = load_example("lab")
    spec["switch_config"] = {"ntp_servers": ["ntp.example"]}
    with pytest.raises(SpecError) as info:
        build_plan(spec)
    assert info.value.path == "switch_config.ntp_servers[0]"


def test_docs_prices_in_the_spec_give_a_cost():
    spec = load_example("lab")
    spec["docs"] = {"currency": "EUR", "prices": {"Z9332F-ON": 1000}}
    bom = render_all(build_plan(spec))["docs/bom.md"]
    assert "| Z9332F-ON |" in bom and "| 16 | 1,000 EUR | 16,000 EUR |" in bom
