"""A continuous ICMP flow inside a namespace, for measuring loss while the fabric changes.

Run as ``ip netns exec NS python3 flow.py RATE SRC=DST ...``: sends RATE echoes per second on every pair
(each from its source address, so the server's per-NIC policy routing picks the rail) until SIGINT or
SIGTERM, waits one second for the last replies, then prints JSON {"SRC>DST": [sent, received]}.
"""
import json
import os
import select
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe import _echo  # noqa: E402  pylint: disable=wrong-import-position  # run as a script, not imported

STOP = []


def run(pairs, rate):
    ident = os.getpid() & 0xFFFF
    socks = {}
    for src, _dst in pairs:
        if src not in socks:
            socks[src] = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
            socks[src].bind((src, 0))
    counts = {pair: [0, 0] for pair in pairs}
    by_seq = {}
    seq = 0
    next_send = time.monotonic()
    stop_at = None
    while stop_at is None or time.monotonic() < stop_at:
        now = time.monotonic()
        if STOP and stop_at is None:
            stop_at = now + 1.0
        if stop_at is None and now >= next_send:
            for pair in pairs:
                seq = (seq + 1) & 0xFFFF
                by_seq[seq] = pair
                try:
                    socks[pair[0]].sendto(_echo(ident, seq), (pair[1], 0))
                except OSError:      # no route right now: a lost packet
                    pass
                counts[pair][0] += 1
            next_send += 1.0 / rate
        ready, _w, _x = select.select(list(socks.values()), [], [], 0.01)
        for sock in ready:
            data, addr = sock.recvfrom(2048)
            ihl = (data[0] & 0x0F) * 4
            kind, _code, _sum, rid, rseq = struct.unpack("!BBHHH", data[ihl:ihl + 8])
            pair = by_seq.pop(rseq, None)
            if kind == 0 and rid == ident and pair and pair[1] == addr[0]:
                counts[pair][1] += 1
    return counts


def main(argv):
    signal.signal(signal.SIGINT, lambda *_a: STOP.append(1))
    signal.signal(signal.SIGTERM, lambda *_a: STOP.append(1))
    rate = float(argv[0])
    pairs = []
    for arg in argv[1:]:
        src, dsts = arg.split("=", 1)
        pairs += [(src, d) for d in dsts.split(",") if d]
    counts = run(pairs, rate)
    sys.stdout.write(json.dumps({"%s>%s" % pair: c for pair, c in counts.items()}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
