"""A NOS emulator's serving process: one per twin for every switch of that NOS (twin/emulators/<name>/plane.py, the
eAPI's and the NVUE API's), its files in the plane's directory of the twin's state (``base``):

    password (0600), switches.json (what it serves), daemon.pid, daemon.log, ready (written once it serves)

The plane's ``apply`` starts it (plane_start) and ``remove`` stops it (plane_stop); in the process, the plane's
``serve`` reads what to serve (plane_listing), boots its switches (plane_boot) and serves until SIGTERM (plane_serve).
"""
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time


def write_state(path, text, mode=0o644):
    """``text`` written to ``path`` (created with ``mode``) in one rename: a plane's own state files."""
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def module_utils():
    """The directory holding the package ``gpufabric``: the PYTHONPATH of a plane's process and commands."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def write_command(bin_dir, name, module, what):
    """A switch's command for the machine (``bin_dir``/``name``): a Python script running ``main`` of
    ``gpufabric.<module>`` from this checkout; ``what`` is its comment line. Written only when it differs (twins of
    other clusters may write the same one at the same time). Returns whether it changed."""
    from .daemons import write_if_changed

    os.makedirs(bin_dir, exist_ok=True)
    text = ("#!%s\n# %s (gpufabric %s).\nimport sys\nsys.path.insert(0, %r)\nfrom gpufabric.%s import main\n"
            "sys.exit(main(sys.argv[1:]))\n" % (sys.executable, what, module.replace(".", "/") + ".py", module_utils(),
                                                module))
    return write_if_changed(os.path.join(bin_dir, name), text, 0o755, owner=None)


def plane_pid(base, plane):
    """The pid in ``base``/daemon.pid while that process runs module ``plane`` (twin.emulators.<name>.plane), else None."""
    try:
        with open(os.path.join(base, "daemon.pid")) as f:
            pid = int(f.read().strip())
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return pid if plane.encode() in f.read() else None
    except (OSError, ValueError):
        return None


def plane_stop(base, plane):
    """Stop the plane's process (SIGTERM, SIGKILL after 10 s); False when none ran."""
    pid = plane_pid(base, plane)
    if pid is None:
        return False
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while os.path.exists("/proc/%d" % pid) and time.monotonic() < deadline:
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
        except ChildProcessError:
            pass
        time.sleep(0.05)
    if os.path.exists("/proc/%d" % pid):
        os.kill(pid, signal.SIGKILL)
    return True


def plane_password(base):
    """``base``/password (0600), made once per twin: what each switch's API accepts."""
    password = os.path.join(base, "password")
    if not os.path.exists(password):
        write_state(password, secrets.token_urlsafe(18) + "\n", 0o600)


def plane_start(base, plane, state_dir, switches, what, timeout, error):
    """Serve ``switches`` ([(host, release, ...)]) from ``python -m gpufabric.<plane> --state-dir state_dir``: started,
    or restarted when the set of switches in ``base``/switches.json changed, then waited for until it writes
    ``base``/ready. ``what`` is (the API, the switches) in the changes and in ``error``, raised when it did not start
    within ``timeout`` seconds with the last line of its daemon.log. Returns changes."""
    wanted = json.dumps({"switches": [[s[0], s[1]] for s in sorted(switches)]}, indent=1) + "\n"
    listing, ready = os.path.join(base, "switches.json"), os.path.join(base, "ready")
    try:
        with open(listing, encoding="utf-8") as f:
            same = f.read() == wanted
    except OSError:
        same = False
    if same and plane_pid(base, plane) and os.path.exists(ready):
        return []
    changes = ["%s stopped" % what[0]] if plane_stop(base, plane) else []
    write_state(listing, wanted)
    if os.path.exists(ready):
        os.remove(ready)
    env = dict(os.environ, PYTHONPATH=module_utils())
    with open(os.path.join(base, "daemon.log"), "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "gpufabric." + plane, "--state-dir", state_dir],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, start_new_session=True)
    write_state(os.path.join(base, "daemon.pid"), "%d\n" % proc.pid)
    deadline = time.monotonic() + timeout
    while not os.path.exists(ready):
        if proc.poll() is not None or time.monotonic() > deadline:
            if proc.poll() is None:
                proc.kill()
            with open(os.path.join(base, "daemon.log"), encoding="utf-8", errors="replace") as f:
                tail = f.read().strip().splitlines()[-1:] or ["no output"]
            raise error("the %s of the %s did not start within %.0f s: %s" % (what[0], what[1], timeout, tail[0]))
        time.sleep(0.1)
    return changes + ["%s serving %d %s" % (what[0], len(switches), what[1])]


def plane_listing(base):
    """In the plane's process: ([host, release] of each switch it serves, the password) as plane_start left them."""
    with open(os.path.join(base, "switches.json"), encoding="utf-8") as f:
        listing = json.load(f)["switches"]
    with open(os.path.join(base, "password"), encoding="utf-8") as f:
        return listing, f.read().strip()


def plane_boot(boot, switches, workers):
    """``boot(switch)`` of every switch, ``workers`` at a time; the process exits with the first problem one returns."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=workers) as pool:
        failed = [problem for problem in pool.map(boot, switches) if problem]
    if failed:
        raise SystemExit(failed[0])


def plane_serve(base, servers, tick, every=None):
    """Tell plane_start the plane is ready, then run ``every()`` each ``tick`` seconds until SIGTERM; the servers stop."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_a: stop.set())
    write_state(os.path.join(base, "ready"), "%d\n" % os.getpid())
    while not stop.wait(tick):
        if every is not None:
            every()
    for server in servers:
        server.stop()


def plane_main(serve, description, argv=None):
    """The plane's process: the command line plane_start gives it (``--state-dir``), then ``serve(state_dir)``."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--state-dir", required=True)
    serve(parser.parse_args(argv).state_dir)
