"""Cumulus switches on the twin (issue 27), one cumulus-lab twin for the module, through the playbooks an
operator runs against inventories/cumulus-lab-twin:
- twin.yml up boots the Cumulus switches from NVUE's factory configuration (hostname cumulus, eth0 by DHCP in the
  management VRF, the default account: twin/emulators/cumulus/factory.py); deploy.yml configures every one of them,
  with no override of the hand-change guard (no deploy record), through the real
  cumulus_deploy role and each switch's NVUE API over HTTPS (certificate checked), the applied revisions
  taking effect in the namespaces (ports, FRR, ACLs), and the SONiC frontend leaves and OOB switches through
  sonic_deploy; validate.yml of the backend and the frontend (SONiC leaves under Cumulus spines) then finds
  0 FAIL and 0 ERROR; a second deploy changes nothing; the factory's accounts stay (a kept path), its DHCP on eth0 goes;
  NVUE's filled read-back (defaults added) differs from what was set, and the deploy's read-back (filled=false) copes;
- `nv show interface` and `nv show vrf default router bgp neighbor` answer from what the namespace runs (the kernel's
  ports, lldpd's neighbours, FRR's sessions);
- a rolling deploy that changes both spines (another router-id: every session resets) under traffic drains each
  first through NVUE and loses no echo;
- a revision the switch cannot take (an IPv6 address, which the twin's Cumulus switch does not model) ends
  apply_fail, and the previous revision is still applied and running: the port MTU the same revision
  changes is untouched, the BGP sessions stay up, `nv` shows the previous values;
- a change the BGP gate refuses (a leaf that loses its aggregate) is rolled back to the previous configuration;
- the SONiC twin's fault corpus (swapped cables, a link down, an MTU mismatch, a BGP neighbour shut down, a wrong
  peer AS) is named on Cumulus switches with the same device, check and port;
- drain.yml and undrain.yml of a spine under traffic: one NVUE revision each, adding or taking away only the drain;
- tenants.yml on the Cumulus rail leaves (ACL mode): isolate, move a server, read the assignment back from the leaves;
- tenants.yml in VRF mode: a VRF per tenant takes over from the ACLs, a server moves, ACL mode takes over again;
- a build moving a leaf's eth0 off the management address the controller knows: the switch's NVUE API stops answering
  after the apply (nv config apply --confirm 8s), the deploy cannot confirm, and the switch's confirm timer puts the
  previous configuration back by itself (eth0's address, the API, `nv config history` showing the rollback); the
  play says the timer rolled it back;
- the hand-change guard reads the switch's history (the deploy's record is each apply's message): a change made with
  nv is refused by deploy.yml from a fresh build directory (an AWX job: no file of an earlier run), naming the changed
  object, until cumulus_deploy_overwrite_changes; the first deploy of the module, onto switches booted from the
  factory configuration (no record), needs no override;
- a switch put back to its factory configuration runs its ZTP script (nv config show, replace, apply, save) and comes
  up as planned, as a deploy would leave it;
- teardown leaves nothing (namespaces, FRR pathspaces, the NVUE API process, nv).

Needs root, FRR, lldpd and nftables (`make setup`); skipped with the reason otherwise. About 2.5 minutes on a
busy 2-core machine; run under the twin lock.
"""
import json
import os
import re
import subprocess
import sys
import time

import pytest

from gpufabric import specfile, twin
from gpufabric.plan import build_plan
from gpufabric.nos.cumulus.nvue_client import NvueClient
from gpufabric.twin.emulators.cumulus.factory import factory_config
from switch_builds import deploy_one_play, write_switch_build

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight() or (None if os.path.exists("/usr/sbin/nft") else "nftables is missing (apt-get install nftables)")
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)
CLUSTER = "cumuluslab"
LEAF = "cumuluslab-r0-leaf01"


