"""What the twin's connection (plugins/connection/netns.py) gives one device's commands besides its namespace and
its FRR pathspace: directories bound over others and directories put first on PATH, as the device's own system
has them (its NOS's files where the NOS keeps them, its NOS's commands). A NOS's twin stand-in writes them for each
of its switches when the twin comes up (its NOS's emulator, twin/emulators/<nos>/), into the device's run directory:

    /run/gpufabric-twin/<cluster>/<device>/netns-env.json   {"binds": [[source, target], ...], "path": [dir, ...]}

The connection reads the file of the device it reaches and applies what it finds; a device without one (a server,
a switch whose NOS needs nothing more) gets nothing. It goes with the device's run directory (``down``, or the
plane's ``forget``).
"""
import json
import os

from . import daemons

FILE = "netns-env.json"


def path_of(state_dir, host):
    return os.path.join(state_dir, host, FILE)


def write(state_dir, host, binds=(), path=()):
    """Record ``binds`` ([(source directory, target directory)]) and ``path`` (directories) for ``host``; returns
    whether the file changed."""
    text = json.dumps({"binds": [list(b) for b in binds], "path": list(path)}, indent=1, sort_keys=True) + "\n"
    target = path_of(state_dir, host)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    return daemons.write_if_changed(target, text, 0o644, owner=None)


def read(host, root="/run/gpufabric-twin"):
    """{"binds": [[source, target]], "path": [dirs]} written for ``host`` by any twin on the machine (namespace names are
    the machine's), or None when there is none."""
    import glob
    found = sorted(glob.glob(os.path.join(glob.escape(root), "*", glob.escape(host), FILE)))
    if not found:
        return None
    with open(found[0], encoding="utf-8") as f:
        data = json.load(f)
    return {"binds": [list(b) for b in data.get("binds") or ()], "path": list(data.get("path") or ())}


def shell_prefix(env):
    """Shell run before a command in the device's namespace (in a mount namespace of its own, as `ip netns exec`
    gives each command) so that it sees what ``env`` gives it: the binds, then PATH."""
    import shlex
    # Several commands of one batch share the shell's mount namespace: a source no longer seen is one an earlier
    # command already bound over its target (a switch's /etc/<nos>/<host> is hidden once bound over /etc/<nos>), kept.
    lines = ["if [ -d %s ]; then mount --bind %s %s || exit 97; fi"
             % (shlex.quote(source), shlex.quote(source), shlex.quote(target))
             for source, target in env["binds"] if os.path.isdir(source)]
    if env["path"]:
        lines.append("PATH=%s:$PATH && export PATH" % ":".join(shlex.quote(p) for p in env["path"]))
    return "".join(line + "; " for line in lines)


def remove(state_dir, host):
    try:
        os.remove(path_of(state_dir, host))
        return True
    except OSError:
        return False
