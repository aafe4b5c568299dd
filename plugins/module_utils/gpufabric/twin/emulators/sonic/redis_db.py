"""One real redis-server per twin switch, holding that switch's SONiC databases by SONiC's numbering.

A switch's directory (its /etc/sonic, see switch_files) holds database_config.json in SONiC's format, which
names the unix socket; `sonic-db-cli` and the `config` commands read it there. Memory is bounded
(maxmemory, noeviction: a full database refuses writes instead of dropping rows), nothing is persisted
(CONFIG_DB survives a restart the SONiC way: `config save` writes config_db.json, `config reload` loads it).
"""
import json
import os
import shutil
import subprocess
import time

from .configdb import DATABASES, SEPARATORS

REDIS_SERVER = "/usr/bin/redis-server"
MAXMEMORY = "64mb"


class RedisError(RuntimeError):
    pass


def missing():
    """Why redis cannot run here, or None."""
    if not os.path.exists(REDIS_SERVER):
        return "%s is missing: apt-get install redis-server" % REDIS_SERVER
    try:
        import redis  # noqa: F401
    except ImportError:
        return "the Python package redis is missing: pip install -r requirements.txt"
    return None


def paths(run_dir):
    return {"dir": run_dir, "socket": os.path.join(run_dir, "redis.sock"), "pid": os.path.join(run_dir, "redis.pid"),
            "log": os.path.join(run_dir, "redis.log")}


def database_config(socket_path):
    """SONiC's database_config.json for one redis instance with every database in it."""
    return {"INSTANCES": {"redis": {"hostname": "127.0.0.1", "port": 6379, "unix_socket_path": socket_path}},
            "DATABASES": {name: {"id": number, "separator": SEPARATORS.get(name, "|"), "instance": "redis"}
                          for name, number in DATABASES.items()},
            "VERSION": "1.0"}


def alive(run_dir):
    p = paths(run_dir)
    try:
        with open(p["pid"]) as f:
            pid = int(f.read())
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip().startswith("redis-server") and _running(pid)
    except (OSError, ValueError):
        return False


def start(run_dir, netns=None, timeout=10.0):
    """Start the switch's redis-server (in network namespace ``netns`` when given, so that 127.0.0.1:6379 is
    the switch's own, as on SONiC) unless it runs; returns True when started. Waits, bounded, for PING."""
    import redis
    p = paths(run_dir)
    if alive(run_dir):
        return False
    os.makedirs(run_dir, exist_ok=True)
    if os.path.exists(p["socket"]):
        os.remove(p["socket"])
    argv = [REDIS_SERVER, "--port", "6379" if netns else "0", "--bind", "127.0.0.1", "--unixsocket", p["socket"],
            "--unixsocketperm", "700", "--daemonize", "yes", "--pidfile", p["pid"], "--logfile", p["log"],
            "--dir", run_dir, "--save", "", "--appendonly", "no", "--databases", str(max(DATABASES.values()) + 1),
            "--maxmemory", MAXMEMORY, "--maxmemory-policy", "noeviction"]
    if netns:
        argv = ["ip", "netns", "exec", netns] + argv
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise RedisError("redis-server for %s did not start: %s" % (run_dir, (proc.stderr or proc.stdout).strip()))
    client = redis.Redis(unix_socket_path=p["socket"])
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.ping()
            return True
        except (redis.ConnectionError, FileNotFoundError):
            if time.monotonic() > deadline:
                raise RedisError("redis-server for %s did not answer within %.0f s (see %s)" % (run_dir, timeout, p["log"]))
            time.sleep(0.05)


def _running(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"   # a zombie has exited
    except OSError:
        return False


def stop(run_dirs, timeout=5.0):
    """Stop the redis-servers of these switches at once (SIGTERM, bounded wait); returns the run dirs that
    had one running."""
    stopped = {}
    for run_dir in run_dirs:
        if alive(run_dir):
            with open(paths(run_dir)["pid"]) as f:
                pid = int(f.read())
            try:
                os.kill(pid, 15)
                stopped[run_dir] = pid
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + timeout
    while any(_running(pid) for pid in stopped.values()) and time.monotonic() < deadline:
        time.sleep(0.02)
    for run_dir in run_dirs:
        for path in (paths(run_dir)["socket"], paths(run_dir)["pid"]):
            if os.path.exists(path):
                os.remove(path)
    return sorted(stopped)


def write_json(path, data):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=4, sort_keys=True)
        f.write("\n")
    os.replace(temporary, path)


def switch_files(etc_sonic, run_dir, asic_type, build_version, yang_models, config_db=None, dataplane=False,
                 device=None, version=None):
    """Write a twin switch's /etc/sonic: database_config.json, sonic_version.yml (asic_type, build_version,
    as on SONiC), the twin's own gpufabric-twin.json (where the YANG models are; with ``dataplane``, that the
    switch's namespace enforces what CONFIG_DB holds, orchagent.py; ``device``: {"cluster", "host", "role",
    "model"}, what the switch's orchagent stand-in needs to reprogram its part of the twin; ``version``: the rest of
    sonic_version.yml's fields, which `show version` prints) and, first time only, config_db.json."""
    os.makedirs(os.path.join(etc_sonic, "checkpoints"), exist_ok=True)
    write_json(os.path.join(etc_sonic, "database_config.json"), database_config(paths(run_dir)["socket"]))
    with open(os.path.join(etc_sonic, "sonic_version.yml"), "w", encoding="utf-8") as f:
        f.write("build_version: '%s'\nasic_type: %s\n" % (build_version, asic_type))
        f.write("".join("%s: '%s'\n" % (key, value) for key, value in sorted((version or {}).items())))
    write_json(os.path.join(etc_sonic, "gpufabric-twin.json"),
               dict(device or {}, yang_models=yang_models, dataplane=dataplane))
    if config_db is not None and not os.path.exists(os.path.join(etc_sonic, "config_db.json")):
        write_json(os.path.join(etc_sonic, "config_db.json"), config_db)


def remove_switch_files(etc_sonic):
    if os.path.isdir(etc_sonic):
        shutil.rmtree(etc_sonic, ignore_errors=True)
        return True
    return False
