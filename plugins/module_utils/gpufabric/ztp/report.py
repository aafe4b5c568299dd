"""Who asked for an address at which position and got nothing, from Kea's log.

Kea logs every refused request as ALLOC_ENGINE_V4_ALLOC_FAIL_CLASSES with the request's client
classes; kea.py gives every access port an ``at:<circuit-id>`` class, so that line names the
position, and VENDOR_CLASS_iDRAC says whether an iDRAC asked. Two refusals on one OOB switch whose
askers each fit the other's planned kind are reported as a swapped pair of cables.
"""
import re

from .kea import IDRAC_VENDOR_CLASS

_REFUSAL = re.compile(r"ALLOC_ENGINE_V4_ALLOC_FAIL_CLASSES \[hwtype=\d+ (?P<mac>[0-9a-f:]*)\].*classes: (?P<classes>.*)$")


def refusals(log_lines):
    """{circuit-id: {"macs": set, "idrac": bool}} of refused requests, by position."""
    out = {}
    for line in log_lines:
        match = _REFUSAL.search(line.rstrip("\n"))
        if not match:
            continue
        classes = [c.strip() for c in match.group("classes").split(",")]
        where = [c[3:] for c in classes if c.startswith("at:")]
        cid = where[0] if where else None   # None: relayed by no known OOB switch port
        entry = out.setdefault(cid, {"macs": set(), "idrac": False})
        entry["macs"].add(match.group("mac"))
        entry["idrac"] = entry["idrac"] or "VENDOR_CLASS_%s" % IDRAC_VENDOR_CLASS in classes
    return out


def _fits(asker_is_idrac, pos):
    return pos is not None and asker_is_idrac == (pos.kind == "bmc")


def findings(log_lines, positions, ports):
    """One dict per refused position, sorted by position: relay, port, planned (device port or None),
    asker ("iDRAC" or "not an iDRAC"), macs, swapped_with (the other port of a swapped pair) and message."""
    by_cid = {p.circuit_id: p for p in positions}
    port_of = {cid: (relay, port) for relay, port, cid in ports}
    found = refusals(log_lines)
    out = []
    for cid, seen in found.items():
        relay, port = port_of.get(cid, (None, None))
        pos = by_cid.get(cid)
        asker = IDRAC_VENDOR_CLASS if seen["idrac"] else "not an iDRAC"
        # A cable swap: the device that asked here is planned at another refused port of the same switch
        # whose own asker fits this position.
        partners = sorted(other for other, o in found.items() if other != cid and other in port_of
                          and port_of[other][0] == relay and _fits(seen["idrac"], by_cid.get(other))
                          and _fits(o["idrac"], pos))
        planned = "%s %s (%s)" % (pos.device, pos.device_port, pos.kind) if pos else None
        if cid is None:
            text = "a request relayed from no known OOB switch port got nothing"
        elif pos is None:
            text = "%s %s: no device is planned here; a device (%s, MAC %s) asked and got nothing" % (
                relay, port, asker, ", ".join(sorted(seen["macs"])))
        else:
            text = "%s %s: planned %s, but %s asked (MAC %s) and got nothing" % (
                relay, port, planned, "an iDRAC" if seen["idrac"] else "a device that is not an iDRAC",
                ", ".join(sorted(seen["macs"])))
        swapped = port_of[partners[0]][1] if len(partners) == 1 else None
        if swapped:
            text += "; its cable looks swapped with %s %s (planned %s)" % (
                relay, swapped, "%s %s" % (by_cid[partners[0]].device, by_cid[partners[0]].device_port))
        out.append({"relay": relay, "port": port, "planned": planned, "asker": asker,
                    "macs": sorted(seen["macs"]), "swapped_with": swapped, "message": text})
    return sorted(out, key=lambda f: (f["relay"] or "", f["port"] or ""))
