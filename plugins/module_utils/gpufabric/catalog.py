"""The hardware catalog: built-in models (data/hardware.yml) plus the spec's own `models`."""
from .datafiles import load
from .errors import SpecError
from .spec import SERVER_MODEL, SWITCH_MODEL


class SwitchModel:
    """A switch model with its ports expanded: (name, speed, use, form_factor) per front-panel port."""

    __slots__ = ("name", "description", "mgmt_port", "ports", "form_factors")

    def __init__(self, name, data, path):
        self.name = name
        self.description = data["description"]
        self.mgmt_port = data["mgmt_port"]
        self.ports = []
        lane = 0
        for g, group in enumerate(data["port_groups"]):
            lane = group["first_lane"] if group["first_lane"] is not None else lane
            for dummy in range(group["count"]):
                try:
                    pname = data["port_name"].format(lane=lane, index=len(self.ports))
                except (KeyError, IndexError, ValueError) as exc:
                    raise SpecError(path + ".port_name", "cannot format %r (%s): use {lane} and {index}"
                                    % (data["port_name"], exc))
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
        self.switches = {}
        self.servers = {}
        kinds = (("switches", SWITCH_MODEL, SwitchModel, self.switches),
                 ("servers", SERVER_MODEL, ServerModel, self.servers))
        for kind, schema, cls, store in kinds:
            for name, raw in data[kind].items():
                store[name] = (raw, "catalog.%s.%s" % (kind, name), False)
            for name, validated in spec_models.get(kind, {}).items():
                store[name] = (validated, "models.%s.%s" % (kind, name), True)
            for name, (raw, path, done) in list(store.items()):
                store[name] = cls(name, raw if done else schema.validate(raw, path), path)

    def switch(self, name, path):
        return self._get(self.switches, name, path, "models.switches")

    def server(self, name, path):
        return self._get(self.servers, name, path, "models.servers")

    @staticmethod
    def _get(store, name, path, where):
        if name not in store:
            import difflib
            near = difflib.get_close_matches(name, list(store), n=1)
            raise SpecError(path, "unknown model %r%s; known: %s (or define it under %s)" % (
                name, "; did you mean %r?" % near[0] if near else "", ", ".join(sorted(store)), where))
        return store[name]
