"""Reports of a validation: JSON, Markdown and JUnit XML under build/validation/<cluster>/ (beside, not
inside, build/<cluster>/, which a build replaces whole), and a summary for stdout. Failures come first;
every line names device, check and object. The same directory keeps the counter baseline: each run's
carrier-change readings, from which the next run counts flaps."""
import json
import os
from xml.sax.saxutils import escape, quoteattr

from ..files import write_atomic
from .checks import STATUSES

ORDER = {status: i for i, status in enumerate(STATUSES)}
BASELINE = "counters.json"


def _sorted(results):
    return sorted(results, key=lambda r: (ORDER[r.status], r.check, r.device, r.object))


def as_dict(report):
    return {"cluster": report["cluster"], "devices": report["devices"], "checks": report["checks"],
            "counts": report["counts"], "timing": report["timing"],
            "results": [r._asdict() for r in _sorted(report["results"])]}


def to_json(report):
    return json.dumps(as_dict(report), indent=1, sort_keys=True) + "\n"


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(report):
    c, t = report["counts"], report["timing"]
    lines = ["# Validation of %s against the plan" % report["cluster"], "",
             "%d devices, %d checks: **%d FAIL**, %d ERROR, %d SKIP, %d PASS; %.2f s (controller CPU %.1f ms per device)."
             % (report["devices"], len(report["checks"]), c["FAIL"], c["ERROR"], c["SKIP"], c["PASS"], t["wall_s"],
                t["controller_cpu_ms_per_device"]), "",
             "| check | FAIL | ERROR | SKIP | PASS |", "|---|---|---|---|---|"]
    for name in report["checks"]:
        per = [sum(1 for r in report["results"] if r.check == name and r.status == s) for s in ("FAIL", "ERROR", "SKIP", "PASS")]
        lines.append("| %s | %d | %d | %d | %d |" % ((name,) + tuple(per)))
    problems = [r for r in _sorted(report["results"]) if r.status in ("FAIL", "ERROR")]
    lines += ["", "## Failures and errors", ""]
    if problems:
        lines += ["| status | device | check | object | message |", "|---|---|---|---|---|"]
        lines += ["| %s | %s | %s | %s | %s |" % tuple(_cell(v) for v in (r.status, r.device, r.check, r.object, r.message))
                  for r in problems]
    else:
        lines.append("None.")
    skipped = [r for r in _sorted(report["results"]) if r.status == "SKIP"]
    if skipped:
        lines += ["", "## Skipped", "", "| device | check | object | why |", "|---|---|---|---|"]
        lines += ["| %s | %s | %s | %s |" % tuple(_cell(v) for v in (r.device, r.check, r.object, r.message))
                  for r in skipped]
    return "\n".join(lines) + "\n"


def to_junit(report):
    """One testsuite per check, one testcase per (device, object): CI and AWX show failures by name."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<testsuites name=%s tests="%d" failures="%d" errors="%d" skipped="%d" time="%.3f">'
           % (quoteattr("validate " + report["cluster"]), len(report["results"]), report["counts"]["FAIL"],
              report["counts"]["ERROR"], report["counts"]["SKIP"], report["timing"]["wall_s"])]
    for name in report["checks"]:
        results = [r for r in report["results"] if r.check == name]
        count = {s: sum(1 for r in results if r.status == s) for s in STATUSES}
        out.append('  <testsuite name=%s tests="%d" failures="%d" errors="%d" skipped="%d">'
                   % (quoteattr(name), len(results), count["FAIL"], count["ERROR"], count["SKIP"]))
        for r in results:
            out.append('    <testcase classname=%s name=%s>' % (quoteattr("%s.%s" % (name, r.device)), quoteattr(r.object)))
            tag = {"FAIL": "failure", "ERROR": "error", "SKIP": "skipped"}.get(r.status)
            if tag:
                out.append('      <%s message=%s>%s</%s>' % (tag, quoteattr(r.message), escape(r.message), tag))
            out.append('    </testcase>')
        out.append('  </testsuite>')
    out.append('</testsuites>')
    return "\n".join(out) + "\n"


def summary(report, limit=40):
    """Short text for stdout: counts, then the failures and errors (at most ``limit``)."""
    c, t = report["counts"], report["timing"]
    lines = ["validate %s: %d devices, FAIL %d, ERROR %d, SKIP %d, PASS %d (%.2f s, %.1f ms controller CPU/device)"
             % (report["cluster"], report["devices"], c["FAIL"], c["ERROR"], c["SKIP"], c["PASS"], t["wall_s"],
                t["controller_cpu_ms_per_device"])]
    problems = [r for r in _sorted(report["results"]) if r.status in ("FAIL", "ERROR")]
    for r in problems[:limit]:
        lines.append("%s %s %s %s: %s" % (r.status, r.check, r.device, r.object, r.message))
    if len(problems) > limit:
        lines.append("... and %d more (see the reports)" % (len(problems) - limit))
    return "\n".join(lines)


def report_dir(build_root, cluster):
    return os.path.join(build_root, "validation", cluster)


def read_baseline(build_root, cluster):
    """{device: {port: carrier changes}} of the last validation run ({} when there was none)."""
    try:
        with open(os.path.join(report_dir(build_root, cluster), BASELINE)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def baseline_of(report, previous=None):
    """The readings of this run, on top of ``previous`` for devices this run did not read."""
    out = {dev: dict(ports) for dev, ports in (previous or {}).items()}
    for name, state in (report.get("states") or {}).items():
        readings = {port: iface["flaps"] for port, iface in (state.interfaces or {}).items()
                    if iface.get("flaps") is not None}
        if readings:
            out.setdefault(name, {}).update(readings)
    return out


def write_reports(report, build_root, previous_baseline=None):
    """Write report.json, report.md, junit.xml and the counter baseline under build_root/validation/<cluster>/;
    returns their paths."""
    directory = report_dir(build_root, report["cluster"])
    paths = {"json": os.path.join(directory, "report.json"), "markdown": os.path.join(directory, "report.md"),
             "junit": os.path.join(directory, "junit.xml"), "baseline": os.path.join(directory, BASELINE)}
    write_atomic(paths["json"], to_json(report))
    write_atomic(paths["markdown"], to_markdown(report))
    write_atomic(paths["junit"], to_junit(report))
    write_atomic(paths["baseline"], json.dumps(baseline_of(report, previous_baseline), indent=1, sort_keys=True) + "\n")
    return paths