def playbook(name, *args, timeout=600):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    started = time.monotonic()
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i",
                           os.path.join(ROOT, "inventories", "cumulus-lab-twin"), os.path.join(ROOT, "playbooks", name)]
                          + list(args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    print("%s %s: %.1f s" % (name, " ".join(args), time.monotonic() - started))
    return proc


def recap(stdout):
    """{host: changed count} from a play recap."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)", stdout, re.M)}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    build_dir = str(tmp_path_factory.mktemp("build"))
    playbook("twin.yml", "-e", "twin_state=absent", "-e", "build_dir=%s" % build_dir)
    up = playbook("twin.yml", "-e", "build_dir=%s" % build_dir)
    names = (twin.read_state(CLUSTER) or {}).get("namespaces", [])
    try:
        assert up.returncode == 0, up.stdout[-3000:]
        yield build_dir
    finally:
        down = playbook("twin.yml", "-e", "twin_state=absent", "-e", "build_dir=%s" % build_dir)
        assert down.returncode == 0, down.stdout[-2000:]
        assert twin.leftovers(CLUSTER, names) == []


@pytest.fixture(scope="module")
def deployed(lab):
    # The whole mixed fabric, each switch by the deploy role of its NOS: the Cumulus switches through NVUE, the SONiC
    # frontend leaves and OOB switches through CONFIG_DB; every leaf at once (a first bring-up drains nothing). What a
    # Cumulus leaf booted with is kept on the result (factory): NVUE's factory configuration.
    factory = client(LEAF).config("applied")
    proc = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "-e", "deploy_leaf_serial=100%", timeout=900)
    proc.factory = factory
    return proc


def cumulus_hosts():
    """The Cumulus switches of the twin's own spec (its frontend leaves stay on SONiC, unlike cumulus-lab's)."""
    spec = specfile.load_spec(os.path.join(ROOT, "inventories", "cumulus-lab-twin", "cumulus-lab.topology.yml"))
    return sorted(d.name for d in build_plan(spec).devices if d.nos == "cumulus")


def test_deploy_validates_clean_and_a_second_deploy_changes_nothing(lab, deployed):
    assert deployed.returncode == 0, deployed.stdout[-4000:]
    hosts = cumulus_hosts()
    assert len(hosts) == 20
    changed = recap(deployed.stdout)
    # (The build, run once, counts on the first host too.)
    assert {h for h in hosts if changed.get(h, 0) >= 1} == set(hosts), changed

    # The switches booted NVUE's factory configuration, and the first deploy took them to the build with no override:
    # the factory's accounts stay (system.aaa is kept), its DHCP client on eth0 and its hostname went.
    factory = deployed.factory
    assert factory["system"]["hostname"] == "cumulus" and factory["interface"]["eth0"]["ip"]["address"] == {"dhcp": {}}
    applied = client(LEAF).config("applied")
    assert applied["system"]["aaa"] == factory["system"]["aaa"] and applied["system"]["hostname"] == LEAF
    assert "dhcp" not in applied["interface"]["eth0"]["ip"]["address"]
    # Read with NVUE's defaults filled in, the applied configuration holds what the deploy never sent (swp2's duplex);
    # the deploy reads it back with filled=false, as set, and so passed.
    filled = client(LEAF).request("GET", "/interface/swp2", query={"rev": "applied", "filled": "true"})
    assert filled["link"]["duplex"] == "full" and "duplex" not in applied["interface"]["swp2"]["link"]
    assert filled["link"]["mtu"] == applied["interface"]["swp2"]["link"]["mtu"]

    # The rendered configuration runs in the namespace: addresses from NVUE, FRR's sessions from NVUE's BGP.
    addrs = json.loads(subprocess.run(["ip", "-n", LEAF, "-j", "addr", "show", "swp2"], capture_output=True,
                                      text=True, check=True).stdout)[0]
    assert addrs["mtu"] == 9216 and "10.16.0.1" in [a["local"] for a in addrs["addr_info"]]
    # A first bring-up: the switches booted without BGP, so nothing holds the deploy until the sessions are up (the BGP
    # gate requires no session when none was up before, bgp_gate.required_sessions); they come up as each far end
    # is configured. An operator validates once the fabric has converged: the test waits for that, bounded.
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "cumulus-lab-twin", "cumulus-lab.topology.yml")))
    deadline = time.monotonic() + 120
    while True:
        down = [r for r in twin.verify(plan, networks=("backend", "frontend"), include=["bgp_sessions", "rail_reachability"])[
            "results"] if r.status != "PASS"]
        if not down or time.monotonic() > deadline:
            break
        time.sleep(2)
    # The mixed fabric validates clean: the backend (Cumulus), and the frontend, SONiC leaves under Cumulus spines.
    checked = playbook("validate.yml", "-e", "build_dir=%s" % lab, "-e", '{"networks": ["backend", "frontend"]}')
    assert checked.returncode == 0, checked.stdout[-4000:]
    found = re.search(r"validate cumuluslab: (\d+) devices, FAIL 0, ERROR 0, SKIP \d+, PASS \d+", checked.stdout)
    assert found and int(found.group(1)) > 22, checked.stdout[-3000:]     # more than the backend's 22
    again = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "-e", "deploy_leaf_serial=100%")
    assert again.returncode == 0, again.stdout[-4000:]
    assert {h: n for h, n in recap(again.stdout).items() if n} == {}


def client(host):
    base = os.path.join(twin.state_dir(CLUSTER), host, "nvue")
    with open(os.path.join(base, "api.port")) as f:
        port = int(f.read())
    with open(os.path.join(twin.state_dir(CLUSTER), "nvue-api", "password")) as f:
        password = f.read().strip()
    return NvueClient(host, "127.0.0.1", "cumulus", password, port=port, ca_path=os.path.join(base, "nvue-api.pem"))


def bgp_states(host):
    out = subprocess.run(["vtysh", "-N", host, "-c", "show bgp vrf default ipv4 unicast summary json"],
                         capture_output=True, text=True, check=True).stdout
    # (a switch running no BGP answers without "peers")
    return {peer: p["state"] for peer, p in json.loads(out or "{}").get("peers", {}).items()}


def nv(host, *args):
    nv_path = "/run/gpufabric-cumulus/bin/nv"
    return subprocess.run(["ip", "netns", "exec", host, nv_path] + list(args), capture_output=True, text=True, check=False)


def test_a_revision_the_switch_cannot_take_leaves_the_previous_one_applied_and_running(deployed):
    assert deployed.returncode == 0
    nvue = client(LEAF)
    before = nvue.config("applied")
    assert set(bgp_states(LEAF).values()) == {"Established"}
    rev = nvue.create_revision()
    # Valid in NVIDIA's object model, but an IPv6 address, which the twin's switch cannot take: the MTU change in the
    # same revision must not happen either.
    nvue.patch(rev, {"interface": {"swp2": {"link": {"mtu": 9000}, "ip": {"address": {"2001:db8::1/127": {}}}}}})
    ended = nvue.apply(rev, timeout=60, poll=0.2)
    assert ended["state"] == "apply_fail", ended
    message = json.dumps(ended["transition"]["issue"])
    assert LEAF in message and "interface.swp2.ip.address.2001:db8::1/127: IPv6 is not modelled" in message
    assert nvue.config("applied") == before
    mtu = json.loads(subprocess.run(["ip", "-n", LEAF, "-j", "link", "show", "swp2"], capture_output=True, text=True,
                                    check=True).stdout)[0]["mtu"]
    assert mtu == 9216
    assert set(bgp_states(LEAF).values()) == {"Established"}
    shown = nv(LEAF, "show", "interface", "swp2", "link", "--applied", "-o", "json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["mtu"] == 9216
    # The operational views answer from what the namespace runs: the port's kernel MTU and carrier, lldpd's neighbour
    # on it, FRR's session over it.
    operational = nv(LEAF, "show", "interface", "-o", "json")
    assert operational.returncode == 0, operational.stderr
    port = json.loads(operational.stdout)["swp2"]
    assert port["link"]["mtu"] == 9216 and port["link"]["state"] == {"up": {}}
    assert [a for a in port["ip"]["address"] if a.startswith("10.16.0.1/")]
    assert list(port["lldp"]["neighbor"]) and all(n["chassis"]["system-name"] for n in port["lldp"]["neighbor"].values())
    peers = nv(LEAF, "show", "vrf", "default", "router", "bgp", "neighbor", "-o", "json")
    assert peers.returncode == 0, peers.stderr
    assert {p: v["state"] for p, v in json.loads(peers.stdout).items()} == \
        {p: "established" for p in bgp_states(LEAF)}


def test_a_change_the_bgp_gate_refuses_is_rolled_back_to_the_previous_revision(deployed, tmp_path):
    """The cumulus_deploy role's BGP gate, as SONiC's: a startup.yaml that loses the leaf's aggregate-route is valid
    for NVIDIA's model and applies, but the leaf no longer announces its summary and leaks the /31s under it; the
    gate names them and the previous configuration is put back (nv config apply --confirm-no), sessions up again."""
    assert deployed.returncode == 0
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "cumulus-lab-twin", "cumulus-lab.topology.yml")))
    _files, summary = write_switch_build(plan, LEAF, tmp_path)
    startup = tmp_path / "devices" / LEAF / "startup.yaml"
    text = startup.read_text()
    cut = "                aggregate-route:\n                  %s:\n                    summary-only: \"on\"\n" % summary
    assert cut in text
    startup.write_text(text.replace(cut, ""))
    nvue = client(LEAF)
    before = nvue.config("applied")
    proc = playbook(deploy_one_play(tmp_path, LEAF, "gpucluster.fabric.cumulus_deploy",
                                    {"cumulus_deploy_build_root": str(tmp_path), "cumulus_deploy_bgp_timeout": 6}))
    message = proc.stdout[proc.stdout.find("BGP gate did not pass"):][:1500]
    print(message)
    assert proc.returncode != 0, proc.stdout[-3000:]
    assert "summary %s is not announced" % summary in message and "leaks past summary %s" % summary in message
    # Applied with NVUE's confirm timer: the refused change is not confirmed but answered --confirm-no.
    assert re.search(r"rolled back to the previous configuration \(nv config apply \d+ --confirm-no\)", message), message
    assert nvue.config("applied") == before and nvue.config("startup") == before
    deadline = time.monotonic() + 60
    while set(bgp_states(LEAF).values()) != {"Established"} and time.monotonic() < deadline:
        time.sleep(1)
    assert set(bgp_states(LEAF).values()) == {"Established"}


# The fault corpus of tests/twin/test_validate_faults.py (the SONiC twin), on Cumulus switches: each fault put into a
# switch's kernel or FRR as it happens on a switch, validation (the Cumulus collectors: FRR's, lldpd's and iproute2's
# JSON, nv) names the same device, check and port, and the fault undone, the backend is clean again.
SPINE = "cumuluslab-spine01"


def sh(*argv):
    subprocess.run(argv, check=True, capture_output=True, text=True)


def vtysh(ns, *lines):
    sh("vtysh", "-N", ns, "-c", "configure terminal", *sum((["-c", line] for line in lines), []))


def failures(plan, include=None, until=bool, timeout=40):
    """{(device, check, object): message} of the backend's failures, once ``until`` holds of them (LLDP and BGP take a
    few seconds to notice a change) or after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        got = {(r.device, r.check, r.object): r.message
               for r in twin.verify(plan, networks=("backend",), include=include)["results"] if r.status in ("FAIL", "ERROR")}
        if until(got) or time.monotonic() > deadline:
            return got
        time.sleep(1)


