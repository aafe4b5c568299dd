"""A Cumulus frontend on the twin (issue 40, item 7): inventories/cumulus-lab itself, its SN4600C frontend leaf pair on
Cumulus Linux dual-homing every server with MLAG (peer link, one bond per server, VRR gateway), through the playbooks
an operator runs:
- twin.yml brings the cumulus-lab spec up (its own cluster name, `cfe`, so it runs beside other twins), every Cumulus
  switch booting empty; deploy.yml configures each through cumulus_deploy and its NVUE API, the frontend leaves' bonds,
  bridge, SVI and VRR taking effect in their namespaces (twin/emulators/cumulus/l2.py);
- validate.yml of the backend and the frontend finds 0 FAIL; a second deploy changes nothing;
- `nv show mlag` and `nv show interface <bond> bond` answer as NVUE: the peers alive, one primary (the lower priority)
  and one secondary, the backup IP active, every server bond dual-connected;
- every server's frontend address reaches the VRR gateway, both leaves' SVI addresses and every other server's
  frontend address;
- one MLAG peer down (every port of leaf a loses its link, as a switch that lost power): every server keeps that
  frontend reachability through the other leaf, within a bound; that leaf's `nv show mlag` says its peer is gone and
  it is primary, its bonds single-connected; the peer back, the bonds are dual again.

Needs root, FRR, lldpd and nftables (`make setup`); skipped with the reason otherwise. Run it under the twin lock.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
import yaml

from gpufabric import specfile, twin
from gpufabric.plan import build_plan
from test_cumulus_spare_growth_twin import copy_group_vars

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight() or (None if shutil.which("nft") else "nft is missing (apt-get install nftables)")
pytestmark = pytest.mark.skipif(REASON is not None, reason="Cumulus frontend on the twin: %s" % REASON)
CLUSTER = "cfe"
SPEC = os.path.join(ROOT, "inventories", "cumulus-lab", "cumulus-lab.topology.yml")
LEAF_A, LEAF_B = "cfe-fe-leaf01a", "cfe-fe-leaf01b"
PROBE = os.path.join(ROOT, "plugins", "module_utils", "gpufabric", "validate", "probe.py")
TIMES = {}


def write_inventory(inventory):
    """cumulus-lab's own spec under the cluster name CLUSTER, with cumulus-lab-twin's group_vars (the twin's
    connection, each switch's NVUE API) for that cluster."""
    raw = specfile.load_spec(SPEC)
    raw["cluster"]["name"] = CLUSTER
    with open(os.path.join(inventory, "cfe.topology.yml"), "w") as f:
        yaml.safe_dump(dict(raw, plugin="gpucluster.fabric.topology"), f, sort_keys=False)
    copy_group_vars(inventory, CLUSTER)
    return build_plan(specfile.load_spec(os.path.join(inventory, "cfe.topology.yml")))


def playbook(inventory, name, *args, timeout=600):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_FORCE_COLOR="0")
    started = time.monotonic()
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", inventory,
                           os.path.join(ROOT, "playbooks", name)] + list(args), cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)
    key = "%s %s" % (name, " ".join(a for a in args if not a.startswith("build_dir") and a != "-e"))
    TIMES[key if key not in TIMES else key + " (again)"] = round(time.monotonic() - started, 1)
    return proc


def recap(stdout):
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)", stdout, re.M)}


def wait_for(what, condition, timeout, poll=1.0):
    """Poll ``condition`` (returns a falsy value when met, else what is still wrong) for at most ``timeout`` seconds;
    returns the seconds it took, fails with the last answer."""
    started = time.monotonic()
    while True:
        left = condition()
        if not left:
            return round(time.monotonic() - started, 1)
        if time.monotonic() - started > timeout:
            pytest.fail("%s: not within %.0f s: %s" % (what, timeout, left))
        time.sleep(poll)


