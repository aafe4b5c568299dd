"""frr-reload on every switch of the lab twin changes only what differs: reloading the rendered frr.conf
unchanged, or with a cosmetic change, resets no BGP session.

Needs root, FRR and lldpd (`make setup`); skipped with the reason otherwise. About 40 s.
"""
import json
import os

import pytest

from gpufabric import build, plan as planning, specfile, twin
from gpufabric.twin import daemons
from gpufabric.twin.run import run, run_many

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REASON = twin.preflight()
pytestmark = pytest.mark.skipif(REASON is not None, reason="virtual twin: %s" % REASON)


@pytest.fixture(scope="module")
def lab():
    plan = planning.build_plan(specfile.load_spec(os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")))
    wanted = twin.build_twin(plan, build.render_all(plan))
    twin.down(wanted.cluster, wanted.namespaces)
    # Switches seeded from the build (not factory state): this file needs a running fabric, and a first
    # deploy of every switch would cost minutes; tests/twin/test_deploy_twin.py deploys from factory state.
    twin.up(wanted, timeout=60)
    yield plan, wanted
    twin.down(wanted.cluster, wanted.namespaces)


def bgp_switches(lab):
    wanted = lab[1]
    return sorted(ns.name for ns in wanted.namespaces.values() if "bgpd" in ns.frr_daemons)


def sessions(names):
    """{(switch, peer): (connections established, connections dropped)}: a reset raises both."""
    procs = run_many([(["vtysh", "-N", ns, "-c", "show bgp neighbors json"], None) for ns in names])
    out = {}
    for ns, proc in zip(names, procs):
        for peer, info in json.loads(proc.stdout).items():
            out[(ns, peer)] = (info.get("connectionsEstablished"), info.get("connectionsDropped"), info.get("bgpState"))
    return out


def pending_lines(ns):
    """The lines frr-reload would delete and add for the frr.conf in the switch's pathspace."""
    out = run(daemons.as_switch(ns, daemons.reload_argv(ns, "--test"))).stdout
    return [line for line in out.splitlines()
            if line.strip() and not line.startswith(("Lines To", "====="))]


def rewrite(ns, old, new):
    conf = os.path.join(daemons.frr_dir(ns), "frr.conf")
    with open(conf) as f:
        text = f.read()
    assert old in text
    with open(conf, "w") as f:
        f.write(text.replace(old, new))


def test_rendered_frr_conf_is_what_frr_runs(lab):
    names = bgp_switches(lab)
    assert names
    assert {ns: pending_lines(ns) for ns in names} == {ns: [] for ns in names}


def test_reloading_unchanged_and_cosmetic_configs_resets_no_session(lab):
    names = bgp_switches(lab)
    before = sessions(names)
    planned = sum(1 for link in lab[0].links if link.ipv4 is not None and link.tier != "server")
    assert len(before) == 2 * planned and all(s[2] == "Established" for s in before.values())
    daemons.frr_reload(names)
    for ns in names:
        rewrite(ns, "log syslog informational\n", "log syslog warnings\n")
        assert pending_lines(ns) == ["no log syslog informational", "log syslog warnings"]
    daemons.frr_reload(names)
    running = run(["vtysh", "-N", names[0], "-c", "show running-config"]).stdout
    assert "log syslog warnings" in running
    assert sessions(names) == before