@pytest.fixture
def clean(deployed):
    """The deployed Cumulus twin's plan; after the test, the backend is back to no failure (bounded wait)."""
    assert deployed.returncode == 0
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "cumulus-lab-twin", "cumulus-lab.topology.yml")))
    assert failures(plan, until=lambda f: not f, timeout=90) == {}
    yield plan
    assert failures(plan, until=lambda f: not f, timeout=90) == {}


def test_fault_two_swapped_cables_are_one_swap(clean):
    ports = ("swp1s0", "swp1s1")     # the leaf's two server ports (cumuluslab-gpu0001, -gpu0002 ens1np0)

    def swap():
        for old, new in ((ports[0], "swaptmp"), (ports[1], ports[0]), ("swaptmp", ports[1])):
            sh("ip", "-n", LEAF, "link", "set", old, "down")
            sh("ip", "-n", LEAF, "link", "set", old, "name", new)
        for port in ports:
            sh("ip", "-n", LEAF, "link", "set", port, "up")
    swap()
    try:
        key = (LEAF, "cabling", "%s<->%s" % ports)
        got = failures(clean, ["cabling"], until=lambda f: key in f and len(f) == 1)
        assert list(got) == [key]
        assert got[key].startswith("swap: %s %s and %s see each other's planned peers" % ((LEAF,) + ports)), got[key]
    finally:
        swap()


