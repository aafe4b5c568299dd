"""A device's collected state as plain data, so that validation can collect in one job and check in another.

AWX spreads a sliced job over its execution nodes; each slice collects its own devices, and the checks that need
both ends of a link run once, later, over what every slice collected (docs/awx.md, "Sliced validation"). Between
the two, the observations travel as host facts (AWX's fact cache), that is as JSON: ``encode`` turns a DeviceState
into JSON-safe data that ``decode`` turns back into an equal DeviceState, tuples, sets and non-string dict keys
included. The check job's collector (``carried``) hands each device its decoded state; a device no slice
collected is an ERROR of every source its checks need, never a PASS.
"""
import json
import os

from ..files import replace_file
from .state import DeviceState

# AWX's fact cache (awx/main/models/jobs.py, start_fact_cache and finish_fact_cache) writes each host's facts before a
# job as <cache dir>/<host>, plain JSON, and stores after it the files the job rewrote. ansible-core 2.19's jsonfile
# cache plugin reads and writes s1_<host> instead, its JSON wrapped as a string under __payload__ (ansible/ansible
# issues 86028 and 85874), so neither side sees the other's files. The observations are therefore written and read
# here, in AWX's form, by the validation itself.
FORMAT = 1
# The host fact holding a device's encoded state (playbooks/validate.yml, validate_phase collect and check).
FACT = "fabric_observation"
_FIELDS = tuple(f for f in DeviceState.__slots__ if f not in ("name", "role"))


def _pack(value):
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value) and "__t" not in value:
            return {k: _pack(v) for k, v in value.items()}
        return {"__t": "dict", "items": [[_pack(k), _pack(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {"__t": "tuple", "items": [_pack(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"__t": "set", "items": [_pack(v) for v in sorted(value, key=repr)]}
    if isinstance(value, list):
        return [_pack(v) for v in value]
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    raise TypeError("cannot carry a %s in an observation" % type(value).__name__)


def _unpack(value):
    if isinstance(value, list):
        return [_unpack(v) for v in value]
    if isinstance(value, dict):
        kind = value.get("__t")
        if kind == "dict":
            return {_unpack(k): _unpack(v) for k, v in value["items"]}
        if kind == "tuple":
            return tuple(_unpack(v) for v in value["items"])
        if kind == "set":
            return {_unpack(v) for v in value["items"]}
        return {k: _unpack(v) for k, v in value.items()}
    return value


def encode(state, sources=()):
    """JSON-safe data of a DeviceState collected for ``sources``."""
    return {"format": FORMAT, "name": state.name, "role": state.role, "sources": sorted(sources),
            "fields": {f: _pack(getattr(state, f)) for f in _FIELDS}}


def recording(collector, kept):
    """``collector`` that also keeps each device's encoded state in ``kept`` ({name: data})."""
    def collect(dev, sources, expect):
        state = collector(dev, sources, expect)
        kept[dev.name] = encode(state, sources)
        return state
    return collect


def decode(data):
    """The DeviceState ``encode`` made ``data`` of; ValueError when ``data`` is not one."""
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("fields"), dict):
        raise ValueError("not an observation of format %d" % FORMAT)
    state = DeviceState(data["name"], data["role"])
    for field in _FIELDS:
        if field in data["fields"]:
            setattr(state, field, _unpack(data["fields"][field]))
    return state


def carried(observation_of):
    """A collector (validate.runner.validate) over states collected elsewhere: ``observation_of(name)`` gives a
    device's encoded state, or None when no job collected it."""
    def collect(dev, sources, _expect):
        data = observation_of(dev.name)
        try:
            state = decode(data) if data is not None else None
        except ValueError as exc:
            state, why = None, "its %s fact is unreadable (%s)" % (FACT, exc)
        else:
            why = "no %s fact: no collect job reached it (run validate_phase=collect over every slice first)" % FACT
        if state is None or state.name != dev.name:
            state = DeviceState(dev.name, dev.role)
            state.errors = {source: why for source in sources}
            return state
        for source in sorted(set(sources) - set(data.get("sources") or ())):
            state.errors[source] = "the collect job did not collect it (it ran with other checks selected)"
        return state
    return collect


def write_fact_files(directory, kept):
    """Each device's encoded state as the fact ``FACT`` in its facts file ``directory``/<host>, the form AWX's fact
    cache reads; the host's other facts there (AWX wrote them before the job) stay."""
    os.makedirs(directory, exist_ok=True)
    for host, data in kept.items():
        if os.sep in host or host.startswith("."):
            continue
        path = os.path.join(directory, host)
        try:
            with open(path, encoding="utf-8") as f:
                facts = json.load(f)
        except (OSError, ValueError):
            facts = {}
        facts = facts if isinstance(facts, dict) else {}
        facts[FACT] = data
        replace_file(path, json.dumps(facts), mode=0o600)


def read_fact_file(directory, host):
    """The encoded state in ``directory``/<host> (AWX's form of a host's facts), or None."""
    if not directory or os.sep in host:
        return None
    try:
        with open(os.path.join(directory, host), encoding="utf-8") as f:
            facts = json.load(f)
    except (OSError, ValueError):
        return None
    return facts.get(FACT) if isinstance(facts, dict) else None
