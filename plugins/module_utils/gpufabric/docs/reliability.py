"""Reliability: how soon the first link of the cluster fails, and how likely a job is to finish
without losing a link.

Links fail independently with exponential lifetimes: N links of mean time to failure M fail at a
combined rate N/M, so the first failure comes after M/N on average, and a job that depends on L
links for T hours sees none with probability exp(-L*T/M).
"""
import math

from .markdown import count, duration, table

MINUTES_PER_DAY = 1440


def minutes_to_first_failure(links, mttf_years, year_days=365):
    """Expected minutes until the first of ``links`` fails (100,000 links at 5 years: 26.28)."""
    return mttf_years * year_days * MINUTES_PER_DAY / links


def survival(rate_per_hour, hours):
    """Probability that no link fails within ``hours`` at a combined failure rate."""
    return math.exp(-rate_per_hour * hours)


def mttf_from_monthly_rate(fraction):
    """MTTF in years from the fraction of links that fail in a month (a month is a twelfth of a year)."""
    return 1 / (12 * -math.log(1 - fraction))


class Rates:
    """Failure rates per hour of cables, with a per-media MTTF (or one figure for every cable)."""

    def __init__(self, settings, mttf_years=None):
        rel = settings["reliability"]
        self.hours_per_year = rel["year_days"] * 24
        self.default = mttf_years or rel["mttf_years"]
        self.by_media = {} if mttf_years else rel["mttf_years_by_media"]

    def per_cable(self, cable):
        return 1 / (self.by_media.get(cable.media["name"], self.default) * self.hours_per_year)

    def total(self, cables):
        return sum(self.per_cable(c) for c in cables)


