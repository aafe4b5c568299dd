"""Value mistakes in a spec file: each fails in one line naming file, line, column, key and the fix;
the published JSON Schema is generated from the same declaration and accepts every example."""
import glob
import json
import os
import re
import sys

import jsonschema
import pytest
import yaml

from conftest import ROOT
from gpufabric.errors import SpecError
from gpufabric.specfile import plan_spec_file

sys.path.insert(0, os.path.join(ROOT, "scripts"))
from gen_spec_doc import SCHEMA_PATH, schema_text  # noqa: E402

LAB = os.path.join(ROOT, "inventories", "lab", "lab.topology.yml")
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "inventories", "*", "*.topology.yml")))


def lab_with(tmp_path, old, new):
    with open(LAB) as f:
        text = f.read()
    assert old in text, old
    path = tmp_path / "lab.topology.yml"
    path.write_text(text.replace(old, new, 1))
    return str(path)


def lab_plus(tmp_path, extra):
    with open(LAB) as f:
        text = f.read()
    path = tmp_path / "lab.topology.yml"
    path.write_text(text + extra)
    return str(path)


def error_of(path):
    with pytest.raises(SpecError) as caught:
        plan_spec_file(path)
    text = str(caught.value)
    assert "\n" not in text and "Traceback" not in text
    return text


@pytest.mark.parametrize("old, new, expected", [
    ("pool: 192.168.0.0/22", "pool: fd00::/64",
     r"oob\.pool: 'fd00::/64' is an IPv6 network; this pool is IPv4: write one like 10\.0\.0\.0/16"),
    ("pool: 192.168.0.0/22", "pool: 8.8.0.0/16",
     r"oob\.pool: '8\.8\.0\.0/16' is a public range: use a private one \(10\.0\.0\.0/8"),
    ("pool: 192.168.0.0/22", "pool: 127.0.0.0/16", r"oob\.pool: '127\.0\.0\.0/16' is loopback"),
    ("pool: 192.168.0.0/22", "pool: 192.168.0.1/22", r"oob\.pool: '192\.168\.0\.1/22' has host bits set: the network is 192\.168\.0\.0/22"),
    ("pool: 192.168.0.0/22", "pool: mgmt.example.com", r"oob\.pool: 'mgmt\.example\.com' is not a network in CIDR form"),
    ("model: XE9680", "model: XE9860", r"servers\.model: unknown model 'XE9860'"),
    ("  name: lab\n", "  name: Lab_1\n", r"cluster\.name: 'Lab_1' is not valid: lowercase letters"),
    ("  name: lab\n", "  name: lab\n  hostnames: {server: 'gpu_{n}'}\n",
     r"cluster\.hostnames\.server: pattern 'gpu_\{n\}' gives 'gpu_1', not a valid host name"),
])
def test_value_mistake_fails_in_one_line(tmp_path, old, new, expected):
    text = error_of(lab_with(tmp_path, old, new))
    assert re.match(r"^lab\.topology\.yml:\d+:\d+: ", text), text
    assert re.search(expected, text), text


@pytest.mark.parametrize("extra, expected", [
    ("switch_config:\n  ntp_servers: [ntp.example.com]\n",
     r"lab\.topology\.yml:\d+:\d+: switch_config\.ntp_servers\[0\]: 'ntp\.example\.com' is a host name: an IPv4 address is needed"),
    ("switch_config:\n  syslog_servers: ['2001:db8::1']\n",
     r"switch_config\.syslog_servers\[0\]: '2001:db8::1' is an IPv6 address: an IPv4 address is needed"),
    ("switch_config:\n  qos_profile: rocev2_losless\n",
     r"lab\.topology\.yml:\d+:3: switch_config\.qos_profile: unknown QoS profile 'rocev2_losless'; did you mean 'rocev2_lossless'\?"),
])
def test_switch_config_value_mistakes(tmp_path, extra, expected):
    assert re.search(expected, error_of(lab_plus(tmp_path, extra)))


@pytest.mark.parametrize("asn_pool, expected", [
    ("64000-64100", "is not within one private ASN block: use a range inside 64512-65534 or 4200000000-4294967294"),
    ("65000-64600", "FIRST is above LAST: write 64600-65000"),
    ("65000-4200000100", "is not within one private ASN block"),
    ("4200000000-4294967295", "is not within one private ASN block"),
    ("as65000", "write it as FIRST-LAST, e.g. 64512-65534"),
])
def test_asn_ranges_are_private(tmp_path, asn_pool, expected):
    path = lab_with(tmp_path, "  spine: {model: Z9664F-ON}\n", "  spine: {model: Z9664F-ON}\n  asn_pool: '%s'\n" % asn_pool)
    text = error_of(path)
    assert "backend.asn_pool: " in text and expected in text, text


def test_private_asn_ranges_are_accepted(tmp_path):
    for asn_pool in ("64512-65534", "4200000000-4294967294"):
        path = lab_with(tmp_path, "  spine: {model: Z9664F-ON}\n", "  spine: {model: Z9664F-ON}\n  asn_pool: '%s'\n" % asn_pool)
        assert plan_spec_file(path).summary["gpus"] == 32


