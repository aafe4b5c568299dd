"""A DHCPv4 relay agent standing in for an OOB switch's relay in the namespace tests.

Why not Debian's dhcrelay: with -a it writes only the receiving interface's name as circuit-id,
while SONiC's relay (isc-dhcp-relay with SONiC's option 82 patches, started by the dhcp_relay
container as ``dhcrelay -m discard -a %h:%p %P``) writes "<hostname>:<port alias>", and Linux
interface names cannot hold that. This agent does what that relay does where the provisioning host
can tell the difference (RFC 2131 section 4.1 and RFC 3046):

- toward the server: a BOOTREQUEST from an access port gets giaddr = the relay's address, hops + 1
  (dropped above --max-hops), option 82 with circuit-id "<hostname>:<port>" (sub-option 1) and
  remote-id the receiving port's MAC (sub-option 2), and goes to each server's port 67;
- a request that already carries option 82 is discarded (policy "discard");
- toward the client: a BOOTREPLY must carry option 82 with a circuit-id this agent issued (else it is
  dropped, like dhcrelay's "bad circuit id"); option 82 is removed and the reply goes out of that
  port only, broadcast when the client set the broadcast flag, else to chaddr / yiaddr.

Usage: option82_relay.py --hostname H --address A --server S [--server S2] --port IFNAME=PORT ...
"""
import argparse
import select
import socket
import struct
import sys

ETH_P_IP = 0x0800
# All frames, not only IP: on a bridge port (the OOB switch's access ports are in its Vlan10 bridge)
# protocol-bound packet sockets see nothing, the bridge takes the frame first.
ETH_P_ALL = 0x0003
MAGIC = b"\x63\x82\x53\x63"
OPTIONS_AT = 240
OPT_RELAY, OPT_END, OPT_PAD = 82, 255, 0


def parse_options(packet):
    """[(code, value)] of a BOOTP packet's options, up to END."""
    out, i = [], OPTIONS_AT
    while i < len(packet):
        code = packet[i]
        if code == OPT_END:
            break
        if code == OPT_PAD:
            i += 1
            continue
        length = packet[i + 1]
        out.append((code, packet[i + 2:i + 2 + length]))
        i += 2 + length
    return out


def build(packet, options):
    body = b"".join(bytes([code, len(value)]) + value for code, value in options)
    return packet[:OPTIONS_AT] + body + bytes([OPT_END])


def sub_options(value):
    out, i = {}, 0
    while i + 1 < len(value):
        out[value[i]] = value[i + 2:i + 2 + value[i + 1]]
        i += 2 + value[i + 1]
    return out


def checksum(header):
    total = sum(struct.unpack("!%dH" % (len(header) // 2), header))
    total = (total >> 16) + (total & 0xFFFF)
    total += total >> 16
    return ~total & 0xFFFF


def frame(src_mac, dst_mac, src_ip, dst_ip, payload):
    udp = struct.pack("!HHHH", 67, 68, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return dst_mac + src_mac + struct.pack("!H", ETH_P_IP) + ip + udp


class Relay:
    def __init__(self, hostname, address, servers, ports, max_hops=4):
        self.hostname = hostname
        self.address = socket.inet_aton(address)
        self.servers = servers
        self.max_hops = max_hops
        self.ports = {}        # circuit-id -> (raw socket, MAC)
        self.by_socket = {}
        for ifname, port in ports:
            raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            raw.bind((ifname, ETH_P_ALL))
            mac = raw.getsockname()[4]
            cid = ("%s:%s" % (hostname, port)).encode()
            self.ports[cid] = (raw, mac)
            self.by_socket[raw] = (cid, mac)
        self.up = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.up.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.up.bind((address, 67))

    def log(self, text):
        print(text, flush=True)

    def from_client(self, raw):
        data, where = raw.recvfrom(2048)
        if where[2] == socket.PACKET_OUTGOING or data[12:14] != struct.pack("!H", ETH_P_IP):
            return
        ihl = (data[14] & 0x0F) * 4
        if data[23] != 17 or struct.unpack("!H", data[14 + ihl + 2:14 + ihl + 4])[0] != 67:
            return
        packet = data[14 + ihl + 8:]
        if len(packet) < OPTIONS_AT or packet[0] != 1 or packet[236:240] != MAGIC:
            return
        cid, mac = self.by_socket[raw]
        options = parse_options(packet)
        if any(code == OPT_RELAY for code, _value in options):
            self.log("discard: request on %s already carries option 82" % cid.decode())
            return
        hops = packet[3] + 1
        if hops > self.max_hops:
            self.log("drop: hop count %d on %s" % (hops, cid.decode()))
            return
        info = bytes([1, len(cid)]) + cid + bytes([2, len(mac)]) + mac
        out = build(packet[:3] + bytes([hops]) + packet[4:24] + self.address + packet[28:], options + [(OPT_RELAY, info)])
        for server in self.servers:
            self.up.sendto(out, (server, 67))

    def from_server(self):
        packet = self.up.recvfrom(4096)[0]
        if len(packet) < OPTIONS_AT or packet[0] != 2:
            return
        options = parse_options(packet)
        relay = [value for code, value in options if code == OPT_RELAY]
        cid = sub_options(relay[0]).get(1) if relay else None
        if cid not in self.ports:
            self.log("drop: reply with unknown circuit-id %r" % (cid,))
            return
        raw, mac = self.ports[cid]
        reply = build(packet, [(c, v) for c, v in options if c != OPT_RELAY])
        broadcast = packet[10] & 0x80
        dst_mac = b"\xff" * 6 if broadcast else packet[28:34]
        dst_ip = b"\xff" * 4 if broadcast else packet[16:20]
        raw.send(frame(mac, dst_mac, self.address, dst_ip, reply))

    def serve(self):
        sockets = list(self.by_socket) + [self.up]
        self.log("relaying for %s" % ", ".join(sorted(c.decode() for c in self.ports)))
        while True:
            for sock in select.select(sockets, [], [])[0]:
                if sock is self.up:
                    self.from_server()
                else:
                    self.from_client(sock)


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--hostname", required=True)
    parser.add_argument("--address", required=True)
    parser.add_argument("--server", action="append", required=True)
    parser.add_argument("--port", action="append", default=[], help="IFNAME=PORT")
    args = parser.parse_args(argv)
    Relay(args.hostname, args.address, args.server, [p.split("=", 1) for p in args.port]).serve()


if __name__ == "__main__":
    main(sys.argv[1:])
