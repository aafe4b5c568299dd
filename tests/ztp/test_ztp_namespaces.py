"""Zero-touch provisioning of the lab with real daemons: Kea (Debian's kea-dhcp4) in one network
namespace, an option 82 relay per OOB switch (option82_relay.py, SONiC's circuit-id format) and
dhclient at the planned OOB ports. Needs root, kea-dhcp4 and dhclient (`make setup`); run it under
the twin lock. About 40 s (the refused clients wait for their DHCP timeout).
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from gpufabric import plan as planning, specfile
from gpufabric.build import render_all
from gpufabric.ipam import fmt
from gpufabric.twin.run import run_many
from gpufabric.ztp import report
from gpufabric.ztp.idrac import autoconfig_option
from gpufabric.ztp.positions import access_ports, management_positions
from gpufabric.ztp.settings import ZtpSettings
from gpufabric.nos.sonic.ztp import ztp_json_problems
from gpufabric.ztp.tree import write_ztp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns_lab  # noqa: E402  pylint: disable=wrong-import-position

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MISSING = [tool for tool in ("kea-dhcp4", "dhclient", "ip") if shutil.which(tool) is None]
REASON = "needs root" if os.geteuid() != 0 else ("missing %s (make setup)" % ", ".join(MISSING) if MISSING else None)
pytestmark = pytest.mark.skipif(REASON is not None, reason="ZTP namespaces: %s" % (REASON,))
ONIE_IMAGE = "images/sonic-broadcom.bin"


def _plan(inventory="lab", name="lab.topology.yml"):
    return planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", inventory, name)))


def _start(tmp, plan, plugged):
    """A running lab: ``plugged`` [(relay, port, vendor class)]; returns (lab, clients, settings)."""
    settings = ZtpSettings(plan.spec["oob"]["provisioning_host"], onie_image=ONIE_IMAGE,
                           kea_interfaces=["core/" + plan.spec["oob"]["provisioning_host"]],
                           kea_lease_file=os.path.join(tmp, "leases.csv"), kea_log_file=os.path.join(tmp, "kea.log"))
    write_ztp(plan, settings, os.path.join(tmp, "build"))
    lab = netns_lab.NetnsLab(tmp, settings.server, fmt(plan.mgmt_gateway), plan.mgmt_prefix)
    try:
        for relay in sorted({r for r, _p, _v in plugged}):
            lab.add_relay(relay, fmt(plan.device(relay).mgmt), {})
        clients = [lab.plug(relay, port, vendor) for relay, port, vendor in plugged]
        lab.start_kea(os.path.join(tmp, "build", plan.summary["cluster"], "ztp", "kea-dhcp4.conf"))
        lab.start_relays()
        run_many([(lab.dhclient_argv(c), None) for c in clients], check=False)
    except BaseException:
        lab.stop()
        raise
    return lab, clients, settings


def _vendor(pos):
    return "iDRAC" if pos.kind == "bmc" else None


@pytest.fixture(scope="module")
def lab_run(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("ztp"))
    plan = _plan()
    positions = management_positions(plan)
    used = {(p.relay, p.port) for p in positions}
    relay = positions[0].relay
    spare = [port for r, port, _cid in access_ports(plan) if r == relay and (r, port) not in used][0]
    plugged = [(p.relay, p.port, _vendor(p)) for p in positions] + [(relay, spare, None)]
    lab, clients, settings = _start(tmp, plan, plugged)
    try:
        leases = [netns_lab.read_lease(c["lease"]) for c in clients]
        fetched = _fetch_over_http(lab, clients, leases, positions, settings, tmp)
    finally:
        lab.stop()
    with open(os.path.join(tmp, "kea.log")) as f:
        log = f.readlines()
    yield plan, positions, leases, (relay, spare), log, settings, fetched


def _fetch_over_http(lab, clients, leases, positions, settings, tmp):
    """From the first switch's namespace, with the address it leased: its ztp.json and config_db over HTTP."""
    www = os.path.join(tmp, "build", "lab", "ztp", "www")
    server = subprocess.Popen(["ip", "netns", "exec", netns_lab.KEA_NS, sys.executable, "-m", "http.server", "80",
                               "--bind", settings.server, "--directory", www],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    lab.procs.append(server)
    index = next(i for i, p in enumerate(positions) if p.kind == "switch")
    client, lease = clients[index], leases[index]
    netns_lab.in_ns(client["ns"], "ip", "addr", "add", "%s/%s" % (lease["address"], lab.prefix_len), "dev", "eth0")
    netns_lab.in_ns(client["ns"], "ip", "route", "add", "default", "via", lease["routers"])
    out = {}
    for key, url in (("ztp.json", lease["bootfile-name"]),):
        code = "import sys,urllib.request,time\nfor i in range(20):\n  try:\n" \
               "    sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode()); break\n" \
               "  except OSError: time.sleep(0.25)\n"
        out[key] = netns_lab.in_ns(client["ns"], sys.executable, "-c", code, url).stdout
    doc = json.loads(out["ztp.json"])
    out["config_db.json"] = netns_lab.in_ns(
        client["ns"], sys.executable, "-c", "import sys,urllib.request;sys.stdout.write(urllib.request.urlopen("
        "sys.argv[1], timeout=5).read().decode())", doc["ztp"]["02-configdb-json"]["url"]["source"]).stdout
    out["device"] = positions[index].device
    return out


def test_every_switch_and_idrac_gets_its_planned_address_by_position(lab_run):
    _plan, positions, leases, _spare, _log, _settings, _fetched = lab_run
    kinds = {p.kind for p in positions}
    assert kinds == {"switch", "bmc", "host"}
    wrong = [(p.relay, p.port, p.device, p.address, lease.get("address"))
             for p, lease in zip(positions, leases) if lease.get("address") != p.address]
    assert wrong == []
    assert len({lease["address"] for lease in leases[:len(positions)]}) == len(positions)


def test_each_device_gets_its_boot_options(lab_run):
    _plan, positions, leases, _spare, _log, settings, _fetched = lab_run
    for pos, lease in zip(positions, leases):
        assert lease["host-name"] == pos.device
        if pos.kind == "switch":
            assert lease["bootfile-name"] == "http://%s/ztp/%s/ztp.json" % (settings.server, pos.device)
            assert lease["onie-default-url"] == "http://%s/%s" % (settings.server, ONIE_IMAGE)
            assert "idrac-autoconfig" not in lease
        elif pos.kind == "bmc":
            assert lease["idrac-autoconfig"] == autoconfig_option(pos.device, settings)
            assert "bootfile-name" not in lease
        else:
            assert "bootfile-name" not in lease and "idrac-autoconfig" not in lease


def test_switch_fetches_its_ztp_json_and_config_db_over_http(lab_run):
    plan, _positions, _leases, _spare, _log, _settings, fetched = lab_run
    assert ztp_json_problems(json.loads(fetched["ztp.json"])) == []
    assert fetched["config_db.json"] == render_all(plan)["devices/%s/config_db.json" % fetched["device"]]


def test_a_device_on_an_unplanned_port_gets_nothing_and_is_reported_there(lab_run):
    plan, positions, leases, (relay, spare), log, _settings, _fetched = lab_run
    assert leases[len(positions)] == {}
    found = report.findings(log, positions, access_ports(plan))
    assert [(f["relay"], f["port"], f["planned"]) for f in found] == [(relay, spare, None)]


def test_two_swapped_management_cables_are_reported_by_position(tmp_path):
    plan = _plan()
    positions = management_positions(plan)
    bmc = next(p for p in positions if p.kind == "bmc")
    host = next(p for p in positions if p.kind == "host" and p.relay == bmc.relay and p.device != bmc.device)
    # The iDRAC's cable went into the host port's position and the other way round.
    lab, clients, _settings = _start(str(tmp_path), plan, [(bmc.relay, host.port, "iDRAC"),
                                                           (bmc.relay, bmc.port, None)])
    lab.stop()
    assert [netns_lab.read_lease(c["lease"]) for c in clients] == [{}, {}]
    with open(os.path.join(str(tmp_path), "kea.log")) as f:
        found = report.findings(f, positions, access_ports(plan))
    assert [(f["port"], f["swapped_with"]) for f in found] == sorted([(bmc.port, host.port), (host.port, bmc.port)])
    assert all(f["relay"] == bmc.relay for f in found)
    assert "planned %s %s (bmc)" % (bmc.device, bmc.device_port) in next(
        f["message"] for f in found if f["port"] == bmc.port)


def test_a_cumulus_switch_gets_its_provisioning_script_by_position(tmp_path):
    """cumulus-lab's Cumulus switches (its OOB switches, on SONiC, relay with option 82): each position's DHCP answer
    from Kea carries its planned address and option 239 (cumulus-provision-url) naming the script of the switch planned
    there, which Cumulus' ZTP fetches and runs (tests/twin/test_cumulus_twin.py runs one); no SONiC boot file."""
    plan = _plan("cumulus-lab", "cumulus-lab.topology.yml")
    switches = [p for p in management_positions(plan) if p.kind == "switch" and plan.device(p.device).nos == "cumulus"]
    assert switches
    lab, clients, settings = _start(str(tmp_path), plan, [(p.relay, p.port, None) for p in switches])
    lab.stop()
    leases = [netns_lab.read_lease(c["lease"]) for c in clients]
    wrong = [(p.device, p.address, lease.get("address"), lease.get("cumulus-provision-url"))
             for p, lease in zip(switches, leases)
             if lease.get("address") != p.address
             or lease.get("cumulus-provision-url") != settings.url("ztp/%s/cumulus-ztp.sh" % p.device)
             or "bootfile-name" in lease]
    assert wrong == []
