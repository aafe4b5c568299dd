"""Multi-plane at scale for `make bench`: inventories/th6-131k (131,072 GPUs: 16,384 XE9780 whose ConnectX-8 NICs
run as 4 x 200G into 4 planes, each plane two tiers of 512 x 200G switches; 3,072 fabric switches, 1,048,576
backend links) planned with playbooks/plan.yml and built with playbooks/build.yml as a user runs them, each in
a fresh build directory, wall time and peak memory measured as the other sections measure them (run_bench.py:
`measured`, the largest process and its whole process tree by PSS). Issue 44's bounds: plan.yml at most 30 s and
2 GiB, build.yml at most 90 s and 3 GiB.
"""
import os
import tempfile

NAME = "th6-131k"
WHAT = ("131,072 GPUs, 4 planes of two tiers: 2,048 leaves and 1,024 spines of 512 x 200G, 16,384 servers with "
        "32 plane ports each")


def bench_multi_plane():
    from run_bench import BIN, ROOT, ansible_env, figure, measured   # noqa: E402 (run_bench imports this module)
    rows = []
    for playbook, target in (("plan", "at most 30 s and 2 GiB"), ("build", "at most 90 s and 3 GiB")):
        with tempfile.TemporaryDirectory() as tmp:
            r = measured([os.path.join(BIN, "ansible-playbook"), "-i", "inventories/" + NAME,
                          "playbooks/%s.yml" % playbook, "-e", "build_dir=" + tmp], env=ansible_env(), cwd=ROOT)
            files = sum(len(names) for _d, _s, names in os.walk(tmp))
        rows.append(("`ansible-playbook -i inventories/%s playbooks/%s.yml` (%s), fresh build directory, %d files"
                     % (NAME, playbook, WHAT, files), figure(r), target))
    return rows
