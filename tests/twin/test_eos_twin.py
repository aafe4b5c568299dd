"""EOS switches on the twin (issue 43): the eos-lab spec under its own cluster name (`eosx`, beside other twins),
its EOS switches booted from EOS's factory configuration, each answering eAPI over HTTPS with a certificate of the
twin's CA. Through napalm's eos driver (a third-party client, not product code), with certificate verification:
- load_replace_candidate of the built startup-config and compare_config show the session's diff;
- commit_config(revert_in=...) not confirmed: the switch goes back to its previous configuration by itself;
- commit_config(revert_in=...) then confirm_commit: the configuration stays;
- every EOS switch committed with its built startup-config: BGP comes up between leaves and spines;
- an unknown command is refused as EOS refuses it (JSON-RPC error 1002, pyeapi's CommandError);
- a candidate with a line EOS refuses is refused whole; a merged port access list becomes the port's nftables filter.

Needs root, FRR and lldpd (`make setup`); skipped with the reason otherwise.
"""
import copy
import os
import ssl
import time

import pytest

from gpufabric import specfile, twin
from gpufabric.build import render_all
from gpufabric.plan import build_plan
from twin_eapi import eapi_access

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
CLUSTER = "eosx"
LEAF, SPINE = "eosx-r0-leaf01", "eosx-spine01"


def _spec():
    spec = copy.deepcopy(specfile.load_spec(os.path.join(ROOT, "inventories", "eos-lab", "eos-lab.topology.yml")))
    spec["cluster"]["name"] = CLUSTER
    return spec


@pytest.fixture(scope="module")
def fabric():
    plan = build_plan(_spec())
    files = render_all(plan)
    twin.down(CLUSTER)
    desired = twin.build_twin(plan, files)
    try:
        twin.up(desired, wait=False, frr_config="factory")
        yield plan, files
    finally:
        names = (twin.read_state(CLUSTER) or {}).get("namespaces", [])
        twin.down(CLUSTER)
        assert twin.leftovers(CLUSTER, names) == []


