"""Preflight of a GPU server before RoCE is configured: the NVIDIA network stack (DOCA-OFED or MLNX_OFED) and
its version, an RDMA device behind each rail NIC, and each rail NIC on the PCIe switch of its GPU.

Rail i's NIC must sit behind the same PCIe switch as GPU i (``nvidia-smi topo -m`` PIX or PXB): NCCL picks for
each GPU the nearest HCA, so a NIC on another switch or socket means GPU i's traffic leaves on another rail, or
crosses the CPU interconnect at a fraction of the bandwidth.
"""
import re

from .firmware import version_key

# PIX: at most one PCIe bridge; PXB: several bridges without the host bridge: both under one PCIe switch tree.
SAME_SWITCH = ("PIX", "PXB")
_OFED = re.compile(r"^(?:(?P<mlnx>MLNX_OFED_LINUX)|(?P<doca>OFED-internal))-(?P<version>[0-9][0-9.\-]*?)[:\s]*$")


def parse_ofed_info(text):
    """``ofed_info -s`` -> {"stack": "DOCA-OFED"|"MLNX_OFED", "version": "24.10-1.1.4.0.200"}, or None (inbox
    drivers have no ofed_info, or print something else)."""
    for line in text.splitlines():
        m = _OFED.match(line.strip())
        if m:
            return {"stack": "MLNX_OFED" if m.group("mlnx") else "DOCA-OFED", "version": m.group("version")}
    return None


def ofed_problem(text, minimum):
    """One line when the stack is missing or older than ``minimum`` (e.g. "23.10"), else None."""
    found = parse_ofed_info(text or "")
    if found is None:
        return ("no DOCA-OFED or MLNX_OFED (`ofed_info -s` says %r): install DOCA-OFED; the ECN/CNP sysfs files and "
                "mlnx_qos come with it" % (text or "").strip()[:60])
    if version_key(found["version"]) < version_key(minimum):
        return "%s %s is older than %s: upgrade it" % (found["stack"], found["version"], minimum)
    return None


def parse_topo(text):
    """``nvidia-smi topo -m`` -> {"gpus": [GPU0, ...], "nics": {mlx5_N: {GPU0: relation, ...}}}: NICn columns named
    by the "NIC Legend" (older drivers print mlx5_N as the column name itself)."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln).rstrip() for ln in text.splitlines()]
    header = next((ln.split() for ln in lines if re.match(r"^\s+GPU0\b", ln)), None)
    if header is None:
        raise ValueError("not `nvidia-smi topo -m` output: no GPU0 column header")
    columns = [c for c in header if re.match(r"^(GPU\d+|NIC\d+|mlx5_\w+)$", c)]
    legend = dict(re.findall(r"^\s+(NIC\d+):\s+(\S+)$", "\n".join(lines), re.M))
    gpus = [c for c in columns if c.startswith("GPU")]
    nics = {}
    for ln in lines:
        cells = ln.split()
        if not cells or not re.match(r"^(GPU\d+)$", cells[0]):
            continue
        row = dict(zip(columns, cells[1:1 + len(columns)]))
        for col in columns:
            if not col.startswith("GPU"):
                nics.setdefault(legend.get(col, col), {})[cells[0]] = row.get(col)
    return {"gpus": gpus, "nics": nics}


def affinity_problems(topo, rail_nics):
    """Lines naming each rail NIC ({name, rail, rdma}) that is not on GPU<rail>'s PCIe switch."""
    out = []
    for nic in rail_nics:
        gpu = "GPU%d" % nic["rail"]
        relations = topo["nics"].get(nic["rdma"])
        if relations is None:
            out.append("rail %d %s: nvidia-smi topo lists no %s" % (nic["rail"], nic["name"], nic["rdma"]))
            continue
        here = relations.get(gpu)
        if here not in SAME_SWITCH:
            near = sorted(g for g, rel in relations.items() if rel in SAME_SWITCH)
            out.append("rail %d %s (%s) is %s from %s, not on its PCIe switch%s" % (
                nic["rail"], nic["name"], nic["rdma"], here, gpu,
                "; it sits with %s: the NIC/rail order does not match the GPUs" % ", ".join(near) if near else ""))
    return out


def rdma_problems(rail_nics, found):
    """Lines naming each rail NIC whose RDMA device is not the planned one. ``found``: {interface: [rdma devices
    under /sys/class/net/<if>/device/infiniband/]}."""
    out = []
    for nic in rail_nics:
        have = found.get(nic["name"])
        if have is None:
            out.append("rail %d %s: no such network interface" % (nic["rail"], nic["name"]))
        elif nic["rdma"] not in have:
            out.append("rail %d %s: RDMA device %s, planned %s"
                       % (nic["rail"], nic["name"], ", ".join(have) or "none", nic["rdma"]))
    return out
