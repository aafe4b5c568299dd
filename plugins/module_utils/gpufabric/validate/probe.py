"""ICMP reachability from inside a namespace, many probes in one process; and a steady flow for loss tests.

Run as ``ip netns exec NS python3 probe.py TIMEOUT SRC=DST,DST/SIZE ...``; prints JSON {"SRC>DST": true|false,
"SRC>DST/SIZE": ...}. A destination with /SIZE gets an echo of SIZE bytes (the IP packet), and every echo
leaves with Don't Fragment set, so a SIZE above a link's MTU on the path is not answered.
``ip netns exec NS python3 probe.py flow RATE SRC=DST ...`` sends RATE echoes per second on each pair, prints
{"ready": true} once every pair has answered, and at SIGTERM or SIGINT
{"SRC>DST": {"sent": n, "lost": [sequence numbers without a reply]}} (twin/traffic.py drives it).
Each echo leaves from its source address, so the server's per-NIC policy routing chooses the NIC.
"""
import json
import os
import select
import socket
import struct
import sys
import time


def _checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


PAYLOAD = b"gpufabric-probe"
IP_ICMP_HEADERS = 28
# Linux's IP_MTU_DISCOVER value (linux/in.h) that sets Don't Fragment and sends up to the interface's MTU whatever
# path MTU the host has learnt (ping -M probe): a "fragmentation needed" an earlier probe drew must not make the
# next run fail before it sends, once the path is fixed.
IP_PMTUDISC_PROBE = getattr(socket, "IP_PMTUDISC_PROBE", 3)


def _echo(ident, seq, size=None):
    header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    payload = PAYLOAD if size is None else PAYLOAD.ljust(max(len(PAYLOAD), size - IP_ICMP_HEADERS), b".")
    return struct.pack("!BBHHH", 8, 0, _checksum(header + payload), ident, seq) + payload


# Echoes sent at once, then a pause to read replies. A server of a large fabric probes thousands of peers;
# sent in one burst they overflow the kernel's per-CPU receive backlog (net.core.netdev_max_backlog, 1,000
# packets by default), which every veth of a twin shares, and most are dropped before any reply (measured:
# 505,293 of 522,240 pairs "unreachable" on a 256-server twin). A real fabric's NICs pace too.
BURST = 100
BURST_GAP = 0.005


def _socket(src):
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    try:
        sock.setsockopt(socket.IPPROTO_IP, getattr(socket, "IP_MTU_DISCOVER", 10), IP_PMTUDISC_PROBE)
        sock.bind((src, 0))
    except OSError:
        sock.close()
        raise
    return sock


def probe(pairs, timeout=2.0, tries=3):
    """{(src, dst): reachable} for ICMP echo from each source address to each destination; a destination
    "ADDRESS/SIZE" is probed with an echo of SIZE bytes."""
    ident = os.getpid() & 0xFFFF
    sockets, pending = {}, {}
    seq = 0
    unbound = set()
    for src, dst in pairs:
        if src not in sockets and src not in unbound:
            try:
                sockets[src] = _socket(src)
            except OSError:     # the source address is gone: its probes fail, the others still run
                unbound.add(src)
        seq += 1
        pending[(src, dst)] = seq
    answered = set()
    deadline = time.monotonic() + timeout
    resend_every = timeout / tries
    next_send = 0.0
    by_seq = {s: key for key, s in pending.items()}
    unsent = []
    while time.monotonic() < deadline and len(answered) < len(pending):
        now = time.monotonic()
        if not unsent and now >= next_send:
            unsent = [key for key in pending if key not in answered and key[0] in sockets]
            next_send = now + resend_every
        for src, dst in unsent[:BURST]:
            address, _slash, size = dst.partition("/")
            try:
                sockets[src].sendto(_echo(ident, pending[(src, dst)], int(size) if size else None), (address, 0))
            except OSError:     # no route, or larger than the NIC's MTU (EMSGSIZE): not answered
                pass
        del unsent[:BURST]
        ready, _w, _x = select.select(list(sockets.values()), [], [], BURST_GAP if unsent else 0.05)
        for sock in ready:
            data, addr = sock.recvfrom(65535)
            ihl = (data[0] & 0x0F) * 4
            kind, _code, _sum, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            key = by_seq.get(rseq)
            if kind == 0 and rid == ident and key and key[1].partition("/")[0] == addr[0]:
                answered.add(key)
    for sock in sockets.values():
        sock.close()
    return {key: key in answered for key in pending}


def flow(pairs, rate, stopped, grace=1.0, ready=None):
    """Echo requests from each (source, destination) of ``pairs`` at ``rate`` per second each until
    ``stopped()`` is true, then ``grace`` seconds more for the last replies. ``ready`` is called once,
    when every pair has had a reply. Returns {(src, dst): (sent, set of answered sequence numbers)}."""
    ident = os.getpid() & 0xFFFF
    sockets = {}
    for src, _dst in pairs:
        if src not in sockets:
            sockets[src] = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
            sockets[src].bind((src, 0))
    by_socket = {sock: src for src, sock in sockets.items()}
    sent = dict.fromkeys(pairs, 0)
    answered = {pair: set() for pair in pairs}
    next_send, until = time.monotonic(), None
    while until is None or time.monotonic() < until:
        now = time.monotonic()
        if until is None and stopped():
            until = now + grace
        if until is None and now >= next_send:
            for src, dst in pairs:
                sent[(src, dst)] += 1
                try:
                    sockets[src].sendto(_echo(ident, sent[(src, dst)] & 0xFFFF), (dst, 0))
                except OSError:
                    pass                   # no route right now: counted as lost
            next_send += 1.0 / rate
        try:
            ready_socks, _w, _x = select.select(list(sockets.values()), [], [], 0.01)
        except InterruptedError:
            continue
        for sock in ready_socks:
            data, addr = sock.recvfrom(2048)
            ihl = (data[0] & 0x0F) * 4
            kind, _code, _sum, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            key = (by_socket[sock], addr[0])
            if kind == 0 and rid == ident and key in answered:
                answered[key].add(rseq)
        if ready and all(answered.values()):
            ready()
            ready = None
    for sock in sockets.values():
        sock.close()
    return {pair: (sent[pair], answered[pair]) for pair in pairs}


def _run_flow(argv):
    """``flow RATE SRC=DST ...``: prints {"ready": true} once every pair answered, and on SIGTERM or SIGINT
    {"SRC>DST": {"sent": n, "lost": [sequence numbers without a reply]}}."""
    import signal
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_a: stop.append(1))
    pairs = [tuple(arg.split("=", 1)) for arg in argv[1:]]

    def ready():
        sys.stdout.write(json.dumps({"ready": True}) + "\n")
        sys.stdout.flush()

    result = flow(pairs, float(argv[0]), lambda: bool(stop), ready=ready)
    out = {}
    for (src, dst), (sent, answered) in result.items():
        out["%s>%s" % (src, dst)] = {"sent": sent,
                                     "lost": [n for n in range(1, sent + 1) if (n & 0xFFFF) not in answered]}
    sys.stdout.write(json.dumps(out) + "\n")


def main(argv):
    if argv[0] == "flow":
        _run_flow(argv[1:])
        return
    timeout = float(argv[0])
    pairs = []
    for arg in argv[1:]:
        src, dsts = arg.split("=", 1)
        pairs += [(src, d) for d in dsts.split(",") if d]
    result = probe(pairs, timeout)
    sys.stdout.write(json.dumps({"%s>%s" % key: ok for key, ok in result.items()}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
