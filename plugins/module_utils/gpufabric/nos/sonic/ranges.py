"""SONiC's range keys for queues and priority groups ("0-2", "3", "4-7"), both ways: the renderer
writes them, the validation reads them back from a live config_db."""


def to_ranges(numbers):
    """[0, 1, 2, 4, 5, 6, 7] -> ["0-2", "4-7"] (``numbers`` sorted)."""
    out, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            out.append(str(start) if start == n else "%d-%d" % (start, n))
            start = None
    return out


def from_ranges(text):
    """"0-2,5" -> [0, 1, 2, 5]; parts that are not numbers are skipped."""
    out = []
    for part in text.split(","):
        lo, _sep, hi = part.partition("-")
        if lo.isdigit():
            out += list(range(int(lo), int(hi or lo) + 1))
    return out
