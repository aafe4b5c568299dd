"""How a twin test reaches an EOS switch's eAPI stand-in: the files the twin's EOS plane writes
(twin/emulators/eos/plane.py), read the same way by the emulator's own test and by the deploy's."""
import os

from gpufabric import twin


def eapi_access(cluster, host):
    """(port, password, CA bundle path) of ``host``'s eAPI on the twin of ``cluster``: it listens on 127.0.0.1."""
    base = twin.state_dir(cluster)
    with open(os.path.join(base, host, "eos", "eapi.port")) as f:
        port = int(f.read())
    with open(os.path.join(base, "eos-eapi", "password")) as f:
        password = f.read().strip()
    return port, password, os.path.join(base, "eos-eapi", "ca.pem")
