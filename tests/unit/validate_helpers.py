"""A healthy cluster as the collectors would report it, built from the plan, for unit tests of the checks.

Fault tests change one thing in it and assert the exact result; the parsers themselves are tested on
real command output (tests/unit/fixtures/validate/).
"""
import copy
import json
import os

from gpufabric.build import structured
from gpufabric.ipam import cidr
from gpufabric.nos.sonic.collectors import config_db_qos
from gpufabric.nos.sonic.render import render_device
from gpufabric.validate.expect import Expectation
from gpufabric.validate.state import DeviceState


def _iface(mtu):
    return {"admin_up": True, "oper_up": True, "mtu": mtu, "speed": 400000, "flaps": 1, "rx_errors": 0,
            "tx_errors": 0, "rx_discards": 0, "tx_discards": 0}


def healthy_states(plan, networks=("backend",)):
    """{device: DeviceState} of a cluster that is exactly as planned."""
    expect = Expectation(plan, networks)
    configs = structured(plan)
    summaries = expect.leaf_summaries()
    states = {}
    for dev in expect.devices:
        st = DeviceState(dev.name, dev.role)
        ports = expect.ports[dev.name]
        st.lldp = {p.name: [{"system": p.peer, "port": p.peer_port}] for p in ports.values()}
        st.interfaces = {p.name: _iface(p.mtu) for p in ports.values()}
        if dev.role == "gpu_server":
            st.addrs = {p.name: {"mtu": p.mtu, "ipv4": [p.ipv4]} for p in ports.values()}
            st.rules, st.route_tables = [], {}
            for nic in expect.server_nics(dev.name):
                table = str(101 + nic.rail)
                st.rules.append({"priority": 1001 + nic.rail, "src": nic.ipv4.split("/")[0], "table": table})
                st.route_tables[table] = [{"dst": "default", "gateway": cidr(nic.link.ipv4, 31).split("/")[0],
                                           "dev": nic.name}]
            st.nic_qos = {nic.name: {"trust": "dscp", "pfc": [3], "ecn": [3]} for nic in expect.server_nics(dev.name)}
            st.reach = {"%s>%s" % (src, dst): wanted for src, dst, wanted, _label in expect.reach_probes(dev.name)}
            st.reach.update(("%s>%s/%d" % (src, dst, size), True) for src, dst, size, _l in expect.mtu_probes(dev.name))
        else:
            neighbors = expect.bgp_neighbors(dev.name)
            st.bgp = {"local_as": dev.asn, "peers": {ip: {"state": "Established", "remote_as": n["remote_as"],
                                                          "prefixes_received": 3, "hostname": n["peer"]}
                                                     for ip, n in neighbors.items()}}
            st.routes = {}
            if dev.role == "backend_leaf":
                hops = [{"ip": None, "interface": p.name} for p in expect.uplinks(dev.name)]
                st.routes = {prefix: {"protocol": "bgp", "nexthops": list(hops)} for other, prefix in summaries.items()
                             if other != dev.name and expect.reachable(dev.name, other)}
            config_db = json.loads(render_device(configs[dev.name])["config_db.json"])
            st.qos = config_db_qos(config_db)
        states[dev.name] = st
    return states


def collector_of(states):
    """A collector (runner.validate's ``collector``) serving copies of prepared states."""
    def collect(dev, sources, expect):
        return copy.deepcopy(states[dev.name])
    return collect


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "validate")


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()
