"""The machine's side of a command run inside a twin device's network namespace.

A device's own commands run in its namespace (`ip netns exec`, the netns connection), as on the device. What the twin
serves for the device lives in the machine's namespaces (a NOS's API stand-in on the machine's 127.0.0.1, the
namespaces a stand-in makes): a command that needs it reaches it through the nearest ancestor process outside the
device's namespace. Kept out of twin/ so that the stand-ins' commands load nothing more than they use.
"""
import os


def machine_process():
    """A process in the machine's network and mount namespaces: the nearest ancestor of this command outside the
    device's network namespace (whatever ran `ip netns exec`, the netns connection's side on the controller). A
    command run in a device's namespace reaches what the twin serves on the machine's namespaces (a NOS's API
    stand-in, the namespaces it makes) through it. None when there is none (not run inside a device's namespace)."""
    own = os.readlink("/proc/self/ns/net")
    pid = os.getpid()
    while pid > 1:
        with open("/proc/%d/status" % pid, encoding="utf-8") as f:
            pid = int(next(line.split()[1] for line in f if line.startswith("PPid:")))
        try:
            if pid > 1 and os.readlink("/proc/%d/ns/net" % pid) != own:
                return pid
        except OSError:
            continue
    return None


def enter_machine_network():
    """Move this (single-threaded) process into the machine's network namespace (machine_process's); False when it
    was not run inside a device's namespace. Its files stay the device's (the mount namespace is not changed)."""
    import ctypes

    pid = machine_process()
    if pid is None:
        return False
    fd = os.open("/proc/%d/ns/net" % pid, os.O_RDONLY)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.setns(fd, 0x40000000) != 0:     # CLONE_NEWNET
            err = ctypes.get_errno()
            raise OSError(err, "setns into the machine's network namespace: %s" % os.strerror(err))
    finally:
        os.close(fd)
    return True
