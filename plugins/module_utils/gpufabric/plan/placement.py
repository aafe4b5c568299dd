"""Where every device stands: racks in rows, and a slot in its rack.

Each scalable unit is a row: its server racks, then its network racks (its rail leaves, the
frontend pairs and the pod spines that start in it). A top_of_rack unit is one rack or a few, so
its units stand side by side in rows of at most `docs.layout.row_racks` racks (a unit per row
would put a 100k-GPU hall kilometres long). Tiers whose size does not grow with the cluster
(two-tier spines, superspines) stand in a core row. Rack ordinals and names are growth-safe: a
larger cluster adds racks after the existing ones.
"""
from ..datafiles import load, merge
from .port_split import ceil_div
from .model import Rack


class Placement:
    """Rack geometry of one plan; hands out racks and slots in the order devices are created."""

    def __init__(self, spec, sizing):
        per_rack = self.switches_per_rack = sizing.switches_per_rack
        backend, frontend = sizing.backend, sizing.frontend
        self.server_racks_per_unit = ceil_div(sizing.servers_per_unit, spec["servers"]["per_rack"])
        # Slots of a unit's network racks: rail leaves, then frontend pairs, then pod spines.
        # A top-of-rack leaf stands in its servers' rack instead.
        self.top_of_rack = sizing.design == "top_of_rack"
        self.servers_per_rack = spec["servers"]["per_rack"]
        slots = 0 if self.top_of_rack else sizing.rails * sizing.nic_planes
        self.first_frontend_leaf_slot = slots
        if frontend:
            slots += 2 * ceil_div(sizing.servers_per_unit, sizing.servers_per_pair)
        self.first_backend_spine_slot = slots
        if backend.tiers >= 3:
            slots += backend.planes * backend.spines_per_group
        self.first_backend_super_slot = slots
        if backend.tiers == 4:
            slots += backend.planes * backend.spines_per_group * backend.superspines_per_plane
        self.first_frontend_spine_slot = slots
        if frontend and frontend.tiers == 3:
            slots += ceil_div(sizing.servers_per_unit, sizing.servers_per_frontend_pod) * frontend.spines_per_group
        self.racks_per_unit = self.server_racks_per_unit + ceil_div(slots, per_rack)
        core = 0
        if backend.tiers == 2:
            core += backend.planes * backend.spines_per_group
        if backend.tiers == 3:
            core += backend.planes * backend.spines_per_group * backend.superspines_per_plane
        if backend.tiers == 4:
            core += backend.planes * backend.spines_per_group * backend.superspines_per_plane * backend.cores_per_plane
        if frontend:
            core += frontend.spines_per_group * (frontend.superspines_per_plane if frontend.tiers == 3 else 1)
        self.core_racks = ceil_div(core, per_rack)
        self.units_per_row = 1
        if self.top_of_rack:
            row_racks = merge(load("docs_defaults"), spec.get("docs"))["layout"]["row_racks"]
            self.units_per_row = max(1, row_racks // self.racks_per_unit)
        self._next_core_slot = 0
        self._racks = {}

    def rack(self, unit, column):
        """The rack at ``column`` of scalable unit ``unit`` (-1: the core row)."""
        key = (unit, column)
        rack = self._racks.get(key)
        if rack is None:
            if unit < 0:
                rack = Rack("core-r%02d" % (column + 1), -1, column, "core", column)
            else:
                kind = "server" if column < self.server_racks_per_unit else "network"
                row, place = divmod(unit, self.units_per_row)
                rack = Rack("su%02d-r%02d" % (unit + 1, column + 1), row, place * self.racks_per_unit + column,
                            kind, self.core_racks + unit * self.racks_per_unit + column)
            self._racks[key] = rack
        return rack

    def network_slot(self, unit, slot):
        """(rack, slot in rack) of network slot ``slot`` of scalable unit ``unit``."""
        return self.rack(unit, self.server_racks_per_unit + slot // self.switches_per_rack), \
            slot % self.switches_per_rack

    def leaf_slot(self, index, rails):
        """(rack, slot) of backend leaf number ``index``: a rail leaf in its unit's network racks, or a
        top-of-rack leaf (one per unit) in the first server rack of its unit, above its servers."""
        if self.top_of_rack:
            return self.rack(index, 0), self.servers_per_rack
        return self.network_slot(index // rails, index % rails)

    def core_slot(self):
        """(rack, slot in rack) of the next free core slot."""
        slot = self._next_core_slot
        self._next_core_slot += 1
        return self.rack(-1, slot // self.switches_per_rack), slot % self.switches_per_rack

    def racks(self):
        return sorted(self._racks.values(), key=lambda r: r.ordinal)
