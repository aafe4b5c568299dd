"""Cable lengths: the one estimate of every link's run, and the stock length that is ordered for it.

The cabling plan and bill of materials order the stock length; the switch sizes each port's PFC
headroom from the same stock length (the structured config's cable_length_m), so the headroom always follows the
cable that is actually installed. The geometry is the spec's `docs.layout` over
data/docs_defaults.yml: rows are scalable units, racks stand at columns, the core row at
`core_row` row pitches.
"""
import bisect

from ..datafiles import load, merge


class CableLengths:
    def __init__(self, layout, stock_lengths_m):
        self.layout = layout
        self.stock_lengths = sorted(stock_lengths_m)
        self._by_racks = {}

    @classmethod
    def for_spec(cls, spec):
        settings = merge(load("docs_defaults"), spec.get("docs"))
        return cls(settings["layout"], settings["stock_lengths_m"])

    def position(self, rack):
        lay = self.layout
        row = lay["core_row"] if rack.row < 0 else rack.row
        return rack.column * lay["rack_width_m"], row * lay["row_pitch_m"]

    def estimate(self, rack_a, rack_b):
        """Overhead trays run along rows and across them (Manhattan distance), and each end drops
        from the tray to its port; both ends in one rack use a fixed in-rack length."""
        lay = self.layout
        if rack_a is rack_b:
            routed = lay["in_rack_m"]
        else:
            (xa, ya), (xb, yb) = self.position(rack_a), self.position(rack_b)
            routed = abs(xa - xb) + abs(ya - yb) + 2 * lay["tray_drop_m"]
        return round(routed * (1 + lay["slack_ratio"]) + lay["slack_m"], 1)

    def stock(self, length):
        """The shortest stock length that reaches ``length`` (the longest if none does)."""
        i = bisect.bisect_left(self.stock_lengths, length)
        return self.stock_lengths[min(i, len(self.stock_lengths) - 1)]

    def between(self, rack_a, rack_b):
        """(estimated length, stock length to order) of a cable between two racks, in metres."""
        key = (rack_a.ordinal, rack_b.ordinal)
        found = self._by_racks.get(key)
        if found is None:
            length = self.estimate(rack_a, rack_b)
            found = self._by_racks[key] = (length, self.stock(length))
        return found

    def of(self, link):
        return self.between(link.a.rack, link.b.rack)
