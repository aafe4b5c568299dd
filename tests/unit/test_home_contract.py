"""The home contract (home_contract.py): every NOS of the registry keeps it, and a home lacking a piece fails with
the piece named, whichever piece it is."""
import os
import types

import pytest
from conftest import ROOT

from gpufabric import home_contract, nos_registry
from gpufabric.twin import emulators


# A home being built, piece by piece, and exactly the pieces it still lacks (issue 43: EOS has render and its schema
# gate, the deploy, collectors, BGP gate reader and drain lines; ZTP comes next, docs/eos.md). The list only shrinks:
# a piece added fails the test below until it leaves this list, and any other missing piece fails it too.
UNDER_CONSTRUCTION = {
    "eos": ["ztp_switch_files missing (needed by ZTP)", "ztp_boot_option missing (needed by ZTP)",
            "port_aliases missing (needed by ZTP)", "ztp_config_problems missing (needed by ZTP)"],
}
# Homes whose deploy role is not written yet.
ROLE_TO_COME = {}


@pytest.mark.parametrize("name", nos_registry.names())
def test_every_home_keeps_the_contract(name):
    assert home_contract.problems(name) == ["nos %s: %s" % (name, p) for p in UNDER_CONSTRUCTION.get(name, [])]


@pytest.mark.parametrize("name", nos_registry.names())
def test_every_home_has_the_deploy_role_its_platform_names(name):
    role = nos_registry.deploy_facts(name)["role"]
    if name in ROLE_TO_COME:
        assert role == ROLE_TO_COME[name]
        assert not os.path.isdir(os.path.join(ROOT, "roles", role.split(".")[-1])), "drop it from ROLE_TO_COME"
        return
    assert role.startswith("gpucluster.fabric.")
    path = os.path.join(ROOT, "roles", role.split(".")[-1])
    for part in ("tasks/main.yml", "tasks/pending.yml", "meta/argument_specs.yml"):
        assert os.path.isfile(os.path.join(path, part)), (role, part)


def _copy(name, drop=(), **replace):
    """A stand-in for NOS ``name``'s home: the real home's names, less ``drop``, with ``replace``."""
    real = nos_registry.home(name)
    fake = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
    for piece in drop:
        delattr(fake, piece)
    for key, value in replace.items():
        setattr(fake, key, value)
    return fake


def test_the_stand_in_of_a_whole_home_keeps_it():
    for name in nos_registry.names():
        assert home_contract.problems(name, _copy(name)) == ["nos %s: %s" % (name, p)
                                                             for p in UNDER_CONSTRUCTION.get(name, [])]


@pytest.mark.parametrize("piece", home_contract.members(home_contract.NosHome))
def test_a_home_lacking_any_piece_fails_naming_it(piece):
    got = home_contract.problems("sonic", _copy("sonic", drop=[piece]))
    assert got[0] == "nos sonic: %s missing (needed by %s)" % (piece, home_contract.NEEDED_BY[piece])
    # A missing collectors also lacks every observation's command and parser; nothing else goes missing.
    assert len(got) == 1 or piece == "collectors"


def test_a_piece_that_is_there_but_not_callable_fails():
    got = home_contract.problems("cumulus", _copy("cumulus", render_switches="startup.yaml"))
    assert got == ["nos cumulus: render_switches not callable (needed by render (the build))"]


def test_a_piece_of_a_piece_is_named_too():
    real = nos_registry.home("sonic")
    gate = types.SimpleNamespace(GATE_COMMANDS=real.bgp_gate.GATE_COMMANDS, observe=real.bgp_gate.observe)
    got = home_contract.problems("sonic", _copy("sonic", bgp_gate=gate))
    assert got == ["nos sonic: bgp_gate.sessions missing (needed by the deploy's BGP gate)"]


def test_a_collector_without_an_observation_validation_needs_fails_naming_it():
    real = nos_registry.home("cumulus").collectors
    collectors = types.SimpleNamespace(COMMANDS={k: v for k, v in real.COMMANDS.items() if k != "routes"},
                                       PARSERS={k: v for k, v in real.PARSERS.items() if k != "qos"},
                                       SSH_TOOLS={k: v for k, v in real.SSH_TOOLS.items() if k != "nv"})
    got = home_contract.problems("cumulus", _copy("cumulus", collectors=collectors))
    assert got == ["nos cumulus: collectors.COMMANDS['routes'] no command for the routes observation (needed by "
                   "validation)",
                   "nos cumulus: collectors.PARSERS['qos'] no parser for the qos observation (needed by validation)",
                   "nos cumulus: collectors.SSH_TOOLS['nv'] no way to run 'nv' over SSH (needed by validation)"]


def test_tenancy_is_needed_only_by_a_role_that_serves_tenants(monkeypatch):
    assert "tenants" in nos_registry.deploy_facts("sonic")["plays"]
    assert home_contract.problems("sonic", _copy("sonic", drop=["tenancy"])) == [
        "nos sonic: tenancy missing (needed by tenancy (tenants.yml reads the running leaves))"]
    facts = dict(nos_registry.deploy_facts("sonic"), plays=["spare"])
    monkeypatch.setattr(nos_registry, "deploy_facts", lambda name: facts)
    assert home_contract.problems("sonic", _copy("sonic", drop=["tenancy"])) == []


def test_every_nos_has_an_emulator_keeping_the_twin_plane_contract():
    """The twin finds each NOS's emulator by name (twin/emulators/<nos>/), not through its home."""
    for name in nos_registry.names():
        assert emulators.problems(name) == []
        assert not hasattr(nos_registry.home(name), "twin_plane")


def test_an_emulator_plane_lacking_a_piece_fails_naming_it():
    for name in nos_registry.names():
        real = emulators.plane(name)
        wanted = "boot_facts" if real.SELF_APPLYING else "layout"
        plane = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real)
                                         if not k.startswith("__") and k not in (wanted, "forget")})
        assert emulators.problems(name, plane) == ["emulator %s: plane.forget missing (needed by the twin)" % name,
                                                   "emulator %s: plane.%s missing (needed by the twin)" % (name, wanted)]


def test_a_nos_without_an_emulator_is_refused_by_name():
    with pytest.raises(ValueError, match="no emulator for NOS 'nosuch'"):
        emulators.plane("nosuch")
