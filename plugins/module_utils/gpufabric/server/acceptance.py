"""Acceptance figures from the tools' own output: perftest ``ib_write_bw`` per rail and nccl-tests
``all_reduce_perf`` across servers, with the verdict against a floor."""
import re

_FLOAT = r"[-+]?\d+(?:\.\d+)?"


def parse_ib_write_bw(text):
    """-> {device, link_type, gid_index, rows: [{bytes, iterations, bw_peak_gbps, bw_avg_gbps, msg_rate_mpps}]}.
    Figures are Gb/s only when the run had --report_gbits (the header says Gb/sec); MB/sec runs are refused."""
    out = {"device": None, "link_type": None, "gid_index": None, "rows": []}
    unit = None
    for line in text.splitlines():
        m = re.search(r"Device\s+:\s+(\S+)", line)
        if m:
            out["device"] = m.group(1)
        m = re.match(r"^\s*Link type\s+:\s+(\S+)", line)
        if m:
            out["link_type"] = m.group(1)
        m = re.match(r"^\s*GID index\s+:\s+(\d+)", line)
        if m:
            out["gid_index"] = int(m.group(1))
        if "#bytes" in line and "BW average" in line:
            unit = re.search(r"BW average\[([^\]]+)\]", line).group(1)
        m = re.match(r"^\s*(\d+)\s+(\d+)\s+(%s)\s+(%s)\s+(%s)\s*$" % (_FLOAT, _FLOAT, _FLOAT), line)
        if m and unit:
            out["rows"].append({"bytes": int(m.group(1)), "iterations": int(m.group(2)),
                                "bw_peak_gbps": float(m.group(3)), "bw_avg_gbps": float(m.group(4)),
                                "msg_rate_mpps": float(m.group(5))})
    if unit is None or not out["rows"]:
        raise ValueError("no ib_write_bw result table (the server side prints none; the client does)")
    if unit != "Gb/sec":
        raise ValueError("ib_write_bw reported %s: run it with --report_gbits" % unit)
    return out


def parse_all_reduce_perf(text):
    """-> {ranks, hosts, rows: [{bytes, out_busbw, in_busbw, wrong}], avg_busbw, out_of_bounds_ok}."""
    ranks, hosts, rows = 0, set(), []
    avg, bounds = None, None
    for line in text.splitlines():
        m = re.match(r"^#\s+Rank\s+\d+\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)", line)
        if m:
            ranks += 1
            hosts.add(m.group(1))
        m = re.match(r"^#\s*Avg bus bandwidth\s*:\s*(%s)" % _FLOAT, line)
        if m:
            avg = float(m.group(1))
        m = re.match(r"^#\s*Out of bounds values\s*:\s*(\d+)", line)
        if m:
            bounds = int(m.group(1)) == 0
        cells = line.split()
        if len(cells) >= 13 and cells[0].isdigit() and not line.startswith("#"):
            rows.append({"bytes": int(cells[0]), "out_busbw": float(cells[7]), "in_busbw": float(cells[11]),
                         "wrong": int(cells[8]) + int(cells[12]) if cells[8].isdigit() and cells[12].isdigit() else None})
    if avg is None or not rows:
        raise ValueError("no all_reduce_perf result (no size rows or no 'Avg bus bandwidth' line)")
    return {"ranks": ranks, "hosts": sorted(hosts), "rows": rows, "avg_busbw": avg, "out_of_bounds_ok": bounds}


def ib_write_bw_problem(parsed, line_rate_gbps, min_fraction, label):
    """One line when the largest message size reached less than ``min_fraction`` of the line rate."""
    best = max(parsed["rows"], key=lambda r: r["bytes"])
    floor = line_rate_gbps * min_fraction
    if parsed["link_type"] not in (None, "Ethernet"):
        return "%s: link type %s, expected Ethernet (RoCE)" % (label, parsed["link_type"])
    if best["bw_avg_gbps"] < floor:
        return "%s: %s ib_write_bw %.2f Gb/s at %d bytes, below %.0f%% of %d Gb/s (%.1f)" % (
            label, parsed["device"], best["bw_avg_gbps"], best["bytes"], min_fraction * 100, line_rate_gbps, floor)
    return None


def all_reduce_problem(parsed, min_busbw_gbs, label="all_reduce_perf"):
    """One line when data was wrong or the bus bandwidth of the largest size is under ``min_busbw_gbs`` GB/s."""
    if parsed["out_of_bounds_ok"] is False or any(r["wrong"] for r in parsed["rows"]):
        return "%s: wrong results reported (#wrong or out-of-bounds values)" % label
    best = max(parsed["rows"], key=lambda r: r["bytes"])
    busbw = min(best["out_busbw"], best["in_busbw"])
    if busbw < min_busbw_gbs:
        return "%s: bus bandwidth %.2f GB/s at %d bytes over %d ranks on %d hosts, below %.1f GB/s" % (
            label, busbw, best["bytes"], parsed["ranks"], len(parsed["hosts"]), min_busbw_gbs)
    return None
