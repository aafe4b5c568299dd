"""Reliability figures: the published headline, job survival and the links a job depends on."""
import math

import pytest

from docs_helpers import cables_of, plan_of
from gpufabric.docs.reliability import (_job_links, minutes_to_first_failure, mttf_from_monthly_rate,
                                        render_reliability, survival)
from gpufabric.docs.settings import settings_for


def test_semianalysis_headline():
    # 100,000 links of 5-year MTTF: the first fails after 26.28 minutes on average
    assert minutes_to_first_failure(100000, 5) == pytest.approx(26.28, abs=0.005)


def test_alibaba_monthly_rate_as_mttf():
    assert mttf_from_monthly_rate(0.00057) == pytest.approx(146.1, abs=0.1)


def test_survival_is_exponential():
    assert survival(0.0, 24) == 1.0
    assert survival(1 / 24.0, 24) == pytest.approx(math.exp(-1))


def test_job_links_in_the_lab():
    plan = plan_of("lab")
    assert _job_links(plan, 2) == (16, 0)            # one scalable unit: its own links only
    assert _job_links(plan, 4) == (32, 32)           # two units: the leaves' uplinks too


def test_job_spanning_pods_depends_on_spine_uplinks():
    plan = plan_of("metalsoft-16k")
    per_pod = 32 * plan.summary["backend"]["servers_per_scalable_unit"]
    own, fabric = _job_links(plan, per_pod + 1)
    assert own == (per_pod + 1) * 8
    assert fabric > plan.summary["links"]["backend leaf-spine"] // 3


def test_headline_uses_overrides():
    plan = plan_of("lab")
    text = render_reliability(plan, cables_of("lab"), settings_for(
        plan, {"reliability": {"mttf_years": 50, "job": {"hours": 2, "servers": 2}}}))["docs/reliability.md"]
    assert "Planning MTTF: 50 years" in text
    assert "a 2-hour job on 2 servers (16 GPUs)" in text


def test_first_failure_per_link_class_at_100k():
    # SemiAnalysis' headline is per link class: 100,000 NIC-leaf links of 5-year MTTF fail first
    # after 26.28 minutes; the whole fabric, with its leaf-spine and spine-core links, far sooner.
    plan = plan_of("h100-100k")
    text = render_reliability(plan, cables_of("h100-100k"), settings_for(plan))["docs/reliability.md"]
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in text.splitlines() if line.startswith("| ")}
    assert rows["backend NIC-leaf"][1] == "100,000"
    assert rows["backend NIC-leaf"][3] == "26.28 minutes"
    assert "backend spine-core" in rows
    links = sum(int(rows[name][1].replace(",", "")) for name in rows
                if name not in ("all networks", "Link class", "Servers") and not name[0].isdigit())
    assert links == int(rows["all networks"][1].replace(",", ""))
