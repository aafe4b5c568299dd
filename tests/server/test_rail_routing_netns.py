"""Rail NIC networking on real network namespaces: the gpu_server role's network stage (rail_routing applying
the plan live) runs inside two server namespaces wired by veths to one namespace per rail leaf; then NIC i of one
server reaches the other server's NIC i from its own address, and not its NIC j (rails are isolated)."""
import json
import os
import shutil
import subprocess
import sys
import uuid

import pytest

from server_helpers import play_stats, run_playbook

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to create network namespaces"),
    pytest.mark.skipif(shutil.which("ip") is None, reason="needs iproute2 (ip)"),
]
SERVERS = ("lab-gpu0001", "lab-gpu0002")
ECHO_SERVER = """
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 7777)); s.listen(16)
while True:
    c, peer = s.accept(); c.sendall(peer[0].encode()); c.close()
"""
CLIENT = """
import json, socket, sys, time
for src, dst in json.loads(sys.argv[1]):
    for attempt in range(30):
        c = socket.socket(); c.settimeout(1); c.bind((src, 0))
        try:
            c.connect((dst, 7777)); print("ok" if c.recv(64).decode() == src else "wrong-source"); break
        except ConnectionRefusedError:
            time.sleep(0.1)  # the echo server is still starting
        except OSError as exc:
            print("fail:%s" % exc.__class__.__name__); break
        finally:
            c.close()
    else:
        print("fail:refused")
"""


def ip(*args, check=True):
    return subprocess.run(["ip"] + list(args), capture_output=True, text=True, check=check)


def ns_exec(ns, *cmd, check=True):
    return subprocess.run(["ip", "netns", "exec", ns] + list(cmd), capture_output=True, text=True, check=check)


@pytest.fixture
def fabric_netns(lab_hostvars):
    """Namespaces named <tag>-<host> / <tag>-<leaf>; the servers' NICs carry the plan's names; leaf ports have
    the lower /31 address and forward (a plain router stands in for the leaf here, not FRR)."""
    tag = "gs" + uuid.uuid4().hex[:4]
    names = {}
    try:
        for host in SERVERS:
            names[host] = "%s-%s" % (tag, host)
            ip("netns", "add", names[host])
            ns_exec(names[host], "ip", "link", "set", "lo", "up")
        for host in SERVERS:
            for nic in lab_hostvars[host]["fabric"]["interfaces"]:
                if nic["network"] != "backend":
                    continue
                leaf = nic["peer"]
                if leaf not in names:
                    names[leaf] = "%s-%s" % (tag, leaf)
                    ip("netns", "add", names[leaf])
                    ns_exec(names[leaf], "sysctl", "-qw", "net.ipv4.ip_forward=1")
                port = "%s-%s" % (nic["peer_interface"], host[-1])  # two servers on one leaf: distinct veth ends
                tmp = "v" + uuid.uuid4().hex[:10]
                ip("link", "add", tmp, "type", "veth", "peer", "name", port)
                ip("link", "set", tmp, "netns", names[host])
                ip("link", "set", port, "netns", names[leaf])
                ns_exec(names[host], "ip", "link", "set", tmp, "name", nic["name"])
                base = nic["ipv4"].split("/")[0].rsplit(".", 1)
                leaf_addr = "%s.%d/31" % (base[0], int(base[1]) - 1)
                ns_exec(names[leaf], "ip", "addr", "add", leaf_addr, "dev", port)
                ns_exec(names[leaf], "ip", "link", "set", port, "mtu", "9216", "up")
        yield names
    finally:
        for ns in names.values():
            ip("netns", "del", ns, check=False)


def run_network_stage(ns, host, tmp_path, build, check_mode=False):
    files = tmp_path / host
    files.mkdir(exist_ok=True)
    args = ["playbooks/gpu_server.yml", "--limit", host, "-c", "local", "--tags", "network",
            "-e", "ansible_python_interpreter=%s" % sys.executable,
            "-e", "gpu_server_manage_services=false", "-e", "gpu_server_network_renderer=networkd",
            "-e", "gpu_server_networkd_dir=%s" % files, "-e", "gpu_server_build_root=%s" % build, "-e", "gpu_server_sysctl_file=%s/sysctl.conf" % files]
    if check_mode:
        args.append("--check")
    return run_playbook(args, prefix=("ip", "netns", "exec", ns))


def test_rail_i_reaches_rail_i_peer_from_its_own_address(fabric_netns, lab_hostvars, lab_build, tmp_path):
    for host in SERVERS:
        stats = play_stats(run_network_stage(fabric_netns[host], host, tmp_path, lab_build))[host]
        assert stats["failures"] == 0 and stats["changed"] > 0
    # A second run changes nothing, live or on disk.
    for host in SERVERS:
        assert play_stats(run_network_stage(fabric_netns[host], host, tmp_path, lab_build))[host]["changed"] == 0

    a, b = SERVERS
    nics_a = [n for n in lab_hostvars[a]["fabric"]["interfaces"] if n["network"] == "backend"]
    nics_b = [n for n in lab_hostvars[b]["fabric"]["interfaces"] if n["network"] == "backend"]
    assert len(nics_a) == len(nics_b) == 8
    # ping is not always installed: TCP from a bound source address proves the same round trip.
    server = subprocess.Popen(["ip", "netns", "exec", fabric_netns[b], sys.executable, "-c", ECHO_SERVER])
    try:
        pairs = [(na["ipv4"].split("/")[0], nb["ipv4"].split("/")[0]) for na, nb in zip(nics_a, nics_b)]
        # Rail 0's address towards the peer's rail 1: the rail-0 leaf has no route there.
        pairs.append((nics_a[0]["ipv4"].split("/")[0], nics_b[1]["ipv4"].split("/")[0]))
        results = ns_exec(fabric_netns[a], sys.executable, "-c", CLIENT, json.dumps(pairs)).stdout.split()
    finally:
        server.kill()
        server.wait()
    assert results[:8] == ["ok"] * 8, list(zip(pairs, results))
    assert results[8] != "ok"
    for rail, (na, nb) in enumerate(zip(nics_a, nics_b)):
        src, dst = na["ipv4"].split("/")[0], nb["ipv4"].split("/")[0]
        route = ns_exec(fabric_netns[a], "ip", "-4", "route", "get", dst, "from", src).stdout
        assert "dev %s" % na["name"] in route and "table %d" % (101 + rail) in route, route
        mtu = ns_exec(fabric_netns[a], "cat", "/sys/class/net/%s/mtu" % na["name"]).stdout.strip()
        assert mtu == "9000"
    sysctl = ns_exec(fabric_netns[a], "sysctl", "-n", "net.ipv4.conf.ens1np0.arp_ignore",
                     "net.ipv4.conf.ens1np0.arp_announce", "net.ipv4.conf.all.rp_filter").stdout.split()
    assert sysctl == ["1", "2", "2"]
    assert (tmp_path / a / "20-gpufabric-ens1np0.network").read_text().count("Table=101") == 3


def test_check_mode_lists_commands_and_changes_nothing(fabric_netns, lab_build, tmp_path):
    host = SERVERS[0]
    res = run_network_stage(fabric_netns[host], host, tmp_path, lab_build, check_mode=True)
    assert play_stats(res)[host]["changed"] > 0
    assert "10.0.0.1/31" not in ns_exec(fabric_netns[host], "ip", "-4", "addr", "show", "dev", "ens1np0").stdout
    assert "ip addr add 10.0.0.1/31 dev ens1np0" in res.stdout