def test_server_mtu_above_switch_mtu(tmp_path):
    path = lab_with(tmp_path, "  spine: {model: Z9664F-ON}\n", "  spine: {model: Z9664F-ON}\n  mtu: 9100\n  server_mtu: 9216\n")
    text = error_of(path)
    assert re.search(r":\d+:3: backend\.server_mtu: 9216 is above the switch MTU backend\.mtu 9100: .* use at most 9100", text)


def test_duplicate_key_and_yaml_syntax_have_line_and_column(tmp_path):
    assert error_of(lab_with(tmp_path, "count: 4", "count: 4\n  count: 8")) == \
        "lab.topology.yml:10:3: duplicate key 'count' (first at line 9): YAML keeps only the last one; keep one"
    text = error_of(lab_with(tmp_path, "  leaf: {model: Z9332F-ON,", "  leaf: {model: Z9332F-ON"))
    assert re.match(r"^lab\.topology\.yml:\d+:\d+: YAML syntax error: ", text), text


def refusal(func, *args):
    """The SpecError ``func(*args)`` raises, or None."""
    try:
        func(*args)
    except SpecError as exc:
        return exc
    return None


def pools_of(spec):
    """(dotted key, CIDR) of every IPv4 pool the spec's networks use."""
    out = [("oob.pool", spec.get("oob", {}).get("pool", "10.250.0.0/16"))]
    defaults = {"backend": {"server_links": "10.0.0.0/12", "loopbacks": "10.32.0.0/16", "leaf_spine": "10.16.0.0/13",
                            "spine_superspine": "10.24.0.0/13"},
                "frontend": {"servers": "10.64.0.0/14", "loopbacks": "10.72.0.0/16", "leaf_spine": "10.68.0.0/15",
                             "spine_superspine": "10.70.0.0/15"}}
    for network, keys in defaults.items():
        if spec.get(network) is None:
            continue
        for key, default in keys.items():
            out.append(("%s.pools.%s" % (network, key), (spec[network].get("pools") or {}).get(key, default)))
    return out


def set_key(spec, dotted, value):
    node = spec
    parts = dotted.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {}) if node.get(part) is not None else node.setdefault(part, {})
    node[parts[-1]] = value


@pytest.mark.parametrize("example", ["lab", "superpod-1k", "planes-3tier-small", "tor-lab"])
def test_pool_size_hints_are_accepted(tmp_path, example):
    """Shrink each pool to a /30: the error names a prefix; that prefix must then be accepted for this
    pool (a hint never sends the user round in a loop)."""
    from gpufabric.plan import build_plan
    with open(os.path.join(ROOT, "inventories", example, example + ".topology.yml")) as f:
        base = yaml.safe_load(f)
    base.pop("plugin", None)
    checked = 0
    for key, cidr in pools_of(base):
        spec = json.loads(json.dumps(base))
        network = cidr.split("/")[0]
        set_key(spec, key, network + "/30")
        error = refusal(build_plan, spec)
        if error is None:
            continue  # a pool this fabric does not use (e.g. spine-superspine links of two tiers)
        hint = re.search(r"use a /(\d+) or larger", str(error))
        if error.path != key or not hint:
            continue  # another key failed first (e.g. an overlap): not this pool's hint
        spec = json.loads(json.dumps(base))
        set_key(spec, key, "%s/%s" % (network, hint.group(1)))
        try:
            build_plan(spec)
        except SpecError as exc:
            assert not (exc.path == key and "too small" in exc.message), "%s: hinted /%s refused: %s" % (
                key, hint.group(1), exc)
        checked += 1
    assert checked >= 3


def test_json_schema_is_generated_from_the_declaration():
    with open(SCHEMA_PATH) as f:
        assert f.read() == schema_text(), "docs/topology.schema.json is stale: run make docs"


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_examples_carry_the_modeline_and_pass_the_schema(path):
    with open(path) as f:
        first = f.readline()
        f.seek(0)
        data = yaml.safe_load(f)
    schema_file = os.path.normpath(os.path.join(os.path.dirname(path), first.split("$schema=")[1].strip()))
    assert first.startswith("# yaml-language-server: $schema=") and schema_file == SCHEMA_PATH
    with open(SCHEMA_PATH) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = list(jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).iter_errors(data))
    assert not errors, [e.message for e in errors]


def test_schema_rejects_what_the_spec_rejects():
    with open(SCHEMA_PATH) as f:
        validator = jsonschema.Draft202012Validator(json.load(f), format_checker=jsonschema.FormatChecker())
    with open(LAB) as f:
        spec = yaml.safe_load(f)
    bad = json.loads(json.dumps(spec))
    bad["servers"]["cuont"] = 4
    bad["oob"]["pool"] = "fd00::/64"
    bad["backend"]["design"] = "rail_optimised"
    messages = " | ".join(e.message for e in validator.iter_errors(bad))
    assert "'cuont' was unexpected" in messages and "fd00::/64" in messages and "rail_optimised" in messages
