"""The loss flow's pairs (one per rail, across scalable units) and the probe's flow loop."""
import os
import types

import pytest
from conftest import load_example

from gpufabric.plan import build_plan
from gpufabric.twin.desired import TwinError
from gpufabric.twin.traffic import cross_su_pairs
from gpufabric.validate import probe


@pytest.mark.parametrize("example, shift", [("lab", 1), ("tor-lab", 1), ("planes-3tier-small", 0)])
def test_one_pair_per_rail_across_scalable_units(example, shift):
    plan = build_plan(load_example(example))
    pairs = cross_su_pairs(plan)
    rails = len(plan.device(pairs[0].src).model.backend_nics)
    assert [p.src_nic.rail for p in pairs] == list(range(rails))
    for p in pairs:
        assert plan.device(p.src).su != plan.device(p.dst).su
        assert p.dst_nic.rail == (p.src_nic.rail + shift) % rails   # across rail planes there is no path
        assert p.src_nic.device == p.src and p.dst_nic.device == p.dst
    assert len({p.src for p in pairs}) > 1 and len({p.dst for p in pairs}) > 1


def test_same_rail_when_asked():
    pairs = cross_su_pairs(build_plan(load_example("lab")), cross_rail=False)
    assert all(p.src_nic.rail == p.dst_nic.rail for p in pairs)


def test_one_scalable_unit_is_refused_by_name():
    with pytest.raises(TwinError, match="needs servers in two scalable units; ro has 1"):
        cross_su_pairs(build_plan(load_example("railonly-small")))


@pytest.mark.skipif(os.geteuid() != 0, reason="raw ICMP sockets need root")
def test_flow_counts_every_echo_and_its_reply_on_loopback():
    started = []
    calls = iter(range(1000))
    # stopped() is polled every 10 ms or less; about 30 polls is 0.3 s, several sends at 50/s.
    result = probe.flow([("127.0.0.1", "127.0.0.1"), ("127.0.0.1", "127.0.0.2")], 50,
                        lambda: next(calls) > 30, grace=0.3, ready=lambda: started.append(1))
    assert started == [1]
    for sent, answered in result.values():
        assert sent >= 2 and answered == set(range(1, sent + 1))


def test_probe_paces_its_echoes_below_the_kernels_receive_backlog(monkeypatch):
    # Thousands of peers: the echoes leave in bursts of at most BURST, with a read between two bursts.
    bursts, current, options, sizes = [], [0], [], set()

    class FakeSocket:
        def __init__(self, *_args):
            pass

        def setsockopt(self, level, option, value):
            options.append((level, option, value))

        def bind(self, _addr):
            pass

        def sendto(self, data, _addr):
            current[0] += 1
            sizes.add(len(data) + 20)  # the ICMP message plus the IP header the kernel adds

        def close(self):
            pass

    # The probe's clock moves only in select, 1 ms a call: the rounds (a resend every timeout/tries) do not depend
    # on how busy the machine is.
    clock = [0.0]

    def fake_select(socks, _w, _x, _timeout):
        bursts.append(current[0])
        current[0] = 0
        clock[0] += 0.001
        return [], [], []

    monkeypatch.setattr(probe.socket, "socket", FakeSocket)
    monkeypatch.setattr(probe.select, "select", fake_select)
    monkeypatch.setattr(probe, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    pairs = [("10.0.0.1", "10.1.%d.%d" % (i // 250, i % 250)) for i in range(2039)] + [("10.0.0.1", "10.1.9.9/9000")]
    got = probe.probe(pairs, timeout=0.3, tries=1)
    assert set(got.values()) == {False}                 # nobody answers a fake socket
    assert max(bursts) == probe.BURST and sum(bursts) == len(pairs)
    # Don't Fragment on every echo, whatever path MTU the host learnt (IP_MTU_DISCOVER = IP_PMTUDISC_PROBE),
    # and the sized probe is a 9000-byte IP packet.
    assert options == [(probe.socket.IPPROTO_IP, 10, 3)]
    assert sizes == {20 + 8 + len(probe.PAYLOAD), 9000}
