"""Parsers of NVIDIA (Mellanox) tool output, and what to change to reach wanted settings.

mlxconfig values print as NAME(n) (``ETH(2)``, ``True(1)``), plain numbers, or ``Array[..]``; a wanted value
matches by name or by number. Firmware parameters change "Next Boot"; "Current" follows only after a firmware
reset (mlxfwreset) or a reboot, so Next Boot != Current means a reset is pending.
"""
import re

from ..errors import SpecError

_VALUE = re.compile(r"^(?P<name>.*)\((?P<num>-?\d+)\)$")


def parse_mlxconfig_query(text):
    """``mlxconfig -d DEV [-e] q`` -> {"device": {field: value}, "columns": [...], "params": {NAME: {column: value}}}."""
    device, params, columns = {}, {}, None
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith(("The '*'", "...", "-")):
            continue
        if stripped.startswith("Configurations:"):
            columns = [c for c in re.split(r"\s{2,}", stripped[len("Configurations:"):].strip()) if c]
            continue
        if columns is None:
            key, sep, value = stripped.partition(":")
            if sep and value.strip():
                device[key.strip()] = value.strip()
            continue
        tokens = stripped.split()
        if tokens[0] == "*":
            tokens = tokens[1:]
        if len(tokens) != len(columns) + 1 or not re.match(r"^[A-Z0-9_\[\]\.]+$", tokens[0]):
            continue
        params[tokens[0]] = dict(zip(columns, tokens[1:]))
    return {"device": device, "columns": columns or [], "params": params}


def value_matches(reported, wanted):
    """``ETH(2)`` matches ETH, eth, 2; ``True(1)`` matches true, True, 1; ``0`` matches 0."""
    want = str(wanted).strip()
    if isinstance(wanted, bool):
        want = "True" if wanted else "False"
    m = _VALUE.match(reported)
    if m:
        return want.upper() in (m.group("name").upper(), m.group("num")) or want == reported
    return want.upper() == reported.upper()


def mlxconfig_changes(parsed, wanted, device="device"):
    """(to_set {NAME: {before, after}}, pending_reset [NAME]) for ``wanted`` {NAME: value}.

    Compared with the "Next Boot" column (what the firmware will run), so a setting already made but not yet
    active is not set twice; it is listed in ``pending_reset`` instead."""
    params = parsed["params"]
    next_col = "Next Boot" if "Next Boot" in parsed["columns"] else (parsed["columns"] or ["?"])[-1]
    to_set, pending = {}, []
    for name, value in wanted.items():
        if name not in params:
            raise SpecError("mlxconfig.%s" % name, "%s has no such firmware parameter" % device)
        row = params[name]
        if not value_matches(row[next_col], value):
            to_set[name] = {"before": row[next_col], "after": str(value)}
        if "Current" in row and row["Current"] != row[next_col]:
            pending.append(name)
    return to_set, pending


def format_set_value(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def parse_mlnx_qos(text):
    """``mlnx_qos -i IF`` -> {"trust": "dscp"|"pcp", "pfc": [0/1 x 8], "dscp2prio": {prio: [dscp, ...]}}."""
    out = {"trust": None, "pfc": None, "dscp2prio": {}}
    in_pfc = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("Priority trust state:"):
            out["trust"] = line.split(":", 1)[1].strip()
        elif line.startswith("PFC configuration"):
            in_pfc = True
        elif in_pfc and line.startswith("enabled"):
            out["pfc"] = [int(v) for v in line.split()[1:9]]
            in_pfc = False
        m = re.match(r"^prio:(\d+)\s+dscp:([\d,]+)", line)
        if m:
            out["dscp2prio"][int(m.group(1))] = [int(v) for v in m.group(2).strip(",").split(",")]
    if out["trust"] is None or out["pfc"] is None:
        raise ValueError("not mlnx_qos output (no trust state or PFC line)")
    return out


def pfc_vector(priorities):
    """[3] -> [0, 0, 0, 1, 0, 0, 0, 0]; a priority outside 0-7 raises SpecError."""
    for p in priorities:
        if not 0 <= int(p) <= 7:
            raise SpecError("pfc_priorities", "priority %r is outside 0-7" % p)
    return [1 if i in [int(p) for p in priorities] else 0 for i in range(8)]
