"""Every switch of every example cluster renders a config_db that SONiC's YANG models accept.

Thousands of switches (h100-100k: about 8,000): each worker process builds the plan once, reuses one
libyang context and validates its share of the switches, one after the other, without keeping them.
The four-tier 100k example (16,504 switches), the Meta and the SemiAnalysis examples are validated on a
sample (SAMPLE_EVERY).
"""
import multiprocessing
import os

import pytest

from conftest import EXAMPLES, YANG_MODELS, load_example, needs_sonic_yang

needs_sonic_yang()

WORKERS = max(1, min(4, os.cpu_count() or 1))
# Examples validated on a sample, to keep the tier's time: every Nth switch of the plan plus the last of
# each role (the partly filled pod and zone). h100-100k-4tier has 16,504 switches and meta-24k 3,252, whose
# configs differ by addresses and port counts only; the samples (about 2,100 and 820) hold every role, model
# and port layout. Each took about 250 s of the tier in full on the shared 2-core machine. meta-32k (4,276
# switches with its OOB) and semianalysis-98k-tor (8,864) are the same shapes again, larger.
# th6-131k (7,527 switches, 3,072 of them 512-port leaves and spines of four planes alike): every 128th.
SAMPLE_EVERY = {"h100-100k-4tier": 8, "meta-24k": 4, "meta-32k": 8, "semianalysis-98k-tor": 16, "th6-131k": 128}


def _sample(example, switches):
    step = SAMPLE_EVERY.get(example)
    if not step:
        return switches
    last = {dev.role: dev for dev in switches}
    chosen = set(id(dev) for dev in switches[::step]) | set(id(dev) for dev in last.values())
    return [dev for dev in switches if id(dev) in chosen]


def _validate_share(args):
    from gpufabric.nos.sonic import yang as sonic_yang
    from gpufabric.plan import build_plan
    from gpufabric.nos.sonic.config_db import config_db
    from gpufabric.structured import BUILDERS, FabricContext, device_config

    example, share, shares = args
    plan = build_plan(load_example(example))
    ctx = FabricContext(plan)
    models = sonic_yang.load(YANG_MODELS)
    switches = _sample(example, [dev for dev in plan.devices if dev.role in BUILDERS])
    problems, checked = [], 0
    for dev in switches[share::shares]:
        problems.extend(sonic_yang.validate(models, config_db(device_config(dev, ctx)), dev.name))
        checked += 1
    return checked, len(switches), problems


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_switch_config_of_the_example_is_valid(example):
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        results = pool.map(_validate_share, [(example, k, WORKERS) for k in range(WORKERS)])
    checked = sum(r[0] for r in results)
    problems = sorted(p for r in results for p in r[2])
    assert checked == results[0][1] > 0
    assert problems == [], "%d problems, first: %s" % (len(problems), problems[:5])
