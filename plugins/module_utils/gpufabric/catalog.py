"""The hardware catalog: built-in models (data/hardware.yml) plus the spec's own `models`."""
from .datafiles import load
from .errors import SpecError
from .nos import platform
from .spec import SERVER_MODEL, SWITCH_MODEL


class SwitchModel:
    """A switch model as one NOS runs it, its ports expanded: (name, speed, use, form_factor) per
    front-panel port, named the way that NOS names them (nos/platforms.yml) unless the model says."""

    __slots__ = ("name", "description", "mgmt_port", "ports", "form_factors", "nos", "runs", "platform")

    def __init__(self, name, data, path, nos):
        self.name = name
        self.description = data["description"]
        self.runs = tuple(data["nos"])
        self.nos = nos
        self.platform = platform(nos, name)
        self.mgmt_port = data["mgmt_port"] or self.platform["mgmt_interface"]
        pattern = data["port_name"] or self.platform["interface_name"]
        self.ports = []
        lane = 0
        for g, group in enumerate(data["port_groups"]):
            lane = group["first_lane"] if group["first_lane"] is not None else lane
            for dummy in range(group["count"]):
                try:
                    pname = pattern.format(lane=lane, index=len(self.ports), number=len(self.ports) + 1)
                except (KeyError, IndexError, ValueError) as exc:
                    raise SpecError(path + ".port_name", "cannot format %r (%s): use {lane}, {index} and {number}"
                                    % (pattern, exc))
                self.ports.append((pname, group["speed"], group["use"], group["form_factor"]))
                lane += group["name_step"] or group["lanes"]
        names = [p[0] for p in self.ports]
        if len(set(names)) != len(names):
            raise SpecError(path + ".port_groups", "port names repeat (%s): give the groups distinct first_lane values"
                            % sorted({n for n in names if names.count(n) > 1})[:3])

    def usable(self, use):
        return [i for i, p in enumerate(self.ports) if p[2] == use]


class ServerModel:
    __slots__ = ("name", "description", "gpus", "rack_units", "backend_nics", "frontend_ports", "mgmt_port",
                 "bmc_port")

    def __init__(self, name, data, path):
        for key in self.__slots__[1:]:
            setattr(self, key, data[key])
        self.name = name
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
        for name, (validated, path) in store.items():
            self.servers[name] = ServerModel(name, validated, path)

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