def _until(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("not within %.0f s: %s" % (timeout, what))
        time.sleep(0.5)


def _device(host):
    from napalm import get_network_driver
    port, password, ca_path = eapi_access(CLUSTER, host)
    context = ssl.create_default_context(cafile=ca_path)
    device = get_network_driver("eos")("127.0.0.1", "admin", password, timeout=30,
                                       optional_args={"transport": "https", "port": port, "context": context})
    device.open()
    return device


def _hostname(host):
    device = _device(host)
    try:
        return device.get_facts()["hostname"]
    finally:
        device.close()


def test_unverified_certificate_is_refused(fabric):
    from napalm import get_network_driver
    from napalm.base.exceptions import ConnectionException
    import pyeapi
    port = eapi_access(CLUSTER, LEAF)[0]
    device = get_network_driver("eos")("127.0.0.1", "admin", "x", timeout=10, optional_args={
        "transport": "https", "port": port, "context": ssl.create_default_context()})
    with pytest.raises((ConnectionException, pyeapi.eapilib.ConnectionError, ssl.SSLError, OSError)):
        device.open()


def test_replace_diff_revert_and_confirm(fabric):
    _plan, files = fabric
    startup = files["devices/%s/startup-config" % LEAF]
    device = _device(LEAF)
    try:
        facts = device.get_facts()
        assert facts["hostname"] == "localhost" and facts["vendor"] == "Arista"
        assert facts["model"] == "DCS-7060X6-64PE"
        device.load_replace_candidate(config=startup)
        diff = device.compare_config()
        assert "+hostname %s" % LEAF in diff and "+router bgp " in diff, diff
        device.commit_config(revert_in=4)
        assert device.has_pending_commit()
        assert _hostname(LEAF) == LEAF
    finally:
        device.config_session = None
        device.close()
    # not confirmed: the switch goes back by itself
    _until(lambda: _hostname(LEAF) == "localhost", 30, "the commit timer's rollback")
    # confirmed: the change outlives the timer
    device = _device(LEAF)
    try:
        device.load_replace_candidate(config=startup)
        device.commit_config(revert_in=5)
        expires = device.device.run_commands(["show configuration sessions detail"])[0]["commitTimerExpireTime"]
        device.confirm_commit()
        assert not device.has_pending_commit()
        _until(lambda: device.device.run_commands(["show version"])[0]["uptime"] > expires + 1, 30,
               "the switch's uptime past the confirmed timer")
        assert device.get_facts()["hostname"] == LEAF
    finally:
        device.close()


def test_bgp_up_after_committing_the_build(fabric):
    plan, files = fabric
    eos = [d.name for d in plan.devices if d.nos == "eos"]
    for host in eos:
        device = _device(host)
        try:
            device.load_replace_candidate(config=files["devices/%s/startup-config" % host])
            device.commit_config()
        finally:
            device.close()

    spines = [d.name for d in plan.devices if d.nos == "eos" and d.role == "backend_spine"]

    def established():
        for spine in spines:
            device = _device(spine)
            try:
                peers = device.get_bgp_neighbors()["global"]["peers"]
            finally:
                device.close()
            if not (peers and all(p["is_up"] for p in peers.values()) and len(peers) == len(eos) - len(spines)):
                return False
        return True

    _until(established, 150, "every BGP session of the spines Established (napalm's get_bgp_neighbors)")
    assert _hostname(LEAF) == LEAF
    device = _device(LEAF)
    try:
        lldp = device.get_lldp_neighbors_detail()
        assert {n[0]["remote_system_name"] for n in lldp.values()} >= set(spines), lldp
        assert {n[0]["remote_port"] for n in lldp.values() if n[0]["remote_system_name"] in spines} == {"Ethernet1/1"}

        def summary_peers():
            summary = device.cli(["show ip bgp summary"], encoding="json")["show ip bgp summary"]
            return summary["vrfs"]["default"]["peers"]

        peers = summary_peers()
        assert len(peers) == len(spines) and all(p["peerState"] == "Established" for p in peers.values()), peers
        # A session just Established has exchanged no UPDATE yet: the routes follow within an advertisement interval.
        _until(lambda: all(p["prefixReceived"] > 0 for p in summary_peers().values()), 30,
               "routes received from every spine (show ip bgp summary's prefixReceived)")
    finally:
        device.close()


def test_unknown_command_refused(fabric):
    import pyeapi
    device = _device(LEAF)
    try:
        with pytest.raises(pyeapi.eapilib.CommandError) as caught:
            device.device.run_commands(["show frobnicate"])
        assert caught.value.error_code == 1002
        assert "CLI command 2 of 2 'show frobnicate' failed: invalid command" in caught.value.error_text
        assert "Invalid input" in str(caught.value.command_error)
    finally:
        device.close()


def test_port_acl_merged_and_a_bad_line_refused(fabric):
    """A merged access list bound to a server port becomes the port's nftables filter; a candidate with a line EOS
    refuses is refused whole (napalm's ReplaceConfigException), the running-config unchanged."""
    import subprocess
    from napalm.base.exceptions import ReplaceConfigException
    device = _device(LEAF)
    try:
        before = device.get_config(retrieve="running")["running"]
        with pytest.raises(ReplaceConfigException, match="Invalid input"):
            device.load_replace_candidate(config="hostname x\ninterface Ethernet1/1\n   frobnicate\n")
        assert device.get_config(retrieve="running")["running"] == before
        device.load_merge_candidate(config="ip access-list TWIN_TEST\n   10 permit ip any 10.0.0.0/31\n"
                                           "interface Ethernet1/1\n   ip access-group TWIN_TEST in\n")
        assert "+   ip access-group TWIN_TEST in" in device.compare_config()
        device.commit_config()
    finally:
        device.close()
    table = subprocess.run(["ip", "netns", "exec", LEAF, "nft", "list", "table", "netdev", "gpufabric_acl"],
                           capture_output=True, text=True, check=False).stdout
    assert 'device "Ethernet1_1"' in table and "ip daddr 10.0.0.0/31 accept" in table, table
