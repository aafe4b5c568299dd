"""build.yml on inventories/eos-lab (Arista EOS leaves and spines, SONiC OOB): one EOS startup-config per EOS switch,
each accepted by pyavd's own eos_cli_config_gen schema, carrying the plan's /31s, its BGP neighbours, and PFC and
ECN on every GPU port (docs/eos.md)."""
import re

import pytest
import yaml

from conftest import built_by_playbook, load_example

pyavd = pytest.importorskip("pyavd", reason="EOS configs are rendered by pyavd (requirements.txt)")

from gpufabric.nos import eos  # noqa: E402
from gpufabric.plan import build_plan  # noqa: E402


@pytest.fixture(scope="module")
def eos_build(tmp_path_factory):
    return built_by_playbook(tmp_path_factory.mktemp("build"), "eos-lab", "eoslab")


def _blocks(text):
    """{first line: [its indented lines]} of an EOS configuration's top-level blocks."""
    out, head = {}, None
    for line in text.splitlines():
        if line.startswith((" ", "!")):
            if head is not None and line.strip() and not line.startswith("!"):
                out[head].append(line.strip())
            continue
        head = line
        out.setdefault(head, [])
    return out


def test_every_eos_switch_gets_one_startup_config_and_nothing_else(eos_build):
    plan = build_plan(load_example("eos-lab"))
    eos_hosts = sorted(d.name for d in plan.devices if d.nos == "eos")
    assert len(eos_hosts) == 18
    for host in eos_hosts:
        rendered = sorted(p.name for p in (eos_build / "devices" / host).iterdir())
        assert "startup-config" in rendered and "config_db.json" not in rendered and "frr.conf" not in rendered, host
    oob = [d.name for d in plan.devices if d.role == "oob_switch"]
    assert oob and all((eos_build / "devices" / h / "config_db.json").exists() for h in oob)


def test_every_config_passes_pyavds_schema_and_carries_the_plan(eos_build):
    plan = build_plan(load_example("eos-lab"))
    for dev in (d for d in plan.devices if d.nos == "eos"):
        cfg = yaml.safe_load((eos_build / "devices" / dev.name / "structured.yml").read_text())
        data = eos.eos_input(cfg, plan.spec)
        result = pyavd.validate_structured_config(data)
        assert list(result.validation_result.violations) == [], dev.name
        text = (eos_build / "devices" / dev.name / "startup-config").read_text()
        assert text == pyavd.get_device_config(result.validated_data)
        blocks = _blocks(text)
        bgp = blocks["router bgp %d" % cfg["bgp"]["asn"]]
        for n in cfg["bgp"]["neighbors"]:
            assert "neighbor %s remote-as %d" % (n["ip"], n["remote_as"]) in bgp, (dev.name, n["ip"])
            assert "neighbor %s peer group FABRIC" % n["ip"] in bgp
        assert "neighbor FABRIC bfd" in bgp
        routed = [end for end in dev.ends() if end.ipv4 is not None]
        assert routed, dev.name
        for end in routed:
            port = blocks["interface %s" % end.port]
            assert "ip address %s" % end.ipv4 in port, (dev.name, end.port)
            assert "no shutdown" in port and "mtu 9216" in port


def test_every_gpu_port_has_pfc_on_the_lossless_priority_and_ecn_on_its_queue(eos_build):
    plan = build_plan(load_example("eos-lab"))
    leaves = [d for d in plan.devices if d.nos == "eos" and d.role == "backend_leaf"]
    checked = 0
    for dev in leaves:
        cfg = yaml.safe_load((eos_build / "devices" / dev.name / "structured.yml").read_text())
        q = cfg["qos"]
        blocks = _blocks((eos_build / "devices" / dev.name / "startup-config").read_text())
        profile = blocks["qos profile GPUFABRIC-ROCE"]
        for tc in q["ecn_queues"]:
            queue = profile[profile.index("tx-queue %d" % q["traffic_class_to_queue"][tc]) + 1:]
            ecn = next(line for line in queue if line.startswith("random-detect ecn"))
            assert re.search(r"minimum-threshold %d kbytes maximum-threshold %d kbytes" % (
                q["ecn"]["min_threshold_bytes"] // 1024, q["ecn"]["max_threshold_bytes"] // 1024), ecn)
        dscp26 = [k for k in blocks if k.startswith("qos map dscp ") and " 26 " in k + " "]
        assert dscp26 == ["qos map dscp 26 to traffic-class %d" % q["dscp_to_traffic_class"][26]]
        for iface in (i for i in cfg["ethernet_interfaces"] if i["tier"] == "server"):
            port = blocks["interface %s" % iface["name"]]
            assert "priority-flow-control on" in port, (dev.name, iface["name"])
            for p in q["pfc_priorities"]:
                assert "priority-flow-control priority %d no-drop" % p in port
            assert "service-profile GPUFABRIC-ROCE" in port and "qos trust dscp" in port
            checked += 1
    assert checked == 32
    assert "priority-flow-control pause watchdog action drop" in blocks