def test_fault_link_down_is_named_at_both_ends(clean):
    sh("ip", "-n", LEAF, "link", "set", "swp2", "down")
    try:
        got = failures(clean, ["link_state"], until=lambda f: (SPINE, "link_state", "swp1") in f)
        assert "down" in got[(LEAF, "link_state", "swp2")]
        assert "far end %s swp2" % LEAF in got[(SPINE, "link_state", "swp1")]
        assert {k[0] for k in got} == {LEAF, SPINE}
    finally:
        sh("ip", "-n", LEAF, "link", "set", "swp2", "up")


def test_fault_mtu_mismatch(clean):
    sh("ip", "-n", LEAF, "link", "set", "swp2", "mtu", "1500")
    try:
        got = failures(clean, ["mtu"])
        assert got == {(LEAF, "mtu", "swp2"): "%s swp2 MTU 1500, planned 9216 (far end %s swp1 has 9216)" % (LEAF, SPINE)}
    finally:
        sh("ip", "-n", LEAF, "link", "set", "swp2", "mtu", "9216")


def test_fault_bgp_neighbour_shut_down_and_wrong_asn(clean):
    vtysh(SPINE, "router bgp 64513", "neighbor 10.16.0.1 shutdown")
    try:
        got = failures(clean, ["bgp_sessions"], until=lambda f: (LEAF, "bgp_sessions", "10.16.0.0") in f)
        assert "is Idle (Admin), planned Established" in got[(SPINE, "bgp_sessions", "10.16.0.1")]
        assert "%s has neighbour 10.16.0.1 shut down" % SPINE in got[(LEAF, "bgp_sessions", "10.16.0.0")]
        assert set(got) == {(SPINE, "bgp_sessions", "10.16.0.1"), (LEAF, "bgp_sessions", "10.16.0.0")}
    finally:
        vtysh(SPINE, "router bgp 64513", "no neighbor 10.16.0.1 shutdown")
    failures(clean, ["bgp_sessions"], until=lambda f: not f, timeout=90)
    vtysh(SPINE, "router bgp 64513", "neighbor 10.16.0.1 remote-as 65000")
    try:
        got = failures(clean, ["bgp_sessions"], until=lambda f: (LEAF, "bgp_sessions", "10.16.0.0") in f)
        assert "peer AS 65000 configured, planned AS 64514" in got[(SPINE, "bgp_sessions", "10.16.0.1")]
        assert "%s expects AS 65000 for neighbour 10.16.0.1" % SPINE in got[(LEAF, "bgp_sessions", "10.16.0.0")]
    finally:
        vtysh(SPINE, "router bgp 64513", "neighbor 10.16.0.1 remote-as 64514")


# An address no switch of the lab uses (TEST-NET-1, RFC 5737): a router-id only has to be unique. Changing it resets
# every BGP session of the switch (FRR's bgpd sends its peers a NOTIFICATION, Cease / configuration change).
OTHER_ROUTER_ID = "192.0.2.1"


def dropped(host):
    """{peer: BGP connections dropped so far} of a switch: a session reset raises its count."""
    out = subprocess.run(["vtysh", "-N", host, "-c", "show bgp vrf default neighbors json"], capture_output=True,
                         text=True, check=True).stdout
    return {peer: info.get("connectionsDropped", 0) for peer, info in json.loads(out).items()}


