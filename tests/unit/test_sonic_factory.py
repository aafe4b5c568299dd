"""The CONFIG_DB a twin SONiC switch boots from in its factory state (twin/emulators/sonic/factory.py: sonic-buildimage
config-setup's `sonic-cfggen -H -k <hwsku> --preset <default_sku's preset>` over init_cfg.json), and the first deploy
from it: the deploy's GCU pre-check and the twin's GCU agree that it goes through once the buffer rows a factory
switch lacks are written with config load, as the role does."""
import json
import os

import pytest

from conftest import SONIC_REFERENCE, needs_sonic_yang

pytest.importorskip("jsonpatch", reason="the SONiC twin needs jsonpatch (requirements.txt)")
needs_sonic_yang()

from gpufabric import build, specfile  # noqa: E402
from gpufabric.nos.sonic import gcu_precheck  # noqa: E402
from gpufabric.nos.sonic.deploy import target_config  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402
from gpufabric.twin.emulators.sonic import factory, gcu, plane  # noqa: E402
from gpufabric.twin.emulators.sonic.configdb import MemoryConfigDb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
Z9332F = os.path.join(SONIC_REFERENCE, "platforms", "x86_64-dellemc_z9332f_d1508-r0")


def test_first_boot_of_a_z9332f_is_its_default_skus_t1_preset():
    config = factory.first_boot(Z9332F, "lab-r0-leaf01")
    meta = config["DEVICE_METADATA"]["localhost"]
    assert meta["hostname"] == "sonic" and meta["hwsku"] == "DellEMC-Z9332f-O32" and meta["type"] == "LeafRouter"
    assert meta["platform"] == "x86_64-dellemc_z9332f_d1508-r0" and meta["bgp_asn"] == "65100"
    assert meta["mac"].startswith("02:") and meta["mac"] == factory.first_boot(Z9332F, "lab-r0-leaf01")[
        "DEVICE_METADATA"]["localhost"]["mac"]
    assert config["PORT"]["Ethernet0"] == {"lanes": "33,34,35,36,37,38,39,40", "alias": "etp1", "index": "1",
                                           "speed": "400000", "admin_status": "up", "mtu": "9100"}
    assert len(config["PORT"]) == 34 and config["BREAKOUT_CFG"]["Ethernet0"] == {"brkout_mode": "1x400G"}
    assert "Ethernet0|10.0.0.0/31" in config["INTERFACE"] and "Loopback0|10.1.0.1/32" in config["LOOPBACK_INTERFACE"]
    assert config["BGP_NEIGHBOR"]["10.0.0.1"]["asn"] == "65200" and config["BGP_NEIGHBOR"]["10.0.0.1"]["name"] == "ARISTA01T2"
    assert config["FLEX_COUNTER_TABLE"]["ACL"]["FLEX_COUNTER_STATUS"] == "disable"    # the preset over init_cfg.json
    assert config["FLEX_COUNTER_TABLE"]["PORT"] == {"FLEX_COUNTER_STATUS": "enable"}
    assert "BUFFER_POOL" not in config


def test_a_platform_without_its_files_is_one_line():
    with pytest.raises(factory.FactoryError, match="no default_sku in /nonexistent"):
        factory.first_boot("/nonexistent", "x")
    with pytest.raises(ValueError, match="model Stand-in has no platform files"):
        plane.factory_text("gpufabric-test-nohost", "Stand-in")


def test_factory_to_plan_goes_through_gcu_with_the_buffer_rows_loaded_first(emulator_models, tmp_path):
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    files = build.render_all(plan)
    seen = set()
    for dev in plan.devices:
        path = "devices/%s/config_db.json" % dev.name
        if path not in files or dev.model.name in seen:
            continue
        seen.add(dev.model.name)
        facts = plane.switch_facts(dev.model.name)
        running = factory.first_boot(os.path.join(SONIC_REFERENCE, "platforms", facts["platform"]), dev.name)
        target = target_config(running, json.loads(files[path]))
        version = {"build_version": plane.BUILD_VERSION, "asic_type": facts["asic_type"]}
        planned = gcu_precheck.load_plan(running, target, version, ["PFC_WD", "BUFFER_POOL", "BUFFER_PROFILE"])
        assert planned["refused"] == [], (dev.name, planned["refused"])
        first = dict(running, **{t: dict(running.get(t, {}), **rows) for t, rows in planned["load"].items()})
        db = MemoryConfigDb(first)
        gcu.Updater(db, gcu.Switch("202511", facts["asic_type"], plane.BUILD_VERSION), lambda: emulator_models,
                    str(tmp_path)).replace(target)
        assert db.get_config() == target, dev.name
    assert seen == {"Z9332F-ON", "Z9664F-ON", "S5296F-ON", "S5232F-ON", "S3248T-ON"}


def test_intfmgrd_remakes_the_namespace_only_when_addresses_lags_vlans_or_loopback_change(tmp_path):
    from gpufabric.twin.emulators.sonic import orchagent
    config = factory.first_boot(Z9332F, "lab-r0-leaf01")
    orchagent.remember_layout(str(tmp_path), config)
    mtu = json.loads(json.dumps(config))
    mtu["PORT"]["Ethernet0"]["mtu"] = "9216"                  # portsorch's part (program_ports), not intfmgrd's
    assert orchagent.layout_digest(mtu) == orchagent._remembered(str(tmp_path))
    moved = json.loads(json.dumps(config))
    del moved["INTERFACE"]["Ethernet0|10.0.0.0/31"]
    moved["INTERFACE"]["Ethernet0|10.9.0.0/31"] = {}
    assert orchagent.layout_digest(moved) != orchagent._remembered(str(tmp_path))
