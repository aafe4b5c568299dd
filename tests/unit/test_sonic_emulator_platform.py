"""The SONiC emulator knows its switch's platform, SKU and ASIC as a switch does: from the platform's own files
(default_sku, platform_asic), not from the deploy's platform facts."""
from gpufabric.twin.emulators.sonic import plane


def test_the_platform_files_say_the_sku_and_the_asic(tmp_path, monkeypatch):
    where = tmp_path / "x86_64-dellemc_z9332f_d1508-r0"
    where.mkdir()
    (where / "default_sku").write_text("DellEMC-Z9332f-C32 t1\n")
    (where / "platform_asic").write_text("broadcom\n")
    monkeypatch.setenv(plane.PLATFORMS_ENV, str(tmp_path))
    assert plane.switch_facts("Z9332F-ON") == {"asic_type": "broadcom", "hwsku": "DellEMC-Z9332f-C32",
                                               "platform": "x86_64-dellemc_z9332f_d1508-r0"}
    # Without the platform's files, the emulator's own table; a model it does not know has no identity.
    assert plane.switch_facts("S3248T-ON")["hwsku"] == "DELL-S3248T"
    assert plane.switch_facts("generic-64x400g") == {"asic_type": "broadcom", "hwsku": "", "platform": ""}


def test_the_emulator_and_the_deploy_name_the_same_switches():
    from gpufabric.nos.sonic.platform import facts

    for model, (platform, sku, _asic) in plane.HARDWARE.items():
        assert (facts(model).get("platform"), facts(model).get("hwsku")) == (platform, sku), model