def test_a_rolling_deploy_drains_each_spine_it_changes_and_loses_nothing(clean, lab, tmp_path):
    """Both spines run another router-id (deployed in place, cumulus_deploy_drain=false); deploy.yml of the Cumulus
    switches, under a flow of echoes between the scalable units on every rail, finds only the spines different
    and changes them one at a time, each drained first through NVUE (a revision adding the drain, verified on its
    neighbours; the build drained; the build), every session of the spine resetting while it carries nothing."""
    from gpufabric.twin.traffic import cross_su_pairs, loss_flow

    plan = clean
    spines = sorted(d.name for d in plan.devices if d.role == "backend_spine")
    before = {}
    for spine in spines:
        directory = tmp_path / spine
        directory.mkdir()
        write_switch_build(plan, spine, directory)
        startup = directory / "devices" / spine / "startup.yaml"
        text = startup.read_text()
        rid = re.search(r'router-id: "([\d.]+)"', text).group(1)
        startup.write_text(text.replace('router-id: "%s"' % rid, 'router-id: "%s"' % OTHER_ROUTER_ID))
        before[spine] = client(spine).config("applied")
        # The deploy's record is in the switch's history, so the deploy below finds the switch as this one left it.
        proc = playbook(deploy_one_play(directory, spine, "gpucluster.fabric.cumulus_deploy", {
            "cumulus_deploy_build_root": str(directory), "cumulus_deploy_drain": False}))
        assert proc.returncode == 0, proc.stdout[-3000:]
        assert "changed without a drain: cumulus_deploy_drain is false" in proc.stdout
        assert "192.0.2.1" in json.dumps(client(spine).config("applied"))
    assert failures(plan, include=["bgp_sessions", "rail_reachability"], until=lambda f: not f, timeout=90) == {}

    pairs = cross_su_pairs(plan)
    with loss_flow(pairs, rate=20) as flow:
        out = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "--limit", "nos_cumulus", timeout=900)
    print("\ndrained rolling deploy of %s: lost %d of %d\n%s" % (", ".join(spines), flow.lost, flow.sent, flow.report()))
    assert out.returncode == 0, out.stdout[-4000:]
    changed = recap(out.stdout)
    assert all(changed[s] >= 3 for s in spines), changed          # drain, change while drained, undrain
    assert sorted(re.findall(r"through the NVUE API, drain\] \**\nchanged: \[(\S+)\]", out.stdout)) == spines
    assert "Verify the switch and its neighbours against the plan, undrained" in out.stdout
    assert flow.sent > len(pairs) * 20 * 10
    assert flow.lost == 0, flow.report()
    for spine in spines:
        applied = client(spine).config("applied")
        assert applied == before[spine] and client(spine).config("startup") == applied
        assert "GPUFABRIC_DRAIN" not in json.dumps(applied)


def _leaves(tree, path=()):
    """Every leaf of a configuration tree, as (path tuple, value)."""
    if isinstance(tree, dict) and tree:
        for key, value in tree.items():
            yield from _leaves(value, path + (key,))
    else:
        yield path, tree


def test_drain_yml_and_undrain_yml_shift_a_spine_through_nvue_and_lose_nothing(clean, lab):
    """drain.yml on a Cumulus spine: one NVUE revision adding only the drain (the route-map, outbound on the peer group),
    saved, its neighbours verified routing around it; a second drain.yml changes nothing; undrain.yml takes the drain
    away and the spine runs the deploy's configuration again, applied and saved; a deploy then changes nothing (the
    deploy's record of the switch followed the drain). Echoes between the scalable units on every rail all the while."""
    from gpufabric.nos.cumulus.deploy import merge_patch
    from gpufabric.twin.traffic import cross_su_pairs, loss_flow

    plan = clean
    before = client(SPINE).config("applied")
    resets = dropped(SPINE)
    pairs = cross_su_pairs(plan)
    with loss_flow(pairs, rate=20) as flow:
        drained = playbook("drain.yml", "-e", "switch=%s" % SPINE, "-e", "build_dir=%s" % lab)
        assert drained.returncode == 0, drained.stdout[-4000:]
        applied = client(SPINE).config("applied")
        assert client(SPINE).config("startup") == applied
        added = list(_leaves(merge_patch(before, applied)))
        assert added and all("GPUFABRIC_DRAIN" in path or path[-2:] == ("outbound", "route-map") for path, _v in added), added
        running = subprocess.run(["vtysh", "-N", SPINE, "-c", "show running-config"], capture_output=True, text=True,
                                 check=True).stdout
        assert "neighbor FABRIC route-map GPUFABRIC_DRAIN out" in running
        again = playbook("drain.yml", "-e", "switch=%s" % SPINE, "-e", "build_dir=%s" % lab)
        assert again.returncode == 0 and recap(again.stdout)[SPINE] == 0, again.stdout[-3000:]
        undrained = playbook("undrain.yml", "-e", "switch=%s" % SPINE, "-e", "build_dir=%s" % lab)
        assert undrained.returncode == 0, undrained.stdout[-4000:]
    print("\ndrain.yml + undrain.yml of %s: lost %d of %d\n%s" % (SPINE, flow.lost, flow.sent, flow.report()))
    assert client(SPINE).config("applied") == before and client(SPINE).config("startup") == before
    # A drain changes what the spine sends, not its sessions: none of them was reset (FRR was reloaded with the
    # drain's route-map only, BFD untouched), and not one echo was lost.
    assert dropped(SPINE) == resets
    assert flow.lost == 0, flow.report()
    # Each revision's apply message is the deploy's record (nv config history): deploy.yml finds the spine as its
    # build, not changed by hand.
    out = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "--limit", "nos_cumulus")
    assert out.returncode == 0, out.stdout[-3000:]
    assert {h: n for h, n in recap(out.stdout).items() if n} == {}


def history(host):
    proc = nv(host, "config", "history", "-o", "json")
    assert proc.returncode == 0, proc.stderr
    return list(json.loads(proc.stdout).values())


