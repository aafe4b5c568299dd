"""Markdown and number formatting shared by the documents."""


def table(header, rows):
    """A pipe table; cells are converted with str()."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for dummy in header) + "|"]
    lines.extend("| %s |" % " | ".join(map(str, row)) for row in rows)
    return "\n".join(lines)


def count(n):
    return "{:,}".format(n)


def money(value, currency):
    return "{:,.0f} {}".format(value, currency)


def duration(minutes):
    """Minutes in the largest unit that keeps the number readable."""
    for unit, size in (("years", 525600), ("days", 1440), ("hours", 60)):
        if minutes >= 2 * size:
            return "%.1f %s" % (minutes / size, unit)
    return "%.2f minutes" % minutes
