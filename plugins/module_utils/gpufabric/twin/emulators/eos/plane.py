"""The EOS plane of the twin, until the EOS emulator (eAPI's JSON-RPC over HTTPS, configure sessions) exists: the
twin asks every NOS's plane at up, down and leftovers (twin/lifecycle.py), so this one answers for a twin without EOS
switches and refuses, in one line, a twin that has some."""
SELF_APPLYING = True
CONFIG_FILE = "startup-config"
PORT_PATTERN = "Ethernet*"
REQUIRES = ()
WHY = ("the twin has no Arista EOS emulator yet (issue 43's next part, docs/eos.md): give the twin's inventory "
       "switches of another NOS (docs/twin.md)")


class PlaneError(RuntimeError):
    """What the EOS plane refuses."""


def boot_facts(text):
    raise PlaneError(WHY)


def empty_frr_conf(host):
    raise PlaneError(WHY)


def apply(state_dir, switches):
    """Refuse a twin with EOS switches; nothing to do for one without."""
    if switches:
        raise PlaneError("%s (%s)" % (WHY, ", ".join(sorted(name for name, _release, _text in switches)[:3])))
    return []


def forget(state_dir, hosts):
    return []


def remove(state_dir, names):
    return []


def leftovers(names):
    return []