def test_a_change_cutting_the_management_access_is_rolled_back_by_the_switchs_confirm_timer(clean, lab, tmp_path):
    """A build moving a leaf's eth0 off the management address the controller knows: the apply (nv config apply
    --confirm 8s) takes the address off eth0 and the switch's NVUE API stops answering; the deploy cannot confirm,
    and the switch's timer puts the previous revision back by itself: eth0 holds its address again, the API answers,
    `nv config history` shows the rollback, and the play says the confirm timer rolled the change back."""
    leaf = "cumuluslab-r0-leaf02"
    before = client(leaf).config("applied")
    write_switch_build(clean, leaf, tmp_path)
    startup = tmp_path / "devices" / leaf / "startup.yaml"
    text = startup.read_text()
    found = re.search(r"      eth0:\n(?:.*\n)*?\s+(\d+\.\d+\.\d+)\.(\d+)/(\d+): \{\}", text)
    address = "%s.%s/%s" % found.groups()
    moved = "%s.%d/%s" % (found.group(1), (int(found.group(2)) + 100) % 250 + 1, found.group(3))
    startup.write_text(text.replace(address + ": {}", moved + ": {}"))
    started = time.monotonic()
    proc = playbook(deploy_one_play(tmp_path, leaf, "gpucluster.fabric.cumulus_deploy", {
        "cumulus_deploy_build_root": str(tmp_path), "cumulus_deploy_drain": False,
        "cumulus_deploy_confirm_timeout": 8, "cumulus_deploy_poll": 0.5}))
    print("cut and rolled back by the switch in %.1f s" % (time.monotonic() - started))
    assert proc.returncode != 0
    assert re.search(r"%s: lost the switch after applying NVUE revision \d+ \(.*\); not confirmed, the switch's "
                     r"confirm timer \(8s\) rolled it back to the previous configuration" % leaf, proc.stdout), \
        proc.stdout[-3000:]
    assert client(leaf).config("applied") == before
    eth0 = json.loads(subprocess.run(["ip", "-n", leaf, "-j", "-4", "addr", "show", "dev", "eth0"], capture_output=True,
                                     text=True, check=True).stdout)[0]["addr_info"]
    assert ["%s/%s" % (a["local"], a["prefixlen"]) for a in eth0] == [address]
    last = history(leaf)[-2:]
    assert [(e["state"], e["method"]) for e in last] == [("confirm_fail", "CLI"), ("applied", "rollback")], last
    assert failures(clean, include=["bgp_sessions"], until=lambda f: not f, timeout=60) == {}


def test_the_hand_change_guard_reads_the_switchs_history_even_without_controller_state(clean, lab, tmp_path):
    """A change made on a leaf with nv (nv config patch, nv config apply) after the deploy: deploy.yml from a fresh
    build directory (as an AWX job, with no file of an earlier run) refuses the leaf untouched, naming what changed;
    with cumulus_deploy_overwrite_changes it puts the build back, and a deploy then changes nothing."""
    leaf = "cumuluslab-r0-leaf02"
    change = tmp_path / "by-hand.yaml"
    change.write_text("- set:\n    system:\n      message:\n        pre-login: changed by hand\n")
    assert nv(leaf, "config", "patch", str(change)).returncode == 0
    applied_by_hand = nv(leaf, "config", "apply", "-y")
    assert applied_by_hand.returncode == 0, applied_by_hand.stderr
    by_hand = client(leaf).config("applied")
    assert history(leaf)[-1]["message"] == ""
    fresh = tmp_path / "awx-build"
    out = playbook("deploy.yml", "-e", "build_dir=%s" % fresh, "--limit", leaf)
    assert out.returncode != 0
    assert "%s: the configuration running on the switch changed since the last deploy (system.message), by hand" \
        % leaf in out.stdout, out.stdout[-3000:]
    assert client(leaf).config("applied") == by_hand
    put_back = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "--limit", leaf, "-e",
                        "cumulus_deploy_overwrite_changes=true")
    assert put_back.returncode == 0, put_back.stdout[-3000:]
    assert "pre-login" not in json.dumps(client(leaf).config("applied"))
    again = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "--limit", leaf)
    assert again.returncode == 0 and {h: n for h, n in recap(again.stdout).items() if n} == {}, again.stdout[-3000:]


# Last in the module: it leaves the fabric isolated, which the fault corpus above does not expect.
def move_and_check(plan, lab, first, moved, isolated, serial):
    """tenants.yml from the tenant file ``first`` to ``moved`` (cumuluslab-gpu0003 changes tenant), ``serial`` of each
    phase's leaves at a time: exactly the planned leaves change, and only cumuluslab-gpu0003's pairs flip from
    ``isolated`` (the reach matrix before), to what ``moved`` says. Returns the leaves that changed."""
    from gpufabric.tenants.change import plan_change
    from test_tenants_twin import expected, reach_matrix, tenants_of

    planned = plan_change(plan, tenants_of(first, plan), tenants_of(moved, plan))
    switches = {h for phase in planned["phases"] for h in phase["hosts"]}
    out = playbook("tenants.yml", "-e", "tenants=%s" % moved, "-e", "build_dir=%s" % lab, "-e", "tenant_leaf_serial=" + serial)
    assert out.returncode == 0, out.stdout[-4000:]
    assert {h for h, n in recap(out.stdout).items() if n and h != "localhost"} == switches
    after = reach_matrix(plan)
    flipped = {k for k in after if after[k] != isolated[k]}
    assert flipped and all("cumuluslab-gpu0003" in (k[0], k[2]) for k in flipped)
    assert after == expected(plan, tenants_of(moved, plan))
    return switches


