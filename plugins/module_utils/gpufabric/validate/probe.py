"""ICMP reachability from inside a namespace, many probes in one process; and a steady flow for loss tests.

Run as ``ip netns exec NS python3 probe.py TIMEOUT SRC=DST,DST ...``; prints JSON {"SRC>DST": true|false}.
``ip netns exec NS python3 probe.py flow RATE SRC DST`` sends RATE echoes per second until SIGTERM or
SIGINT, then prints JSON {"sent", "received", "lost": [sequence numbers without a reply]}.
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


def _echo(ident, seq):
    header = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    payload = b"gpufabric-probe"
    return struct.pack("!BBHHH", 8, 0, _checksum(header + payload), ident, seq) + payload


def probe(pairs, timeout=2.0, tries=3):
    """{(src, dst): reachable} for ICMP echo from each source address to each destination."""
    ident = os.getpid() & 0xFFFF
    sockets, pending = {}, {}
    seq = 0
    unbound = set()
    for src, dst in pairs:
        if src not in sockets and src not in unbound:
            sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
            try:
                sock.bind((src, 0))
                sockets[src] = sock
            except OSError:     # the source address is gone: its probes fail, the others still run
                sock.close()
                unbound.add(src)
        seq += 1
        pending[(src, dst)] = seq
    answered = set()
    deadline = time.monotonic() + timeout
    resend_every = timeout / tries
    next_send = 0.0
    by_seq = {s: key for key, s in pending.items()}
    while time.monotonic() < deadline and len(answered) < len(pending):
        now = time.monotonic()
        if now >= next_send:
            for (src, dst), s in pending.items():
                if (src, dst) not in answered and src in sockets:
                    try:
                        sockets[src].sendto(_echo(ident, s), (dst, 0))
                    except OSError:
                        pass
            next_send = now + resend_every
        ready, _w, _x = select.select(list(sockets.values()), [], [], 0.05)
        for sock in ready:
            data, addr = sock.recvfrom(2048)
            ihl = (data[0] & 0x0F) * 4
            kind, _code, _sum, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            key = by_seq.get(rseq)
            if kind == 0 and rid == ident and key and key[1] == addr[0]:
                answered.add(key)
    for sock in sockets.values():
        sock.close()
    return {key: key in answered for key in pending}


def flow(src, dst, rate, grace=1.0):
    """Echo requests from ``src`` to ``dst`` at ``rate`` per second until SIGTERM/SIGINT; then waits
    ``grace`` seconds for the last replies. Returns (sent, set of answered sequence numbers)."""
    import signal
    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_a: stop.append(1))
    ident = os.getpid() & 0xFFFF
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    sock.bind((src, 0))
    sent, answered, next_send, until = 0, set(), time.monotonic(), None
    while until is None or time.monotonic() < until:
        now = time.monotonic()
        if stop and until is None:
            until = now + grace
        if until is None and now >= next_send:
            sent += 1
            try:
                sock.sendto(_echo(ident, sent & 0xFFFF), (dst, 0))
            except OSError:
                pass                   # no route right now: counted as lost
            next_send += 1.0 / rate
        try:
            ready, _w, _x = select.select([sock], [], [], 0.01)
        except InterruptedError:
            continue
        if ready:
            data, addr = sock.recvfrom(2048)
            ihl = (data[0] & 0x0F) * 4
            kind, _code, _sum, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            if kind == 0 and rid == ident and addr[0] == dst:
                answered.add(rseq)
    sock.close()
    return sent, answered


def main(argv):
    if argv[0] == "flow":
        sent, answered = flow(argv[2], argv[3], float(argv[1]))
        lost = [n for n in range(1, sent + 1) if (n & 0xFFFF) not in answered]
        sys.stdout.write(json.dumps({"sent": sent, "received": sent - len(lost), "lost": lost}) + "\n")
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