def _job_links(plan, servers):
    """Backend links a job on the first ``servers`` servers depends on: (server links, fabric links).

    Its own NIC-leaf links always; its leaves' uplinks once it spans more than one scalable unit
    (traffic between units crosses spines); spine uplinks once it spans more than one pod.
    """
    per_su = plan.summary["backend"]["servers_per_scalable_unit"]
    units = -(-servers // per_su)
    server_links = fabric = 0
    pods = set()
    for link in plan.links:
        if link.network != "backend":
            continue
        if link.tier == "server":
            if link.b.index < servers:
                server_links += 1
                pods.add(link.a.pod)
        elif link.tier == "leaf-spine" and units > 1 and link.b.su < units:
            fabric += 1
    if len(pods) > 1:
        fabric += sum(1 for link in plan.links if link.network == "backend" and link.tier == "spine-superspine"
                      and link.b.pod in pods)
        zones = {link.a.zone for link in plan.links if link.tier == "spine-superspine" and link.b.pod in pods}
        if len(zones) > 1:
            fabric += sum(1 for link in plan.links if link.network == "backend" and link.tier == "superspine-core"
                          and link.b.zone in zones)
    return server_links, fabric


def _average_rate(rates, cables, tiers):
    chosen = [c for c in cables if c.link.network == "backend" and c.link.tier in tiers]
    return rates.total(chosen) / len(chosen) if chosen else 0.0


def _job_servers(plan, rel):
    """The headline job's servers: job.servers, at most the whole cluster (None: all of it)."""
    n = plan.summary["servers"]
    return min(rel["job"]["servers"] or n, n)


def _job_sizes(plan, rel):
    n = plan.summary["servers"]
    return sorted({min(plan.summary["backend"]["servers_per_scalable_unit"], n), n, _job_servers(plan, rel)})


# Link classes of the first-failure table: the headline figure people quote is per class, because
# a NIC-leaf link has no redundancy (the GPU behind it stops) while fabric links reroute.
LINK_CLASSES = (
    ("backend NIC-leaf", "backend", ("server",)),
    ("backend leaf-spine", "backend", ("leaf-spine",)),
    ("backend spine-core", "backend", ("spine-superspine", "superspine-core")),
    ("frontend", "frontend", None),
    ("oob", "oob", None),
)


def cables_by_class(cables):
    """[(class name, cables)] for the classes of LINK_CLASSES that the plan has, in that order."""
    groups = []
    for name, network, tiers in LINK_CLASSES:
        chosen = [c for c in cables if c.link.network == network and (tiers is None or c.link.tier in tiers)]
        if chosen:
            groups.append((name, chosen))
    return groups


def _first_failure_table(cables, rates_list):
    groups = cables_by_class(cables) + [("all networks", cables)]
    rows = []
    for name, group in groups:
        media = ", ".join(sorted({c.media["name"] for c in group}))
        rows.append([name, count(len(group)), media] + [duration(60 / r.total(group)) for r in rates_list])
    return rows


def render_reliability(plan, cables, settings):
    """{docs/reliability.md}."""
    rel = settings["reliability"]
    planning = Rates(settings)
    observed_mttf = mttf_from_monthly_rate(rel["observed_monthly_failure_rate"])
    observed = Rates(settings, observed_mttf)
    by_media = ", ".join("%s %g years" % kv for kv in sorted(rel["mttf_years_by_media"].items()))
    lines = [
        "# Reliability: %s" % plan.spec["cluster"]["name"], "",
        "Links fail independently with exponential lifetimes. N links of mean time to failure (MTTF) M: the "
        "first failure comes after M/N on average; a job depending on L links for T hours sees no failure with "
        "probability exp(-L T / M).", "",
        "- Planning MTTF: %g years per link%s (SemiAnalysis: 100,000 links at 5 years fail every 26.28 minutes)."
        % (rel["mttf_years"], "; by media: " + by_media if by_media else ""),
        "- Observed: %.3f%% of NIC-ToR links failing per month (Alibaba HPN, SIGCOMM 2024), an MTTF of %.0f "
        "years." % (rel["observed_monthly_failure_rate"] * 100, observed_mttf), "",
        "## Expected time to the first link failure", "",
        "Per link class: a NIC-leaf link is the single path of its GPU, so its failure stops the job; fabric "
        "links fail over to the other ECMP paths.", "",
        table(("Link class", "Links", "Media", "Planning MTTF", "Observed rate"),
              _first_failure_table(cables, (planning, observed))),
        "",
    ]
    if plan.sizing.nic_planes > 1:   # only then, so a one-plane fabric's page is as before
        lines += _plane_section(plan, cables, (planning, observed))
    lines += _job_section(plan, cables, rel, planning)
    return {"docs/reliability.md": "\n".join(lines) + "\n"}


def _plane_section(plan, cables, rates_list):
    """Per plane of a multi-plane backend: its links and the time to its first link failure. A failure in one
    plane leaves a GPU its ports in the others (1 - 1/P of its bandwidth), not a dead NIC."""
    planes = plan.sizing.nic_planes
    rows = []
    for plane in range(planes):
        group = [c for c in cables if c.link.network == "backend" and c.link.a.fabric_plane == plane]
        server = sum(1 for c in group if c.link.tier == "server")
        rows.append(["plane %d" % (plane + 1), count(server), count(len(group) - server), count(len(group))]
                    + [duration(60 / r.total(group)) for r in rates_list])
    return [
        "## Per plane", "",
        "%d planes, each its own fabric: a link or switch failure in one plane takes that plane's port of the GPUs "
        "behind it, which keep %d of their %d ports (NVIDIA's DGX B300: the job continues on half the bandwidth with "
        "two planes). The first failure of each plane, and of the backend as a whole in the table above, comes as "
        "soon as with one plane of as many links; what changes is what it stops." % (planes, planes - 1, planes), "",
        table(("Plane", "NIC-leaf links", "Fabric links", "Links", "Planning MTTF", "Observed rate"), rows),
        "",
    ]


def _job_section(plan, cables, rel, rates):
    server_rate = _average_rate(rates, cables, ("server",))
    fabric_rate = _average_rate(rates, cables, ("leaf-spine", "spine-superspine", "superspine-core"))
    hours_list = rel["job"]["table_hours"]
    head_servers = _job_servers(plan, rel)
    rows, headline = [], None
    for servers in _job_sizes(plan, rel):
        own, fabric = _job_links(plan, servers)
        with_fabric = own * server_rate + fabric * fabric_rate
        for hours in sorted(set(hours_list) | {rel["job"]["hours"]}):
            row = (count(servers), count(servers * plan.summary["rails"]), "%g" % hours, count(own), count(fabric),
                   "%.4f" % survival(own * server_rate, hours), "%.4f" % survival(with_fabric, hours),
                   "%.2f" % (with_fabric * hours))
            rows.append(row)
            if servers == head_servers and hours == rel["job"]["hours"]:
                headline = row
    return [
        "## Jobs", "",
        "A job on the first N servers depends on its own NIC-leaf links (a failure stops it: each GPU has one "
        "NIC), and on fabric links once it spans more than one scalable unit (leaf uplinks) or pod (spine "
        "uplinks); a fabric link failure is rerouted by ECMP but stalls the RoCE flows on it until BGP/BFD "
        "converge, which often kills the job too. Backend links only.", "",
        "Headline: a %s-hour job on %s servers (%s GPUs) finishes without a link failure with probability %s "
        "(own links only) or %s (with the fabric links it uses)." % (
            headline[2], headline[0], headline[1], headline[5], headline[6]), "",
        table(("Servers", "GPUs", "Hours", "Own links", "Fabric links", "P(no failure), own links",
               "P(no failure), with fabric", "Expected failures"), rows),
        "",
    ]