def test_tenants_isolate_move_and_read_back_on_cumulus_rail_leaves(deployed, lab, tmp_path):
    """tenants.yml on the Cumulus rail leaves, each changed through the NVUE API by cumulus_deploy: isolating the open
    fabric changes every rail leaf and pairs reach exactly within tenants; moving cumuluslab-gpu0003 changes only the
    planned leaves and flips only its pairs; a second run changes nothing; a job with an empty build directory reads
    the running assignment back from the leaves (`nv config show -o json`) and changes nothing."""
    from test_tenants_twin import expected, reach_matrix, tenants_of

    assert deployed.returncode == 0
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "cumulus-lab-twin", "cumulus-lab.topology.yml")))
    leaves = {d.name for d in plan.by_role("backend_leaf")}
    examples = os.path.join(ROOT, "examples", "tenants")
    first, moved = (os.path.join(examples, name) for name in ("cumulus-lab.tenants.yml", "cumulus-lab-moved.tenants.yml"))
    assert failures(plan, ["rail_reachability"], until=lambda f: not f, timeout=60) == {}

    out = playbook("tenants.yml", "-e", "tenants=%s" % first, "-e", "build_dir=%s" % lab)
    assert out.returncode == 0, out.stdout[-4000:]
    assert {h for h, n in recap(out.stdout).items() if n and h != "localhost"} == leaves
    isolated = reach_matrix(plan)
    assert isolated == expected(plan, tenants_of(first, plan))
    assert any(isolated.values()) and not all(isolated.values())
    shown = nv(LEAF, "config", "show", "-o", "json")
    assert shown.returncode == 0 and '"TENANT_ALPHA"' in shown.stdout

    # Half of the phase's leaves at a time (an operator's choice: an ACL change resets no session).
    switches = move_and_check(plan, lab, first, moved, isolated, "50%")
    assert switches <= leaves     # the leaves of cumuluslab-gpu0003 (on this small fabric, every rail leaf of its unit)

    again = playbook("tenants.yml", "-e", "tenants=%s" % moved, "-e", "build_dir=%s" % lab)
    assert again.returncode == 0 and not any(recap(again.stdout).values()), again.stdout[-3000:]
    fresh = playbook("tenants.yml", "-e", "tenants=%s" % moved, "-e", "build_dir=%s" % (tmp_path / "empty"))
    assert fresh.returncode == 0, fresh.stdout[-3000:]
    assert not any(recap(fresh.stdout).values())
    assert "no change: the running tenant assignment is the new one" in fresh.stdout
    # The deploy's record of each leaf followed the phases: deploy.yml finds the leaves as their (isolated) build.
    out = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "--limit", "nos_cumulus")
    assert out.returncode == 0, out.stdout[-3000:]
    assert {h: n for h, n in recap(out.stdout).items() if n} == {}