@pytest.fixture(scope="module")
def fabric(tmp_path_factory):
    inventory, build_dir = str(tmp_path_factory.mktemp("inventory")), str(tmp_path_factory.mktemp("build"))
    plan = write_inventory(inventory)
    bd = "build_dir=%s" % build_dir
    playbook(inventory, "twin.yml", "-e", "twin_state=absent", "-e", bd)
    up = playbook(inventory, "twin.yml", "-e", bd)
    names = (twin.read_state(CLUSTER) or {}).get("namespaces", [])
    try:
        assert up.returncode == 0, up.stdout[-3000:]
        deployed = playbook(inventory, "deploy.yml", "-e", bd, "-e", "deploy_leaf_serial=100%", timeout=900)
        assert deployed.returncode == 0, deployed.stdout[-4000:]
        yield inventory, build_dir, plan, deployed
    finally:
        down = playbook(inventory, "twin.yml", "-e", "twin_state=absent", "-e", bd)
        print("\nCumulus frontend on the twin, seconds: %s" % json.dumps(TIMES))
        assert down.returncode == 0, down.stdout[-2000:]
        assert twin.leftovers(CLUSTER, names) == []


def nv_show(host, *path):
    proc = subprocess.run(["ip", "netns", "exec", host, "/run/gpufabric-cumulus/bin/nv", "show"] + list(path)
                          + ["-o", "json"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


FRONTEND = {}


def frontend(plan):
    """{server: its frontend address} and the addresses every server must reach: the VRR gateway and both leaves'
    SVI addresses (from the rendered build's structured config of each server and leaf; rendered once)."""
    from gpufabric import build
    if FRONTEND:
        return FRONTEND["servers"], FRONTEND["common"]
    files = build.render_all(plan)
    servers, gateway = {}, None
    for dev in plan.devices:
        if dev.role == "gpu_server":
            bond = yaml.safe_load(files["servers/%s/structured.yml" % dev.name])["frontend"]
            servers[dev.name] = bond["address"].split("/")[0]
            gateway = bond["gateway"]
    svis, by_leaf = [], {}
    for leaf in (LEAF_A, LEAF_B):
        doc = yaml.safe_load(files["devices/%s/startup.yaml" % leaf])[1]["set"]
        by_leaf[leaf] = [a.split("/")[0] for a in doc["interface"]["vlan100"]["ip"]["address"]]
        svis += by_leaf[leaf]
    FRONTEND.update(servers=servers, common=[gateway] + svis, svi=by_leaf)
    return servers, [gateway] + svis


def unreachable(plan, down=None):
    """What of the frontend the servers do not reach: ["server: src>dst", ...] (``down``: a leaf whose own SVI address
    is not expected)."""
    servers, common = frontend(plan)
    if down:
        common = [a for a in common if a not in FRONTEND["svi"][down]]
    jobs = {}
    for server, src in servers.items():
        dsts = common + [addr for other, addr in servers.items() if other != server]
        jobs[server] = subprocess.Popen(["ip", "netns", "exec", server, sys.executable, PROBE, "1"]
                                        + ["%s=%s" % (src, dst) for dst in dsts], stdout=subprocess.PIPE, text=True)
    out = []
    for server, proc in sorted(jobs.items()):
        stdout, _err = proc.communicate(timeout=60)
        result = json.loads(stdout or "{}")
        out += ["%s: %s" % (server, pair) for pair, ok in sorted(result.items()) if not ok]
        if not result:
            out.append("%s: the probe reported nothing" % server)
    return out


def set_ports(host, up):
    """Every front-panel port of ``host`` with its link up or down (a switch losing power, or coming back)."""
    links = json.loads(subprocess.run(["ip", "-n", host, "-j", "link", "show"], capture_output=True, text=True,
                                      check=True).stdout)
    ports = [link["ifname"] for link in links if link["ifname"].startswith("swp")]
    subprocess.run(["ip", "-n", host, "-batch", "-"], input="".join("link set %s %s\n" % (p, "up" if up else "down")
                                                                    for p in ports), text=True, check=True)


def bond_status(host):
    config = nv_show(host, "mlag")     # (also proves nv answers)
    assert config
    out = {}
    for bond in ("bond101", "bond102", "bond103", "bond104"):
        out[bond] = nv_show(host, "interface", bond, "bond")["mlag"]["status"]
    return out


def test_cumulus_lab_deploys_validates_clean_and_a_second_deploy_changes_nothing(fabric):
    inventory, build_dir, plan, deployed = fabric
    cumulus = sorted(d.name for d in plan.devices if d.nos == "cumulus")
    assert {LEAF_A, LEAF_B} <= set(cumulus) and len(cumulus) == 22
    changed = recap(deployed.stdout)
    assert {h for h in cumulus if changed.get(h, 0) >= 1} == set(cumulus), changed
    # The switches booted empty: the sessions come up as each far end is configured; validate once converged.
    TIMES["converged after deploy"] = wait_for("BGP and rail reachability", lambda: [
        r.message for r in twin.verify(plan, networks=("backend", "frontend"),
                                       include=["bgp_sessions", "rail_reachability"])["results"]
        if r.status != "PASS"][:3], 120, poll=2)
    checked = playbook(inventory, "validate.yml", "-e", "build_dir=%s" % build_dir,
                       "-e", '{"networks": ["backend", "frontend"]}')
    assert checked.returncode == 0, checked.stdout[-4000:]
    with open(os.path.join(build_dir, "validation", CLUSTER, "report.json")) as f:
        report = json.load(f)
    bad = [r for r in report["results"] if r["status"] in ("FAIL", "ERROR")]
    assert bad == [], bad[:5]
    assert {r["device"] for r in report["results"] if r["status"] == "PASS"} >= {LEAF_A, LEAF_B}

    again = playbook(inventory, "deploy.yml", "-e", "build_dir=%s" % build_dir, "-e", "deploy_leaf_serial=100%",
                     timeout=900)
    assert again.returncode == 0, again.stdout[-4000:]
    assert {h: n for h, n in recap(again.stdout).items() if n and h in cumulus} == {}


def test_mlag_answers_as_nvue_and_every_server_reaches_the_frontend(fabric):
    _inventory, _build_dir, plan, _deployed = fabric
    a, b = nv_show(LEAF_A, "mlag"), nv_show(LEAF_B, "mlag")
    assert a["peer-alive"] is True and b["peer-alive"] is True
    # cumulus-lab's side a has the lower priority (4096): primary.
    assert (a["local-role"], a["peer-role"], b["local-role"]) == ("primary", "secondary", "secondary")
    assert a["backup-active"] is True and a["peer-interface"] == "peerlink"
    assert {k: v["conflict"] for k, v in a["consistency-checker"]["global"].items()} == {
        k: "" for k in a["consistency-checker"]["global"]}
    assert set(bond_status(LEAF_A).values()) == {"dual"}
    bond = nv_show(LEAF_A, "interface", "bond101", "bond")
    assert bond["mlag"]["id"] == 101 and bond["mlag"]["peer-interface"] == "bond101" and bond["mode"] == "lacp"
    TIMES["frontend reachable"] = wait_for("every server's frontend reachability", lambda: unreachable(plan), 30)


def test_one_mlag_peer_down_keeps_every_server_s_frontend_reachability(fabric):
    _inventory, _build_dir, plan, _deployed = fabric
    assert unreachable(plan) == []
    set_ports(LEAF_A, up=False)
    try:
        TIMES["frontend back after a peer went down"] = wait_for(
            "every server's frontend reachability with %s down" % LEAF_A, lambda: unreachable(plan, down=LEAF_A), 20)
        view = nv_show(LEAF_B, "mlag")
        assert (view["peer-alive"], view["backup-active"], view["local-role"]) == (False, False, "primary")
        assert set(bond_status(LEAF_B).values()) == {"single"}
    finally:
        set_ports(LEAF_A, up=True)
    TIMES["bonds dual again"] = wait_for("the bonds dual again", lambda: [
        s for s in bond_status(LEAF_B).values() if s != "dual"], 30)
    TIMES["frontend with both peers again"] = wait_for("every server's frontend reachability with both peers",
                                                       lambda: unreachable(plan), 30)
