"""build.yml on inventories/mixed-nos-lab: the three NOSes in one cluster (EOS rail leaves, Cumulus spines, SONiC
frontend and OOB). Each switch gets its own NOS's files and no other's, and every leaf-spine link is the same two halves
on both sides whichever NOS renders each: the EOS leaf's port address and BGP neighbour (pyavd's startup-config) meet
the Cumulus spine's (NVUE's startup.yaml), with each other's ASN."""
import ipaddress
import os
import re

import pytest
import yaml

from conftest import built_by_playbook, load_example
from gpufabric.plan import build_plan

pytest.importorskip("pyavd", reason="EOS configs are rendered by pyavd (requirements.txt)")

FILES = {"eos": {"startup-config", "structured.yml"}, "cumulus": {"startup.yaml", "structured.yml"},
         "sonic": {"config_db.json", "frr.conf", "structured.yml"}}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    plan = build_plan(load_example("mixed-nos-lab"))
    return plan, built_by_playbook(tmp_path_factory.mktemp("build"), "mixed-nos-lab", "mixednos")


def test_every_switch_gets_the_files_of_its_own_nos(built):
    plan, root = built
    switches = [d for d in plan.devices if d.nos]
    assert {d.nos for d in switches} == {"eos", "cumulus", "sonic"}
    for device in switches:
        assert set(os.listdir(root / "devices" / device.name)) == FILES[device.nos], device.name


def _eos_interface(text, port):
    block = re.search(r"^interface %s\n((?:   .*\n)+)" % re.escape(port), text, re.M)
    return block.group(1) if block else ""


def test_each_leaf_spine_link_is_the_same_session_on_its_eos_and_cumulus_ends(built):
    plan, root = built
    links = [link for link in plan.links if link.tier == "leaf-spine" and link.network == "backend"]
    assert links
    for link in links:
        spine, leaf = link.a, link.b
        assert (spine.nos, leaf.nos) == ("cumulus", "eos"), (spine.name, leaf.name)
        spine_ip, leaf_ip = (str(ipaddress.ip_address(link.ipv4 + i)) for i in (0, 1))
        with open(root / "devices" / leaf.name / "startup-config") as f:
            eos = f.read()
        with open(root / "devices" / spine.name / "startup.yaml") as f:
            nvue = yaml.safe_load(f)[1]["set"]
        assert "ip address %s/31" % leaf_ip in _eos_interface(eos, link.b_port), (leaf.name, link.b_port)
        assert re.search(r"^   neighbor %s remote-as %d$" % (re.escape(spine_ip), spine.asn), eos, re.M), (leaf.name, spine_ip)
        assert "%s/31" % spine_ip in nvue["interface"][link.a_port]["ip"]["address"], (spine.name, link.a_port)
        neighbor = nvue["vrf"]["default"]["router"]["bgp"]["neighbor"][leaf_ip]
        assert neighbor["remote-as"] == leaf.asn, (spine.name, leaf_ip)