def test_tenant_vrfs_take_over_move_a_server_and_give_way_to_acls_on_cumulus_rail_leaves(deployed, lab):
    """tenants.yml in VRF mode on the Cumulus rail leaves, each changed through the NVUE API: a VRF per tenant takes
    over from whatever isolation runs (the ACLs the test before left, or an open fabric) and pairs reach exactly within
    tenants, a cross-tenant probe dying in the sender's VRF; moving cumuluslab-gpu0003 changes only its leaves and
    flips only its pairs; a second run changes nothing; going back to ACL mode takes every VRF away (their namespaces
    on the twin too) and isolates as the ACLs say. The twin runs a tenant VRF as a namespace of its own (docs/twin.md)."""
    from test_tenants_twin import expected, reach_matrix, tenants_of

    assert deployed.returncode == 0
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "cumulus-lab-twin", "cumulus-lab.topology.yml")))
    leaves = {d.name for d in plan.by_role("backend_leaf")}
    examples = os.path.join(ROOT, "examples", "tenants")
    first, moved, acls = (os.path.join(examples, name) for name in (
        "cumulus-lab-vrf.tenants.yml", "cumulus-lab-vrf-moved.tenants.yml", "cumulus-lab.tenants.yml"))

    out = playbook("tenants.yml", "-e", "tenants=%s" % first, "-e", "build_dir=%s" % lab, "-e", "tenant_leaf_serial=100%")
    assert out.returncode == 0, out.stdout[-4000:]
    assert {h for h, n in recap(out.stdout).items() if n and h != "localhost"} == leaves
    isolated = reach_matrix(plan)
    assert isolated == expected(plan, tenants_of(first, plan))
    # The leaf's gpu0001 port (alpha) and gpu0002 port (beta) are each in their tenant's VRF, in NVUE and on the twin.
    applied = client(LEAF).config("applied")
    assert [applied["interface"][p]["ip"].get("vrf") for p in ("swp1s0", "swp1s1")] == ["Vrf-alpha", "Vrf-beta"]
    routes = subprocess.run(["ip", "-n", LEAF + "-Vrf-beta", "-j", "route", "show"], capture_output=True, text=True,
                            check=True).stdout
    beta = {r["dst"] for r in json.loads(routes)}
    # beta's own /31 and the other beta server's (cumuluslab-gpu0004 on the same rail), never alpha's.
    assert "10.0.0.2/31" in beta and "10.0.0.6/31" in beta and "10.0.0.0/31" not in beta and "10.0.0.4/31" not in beta
    assert set(bgp_states(LEAF).values()) == {"Established"}

    switches = move_and_check(plan, lab, first, moved, isolated, "100%")
    assert switches and switches < leaves
    after = reach_matrix(plan)
    again = playbook("tenants.yml", "-e", "tenants=%s" % moved, "-e", "build_dir=%s" % lab)
    assert again.returncode == 0 and not any(recap(again.stdout).values()), again.stdout[-3000:]
    # twin.yml again (an operator's re-run) leaves the VRFs the switches made alone: their namespaces, the bridges.
    out = playbook("twin.yml", "-e", "build_dir=%s" % lab)
    assert out.returncode == 0, out.stdout[-3000:]
    assert reach_matrix(plan) == after

    out = playbook("tenants.yml", "-e", "tenants=%s" % acls, "-e", "build_dir=%s" % lab, "-e", "tenant_leaf_serial=100%")
    assert out.returncode == 0, out.stdout[-4000:]
    assert reach_matrix(plan) == expected(plan, tenants_of(acls, plan))
    left = subprocess.run(["ip", "-j", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert not [ns["name"] for ns in json.loads(left or "[]") if "-Vrf-" in ns["name"]]
    ports = json.loads(subprocess.run(["ip", "-n", LEAF, "-j", "addr", "show", "swp1s0"], capture_output=True, text=True,
                                      check=True).stdout)[0]
    assert "master" not in ports and "10.0.0.0" in [a["local"] for a in ports["addr_info"]]
    out = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "--limit", "nos_cumulus")
    assert out.returncode == 0 and {h: n for h, n in recap(out.stdout).items() if n} == {}, out.stdout[-3000:]


def test_a_factory_reset_switch_runs_its_ztp_script_and_comes_up_as_planned(deployed, lab, tmp_path):
    """ZTP on a Cumulus switch of the twin: cumuluslab-r0-leaf02, given NVUE's factory configuration through its API,
    fetches its provisioning script from the ZTP tree (playbooks/ztp.yml's, rendered by gpufabric.ztp), checks the marker
    Cumulus' ZTP requires and runs it: the script fetches the switch's startup.yaml and puts it in place of the factory
    configuration as a deploy would (`nv config show`, `nv config replace` of the file plus the kept accounts,
    `nv config apply -y`, `nv config save`: the twin's nv, through the switch's NVUE API). The switch then runs its plan
    (sessions up), its startup configuration is the applied one, and deploy.yml changes nothing on it.
    The provisioning host is served from the OOB network's namespace at the spec's address, reached over the switch's
    eth0 (on a switch: through its management VRF's default route, which the twin does not install)."""
    from gpufabric.tenants.state import assignment_for
    from gpufabric.ztp.settings import ZtpSettings
    from gpufabric.ztp.tree import write_ztp

    assert deployed.returncode == 0
    leaf = "cumuluslab-r0-leaf02"
    plan = build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "cumulus-lab-twin", "cumulus-lab.topology.yml")))
    assignment_for(plan, lab)    # the tenants the build directory's deploys run, as ztp.yml renders them
    host = plan.spec["oob"]["provisioning_host"]
    write_ztp(plan, ZtpSettings(host), str(tmp_path))
    www = tmp_path / CLUSTER / "ztp" / "www"
    assert (www / "ztp" / leaf / "cumulus-ztp.sh").exists()

    nvue = client(leaf)
    rev = nvue.create_revision()
    nvue.replace(rev, factory_config())
    assert nvue.apply(rev, timeout=60, poll=0.2)["state"] in ("applied", "applied_and_saved")
    nvue.save()
    assert nvue.config("applied") == factory_config() and not [s for s in bgp_states(leaf).values() if s == "Established"]

    oob = CLUSTER + "-oob"
    sh("ip", "-n", oob, "addr", "add", host + "/32", "dev", "oob")
    sh("ip", "-n", leaf, "route", "add", host + "/32", "dev", "eth0")
    server = subprocess.Popen(["ip", "netns", "exec", oob, sys.executable, "-m", "http.server", "--bind", host, "80",
                               "--directory", str(www)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = "http://%s/ztp/%s/cumulus-ztp.sh" % (host, leaf)
        deadline = time.monotonic() + 30
        while subprocess.run(["ip", "netns", "exec", leaf, "curl", "-fsS", "-o", "/dev/null", url],
                             capture_output=True, check=False).returncode and time.monotonic() < deadline:
            time.sleep(0.2)
        script = tmp_path / "fetched-ztp.sh"
        sh("ip", "netns", "exec", leaf, "curl", "-fsS", "-o", str(script), url)
        assert "# CUMULUS-AUTOPROVISIONING" in script.read_text()     # ZTP runs no script without it
        env = dict(os.environ, PATH="/run/gpufabric-cumulus/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        ran = subprocess.run(["ip", "netns", "exec", leaf, "bash", str(script)], env=env, capture_output=True,
                             text=True, timeout=300, check=False)
    finally:
        server.terminate()
        server.wait(timeout=10)
        subprocess.run(["ip", "-n", leaf, "route", "del", host + "/32"], check=False)
        subprocess.run(["ip", "-n", oob, "addr", "del", host + "/32", "dev", "oob"], check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    applied = nvue.config("applied")
    assert applied["system"]["hostname"] == leaf and nvue.config("startup") == applied
    deadline = time.monotonic() + 90
    while set(bgp_states(leaf).values()) != {"Established"} and time.monotonic() < deadline:
        time.sleep(1)
    assert set(bgp_states(leaf).values()) == {"Established"}
    out = playbook("deploy.yml", "-e", "build_dir=%s" % lab, "--limit", leaf)
    assert out.returncode == 0 and {h: n for h, n in recap(out.stdout).items() if n} == {}, out.stdout[-3000:]
