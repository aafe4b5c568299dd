"""The SONiC emulator's own YANG check (twin/emulators/sonic/yang_check.py, libyang and SONiC's models called
directly) and the deploy's YANG gate (nos/sonic/yang, product code) are written apart; on the same CONFIG_DBs they
must agree on valid or not. A case where they disagree fails, named."""
import copy

from conftest import YANG_MODELS, lab_leaf_config_db, needs_sonic_yang

needs_sonic_yang()

from gpufabric import nos_registry  # noqa: E402
from gpufabric.twin.emulators.sonic import yang_check  # noqa: E402


def _edit(change):
    config = lab_leaf_config_db()
    change(config)
    return config


def cases():
    port = sorted(lab_leaf_config_db()["PORT"])[0]
    return [
        ("lab-leaf", lab_leaf_config_db()),
        ("mtu-out-of-range", _edit(lambda c: c["PORT"][port].update(mtu="99999"))),
        ("unknown-leaf", _edit(lambda c: c["PORT"][port].update(spede="100000"))),
        ("admin-status-word", _edit(lambda c: c["PORT"][port].update(admin_status="sideways"))),
        ("member-of-no-port", _edit(lambda c: c.setdefault("PORTCHANNEL_MEMBER", {}).update(
            {"PortChannel99|Ethernet999": {}}))),
        ("interface-of-no-port", _edit(lambda c: c.setdefault("INTERFACE", {}).update(
            {"Ethernet999|10.9.9.9/31": {}}))),
        ("key-with-too-many-parts", _edit(lambda c: c["PORT"].update({"Ethernet0|x|y": {}}))),
        ("table-without-model", _edit(lambda c: c.update(NO_SUCH_TABLE={"x": {"a": "b"}}))),
        ("empty", {}),
    ]


def test_the_emulator_and_the_deploy_agree_on_what_is_valid():
    models = yang_check.load(YANG_MODELS)
    home = nos_registry.home("sonic")
    disagree = []
    for name, config in cases():
        emulator = yang_check.problems(models, copy.deepcopy(config))
        deploy = home.yang_problems(copy.deepcopy(config), YANG_MODELS)
        if bool(emulator) != bool(deploy):
            disagree.append("case %s: the emulator says %r, the deploy's gate %r" % (name, emulator, deploy))
    assert not disagree, "\n".join(disagree)


def test_the_emulator_names_where_a_config_is_refused():
    models = yang_check.load(YANG_MODELS)
    found = dict((name, yang_check.problems(models, config)) for name, config in cases())
    assert found["lab-leaf"] == [] and found["empty"] == []
    assert "99999" in found["mtu-out-of-range"][0] and found["mtu-out-of-range"][0].startswith("PORT|")
    assert "has no leaf spede" in found["unknown-leaf"][0]
    assert found["table-without-model"] == ["NO_SUCH_TABLE: no YANG model has this table"]
    assert found["key-with-too-many-parts"][0].startswith("PORT|Ethernet0|x|y: a key of 3 part(s)")
    assert found["member-of-no-port"] and found["interface-of-no-port"]
