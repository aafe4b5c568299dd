"""The hardware catalog: built-in models (data/hardware.yml) plus the spec's own `models`."""
import re

from .datafiles import load
from .errors import SpecError
from .nos_registry import platform
from .spec_parts import SERVER_MODEL, SWITCH_MODEL


_MODE = re.compile(r"^(\d+)x(\d+)G(\(\d+\))?$")


def parse_mode(mode):
    """(sub-ports, speed in Gb/s) of a breakout mode such as 2x400G, or 2x400G(8) with a lane count; None if malformed."""
    m = _MODE.match(str(mode))
    return (int(m.group(1)), int(m.group(2))) if m else None


class SwitchModel:
    """A switch model as one NOS runs it, its ports expanded: (name, speed, use, form_factor) per
    front-panel port, named the way that NOS names them (data/platforms.yml) unless the model says.

    ``lanes[i]``/``first_lanes[i]``/``breakouts[i]`` describe physical port i (its SerDes lanes, the lane
    in its name, the breakout modes the platform lists). A tier that breaks ports out uses a
    ``PortView`` of the model (``broken_out``)."""

    __slots__ = ("name", "description", "mgmt_port", "ports", "form_factors", "nos", "runs", "platform", "lanes",
                 "first_lanes", "breakouts", "port_name", "breakout_name", "rack_units", "power_typical_w",
                 "power_max_w", "airflow", "parent", "physical", "modes")

    def __init__(self, name, data, path, nos):
        self.name = name
        self.description = data["description"]
        self.runs = tuple(data["nos"])
        self.nos = nos
        self.platform = platform(nos, name)
        self.mgmt_port = data["mgmt_port"] or self.platform["mgmt_interface"]
        pattern = self.port_name = data["port_name"] or self.platform["interface_name"]
        self.breakout_name = data.get("breakout_name") or self.platform.get("breakout_name")
        self.rack_units = data.get("rack_units") or 1
        self.power_typical_w = data.get("power_typical_w")
        self.power_max_w = data.get("power_max_w")
        self.airflow = data.get("airflow")
        self.parent = None
        self.physical = self
        self.modes = {}
        self.ports, self.lanes, self.first_lanes, self.breakouts = [], [], [], []
        lane = 0
        for g, group in enumerate(data["port_groups"]):
            lane = group["first_lane"] if group["first_lane"] is not None else lane
            for mode in group.get("breakouts") or []:
                if parse_mode(mode) is None:
                    raise SpecError("%s.port_groups[%d].breakouts" % (path, g), "%r is not a breakout mode: write "
                                    "it as COUNTxSPEEDG, e.g. 2x400G (a lane count may follow: 2x400G(8))" % mode)
            for dummy in range(group["count"]):
                try:
                    pname = pattern.format(lane=lane, index=len(self.ports), number=len(self.ports) + 1)
                except (KeyError, IndexError, ValueError) as exc:
                    raise SpecError(path + ".port_name", "cannot format %r (%s): use {lane}, {index} and {number}"
                                    % (pattern, exc))
                self.ports.append((pname, group["speed"], group["use"], group["form_factor"]))
                self.lanes.append(group["lanes"])
                self.first_lanes.append(lane)
                self.breakouts.append(tuple(group.get("breakouts") or ()))
                lane += group["name_step"] or group["lanes"]
        names = [p[0] for p in self.ports]
        if len(set(names)) != len(names):
            raise SpecError(path + ".port_groups", "port names repeat (%s): give the groups distinct first_lane values"
                            % sorted({n for n in names if names.count(n) > 1})[:3])

    def usable(self, use):
        return [i for i, p in enumerate(self.ports) if p[2] == use]

    def find_mode(self, index, count, speed):
        """The platform's name of the ``count`` x ``speed``G breakout of physical port ``index``, or None."""
        for mode in self.breakouts[index]:
            if parse_mode(mode) == (count, speed):
                return mode
        return None

    def sub_port_name(self, index, sub, count):
        """Name of sub-port ``sub`` of ``count`` on physical port ``index``: the NOS's (or model's) breakout
        pattern ({port}s{sub}: swp1s0), else the port pattern at the sub-port's first lane
        (Ethernet0 and Ethernet4 of a 2x400G Ethernet0 under an Ethernet{lane} pattern)."""
        name = self.ports[index][0]
        if self.breakout_name:
            return self.breakout_name.format(port=name, sub=sub, number=index + 1)
        step = max(1, self.lanes[index] // count)
        return self.port_name.format(lane=self.first_lanes[index] + sub * step, index=index, number=index + 1)

    def broken_out(self, modes):
        """A view of this model with ports broken out: ``modes`` {physical index: mode name}."""
        return PortView(self, modes) if modes else self


class PortView:
    """A switch model as a tier uses it: each broken-out cage replaced by its sub-ports, in place, so
    port indices, names and speeds are what the links use. ``parent[i]``: (cage index, cage name, sub,
    count, mode) of port i, or None on an unbroken port; ``modes``: {cage name: mode} of broken cages;
    ``logical``: {cage index: [port indices]}."""

    def __init__(self, model, modes):
        self.physical = model
        for key in ("name", "description", "mgmt_port", "nos", "runs", "platform", "port_name", "breakout_name",
                    "rack_units", "power_typical_w", "power_max_w", "airflow"):
            setattr(self, key, getattr(model, key))
        self.ports, self.parent, self.modes = [], [], {}
        self.lanes, self.first_lanes, self.breakouts = [], [], []
        self.logical = {}
        self._index = None
        for i, port in enumerate(model.ports):
            mode = modes.get(i)
            count, speed = parse_mode(mode) if mode else (1, port[1])
            self.logical[i] = []
            if count == 1 and speed == port[1]:
                self.logical[i].append(len(self.ports))
                self.ports.append(port)
                self.parent.append(None)
                self.lanes.append(model.lanes[i])
                self.first_lanes.append(model.first_lanes[i])
                self.breakouts.append(model.breakouts[i])
                continue
            self.modes[port[0]] = mode
            step = max(1, model.lanes[i] // count)
            for sub in range(count):
                self.logical[i].append(len(self.ports))
                self.ports.append((model.sub_port_name(i, sub, count), speed, port[2], port[3]))
                self.parent.append((i, port[0], sub, count, mode))
                self.lanes.append(step)
                self.first_lanes.append(model.first_lanes[i] + sub * step)
                self.breakouts.append(())

    def usable(self, use):
        return [i for i, p in enumerate(self.ports) if p[2] == use]

    def cage_of(self, name):
        """(cage name, sub, count, mode) of port ``name``: the port itself for an unbroken one (and for a
        port that is not a front-panel port, such as the management port)."""
        if self._index is None:
            self._index = {port[0]: i for i, port in enumerate(self.ports)}
        i = self._index.get(name)
        parent = None if i is None else self.parent[i]
        return (parent[1], parent[2], parent[3], parent[4]) if parent else (name, 0, 1, None)


class ServerModel:
    __slots__ = ("name", "description", "gpus", "rack_units", "backend_nics", "frontend_ports", "mgmt_port",
                 "bmc_port", "power_max_w", "cooling", "backend_nic_model", "backend_nic")

    def __init__(self, name, data, path, nics=None):
        for key in self.__slots__[1:-1]:
            setattr(self, key, data.get(key))
        self.name = name
        nics = nics or {}
        self.backend_nic_model = self.backend_nic_model or "ConnectX-7"
        if self.backend_nic_model not in nics:
            raise SpecError(path + ".backend_nic_model", "%r is not a NIC model of the catalog: use one of %s" % (
                self.backend_nic_model, ", ".join(sorted(nics)) or "none"))
        # The NIC model's facts (data/hardware.yml `nics`): what the rail NICs' RoCE settings add for it.
        self.backend_nic = nics[self.backend_nic_model]
        if len(self.backend_nics) != self.gpus:
            raise SpecError(path + ".backend_nics", "%d NICs listed for %d GPUs: a rail-optimized server has one "
                            "backend NIC per GPU" % (len(self.backend_nics), self.gpus))


class Catalog:
    def __init__(self, spec_models=None):
        data = load("hardware")
        spec_models = spec_models or {}
        self._switch_data = {}
        self._switches = {}
        self.servers = {}
        for name, raw in data["switches"].items():
            self._switch_data[name] = (SWITCH_MODEL.validate(raw, "catalog.switches." + name),
                                       "catalog.switches." + name)
        for name, validated in spec_models.get("switches", {}).items():
            self._switch_data[name] = (validated, "models.switches." + name)
        for name in spec_models.get("switches", {}):
            self.switch(name, "models.switches.%s.model" % name)   # a spec's own model is checked whole, used or not
        store = {}
        for name, raw in data["servers"].items():
            store[name] = (SERVER_MODEL.validate(raw, "catalog.servers." + name), "catalog.servers." + name)
        for name, validated in spec_models.get("servers", {}).items():
            store[name] = (validated, "models.servers." + name)
        self.nics = dict(data.get("nics") or {})
        for name, (validated, path) in store.items():
            self.servers[name] = ServerModel(name, validated, path, self.nics)

    @property
    def switches(self):
        """Every switch model by name, each as the first NOS it lists runs it."""
        return {name: self.switch(name, "models.switches") for name in self._switch_data}

    def switch(self, name, path, nos=None):
        """The model ``name`` (spec key ``path``) as ``nos`` runs it (default: the first NOS it lists);
        a NOS the model does not run is refused on the role's ``nos`` key, beside ``path``."""
        if name not in self._switch_data:
            self._unknown(self._switch_data, name, path, "models.switches")
        data, where = self._switch_data[name]
        nos = nos or data["nos"][0]
        if nos not in data["nos"]:
            runs = [other for other, (d, _w) in sorted(self._switch_data.items()) if nos in d["nos"]]
            raise SpecError(path.rsplit(".", 1)[0] + ".nos", "%s runs %s, not %s: choose a model that runs %s (%s) "
                            "or set nos: %s" % (name, "/".join(data["nos"]), nos, nos,
                                                ", ".join(runs) or "none in the catalog", data["nos"][0]))
        key = (name, nos)
        if key not in self._switches:
            self._switches[key] = SwitchModel(name, data, where, nos)
        return self._switches[key]

    def server(self, name, path):
        if name not in self.servers:
            self._unknown(self.servers, name, path, "models.servers")
        return self.servers[name]

    @staticmethod
    def _unknown(store, name, path, where):
        import difflib
        near = difflib.get_close_matches(name, list(store), n=1)
        raise SpecError(path, "unknown model %r%s; known: %s (or define it under %s)" % (
            name, "; did you mean %r?" % near[0] if near else "", ", ".join(sorted(store)), where))
