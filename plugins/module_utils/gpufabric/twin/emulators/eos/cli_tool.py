"""``Cli`` on an EOS switch of the twin: EOS's CLI as a login's bash runs it (``Cli -p 15 -c '<command>'``, several
commands one per line of the text), answered by the switch's own eAPI stand-in (eapi.py), in text, or as JSON for a
command ending ``| json``, as EOS prints them.

The switch is the network namespace the command runs in (``ip netns identify``); its eAPI listens on the machine's
127.0.0.1 (plane.py), reached from the machine's network namespace (netns_process.py), with the twin's CA and the
plane's password. A command the stand-in refuses prints its errors in EOS's form (``% Invalid input``) and exits 1.
"""
import base64
import glob
import json
import os
import ssl
import subprocess
import sys

STATE_ROOT = "/run/gpufabric-twin"


def _switch():
    proc = subprocess.run(["ip", "netns", "identify", str(os.getpid())], capture_output=True, text=True, check=False)
    name = proc.stdout.strip()
    found = sorted(glob.glob(os.path.join(STATE_ROOT, "*", glob.escape(name), "eos", "eapi.port"))) if name else []
    return name, (os.path.dirname(found[0]) if found else None)


def _options(args):
    """(privilege, [commands]) of ``Cli``'s arguments; ValueError on others."""
    privilege, text = 1, None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "-p" and rest:
            privilege = int(rest.pop(0))
        elif arg == "-c" and rest:
            text = rest.pop(0)
        else:
            raise ValueError("unknown argument %s" % arg)
    if text is None:
        raise ValueError("no command (-c): the interactive CLI is not modelled on the twin")
    return privilege, [line.strip() for line in text.splitlines() if line.strip()]


def run(host, directory, cmds):
    """The eAPI response's results of ``cmds`` (after ``enable``) on the switch whose files are ``directory``."""
    import http.client
    from ....netns_process import enter_machine_network
    from .plane import USER

    with open(os.path.join(directory, "eapi.port"), encoding="utf-8") as f:
        port = int(f.read())
    base = os.path.join(os.path.dirname(os.path.dirname(directory)), "eos-eapi")
    with open(os.path.join(base, "password"), encoding="utf-8") as f:
        password = f.read().strip()
    context = ssl.create_default_context(cafile=os.path.join(base, "ca.pem"))
    if not enter_machine_network():
        raise OSError("not run inside the switch's network namespace")
    results = []
    for cmd in cmds:
        as_json = cmd.endswith("| json")
        body = json.dumps({"jsonrpc": "2.0", "method": "runCmds", "id": "Cli",
                           "params": {"version": 1, "cmds": ["enable", cmd], "format": "json" if as_json else "text"}})
        conn = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=60)
        auth = base64.b64encode(("%s:%s" % (USER, password)).encode()).decode()
        conn.request("POST", "/command-api", body, {"Content-Type": "application/json", "Authorization": "Basic " + auth})
        answer = json.loads(conn.getresponse().read())
        conn.close()
        if "error" in answer:
            data = (answer["error"].get("data") or [{}])[-1]
            return results, ["%% %s" % e for e in data.get("errors") or [answer["error"].get("message", "")]]
        last = answer["result"][-1]
        results.append(json.dumps(last, indent=2) + "\n" if as_json else last.get("output", ""))
    return results, []


def main(args):
    try:
        _privilege, cmds = _options(args)
    except ValueError as exc:
        sys.stderr.write("Cli: %s\n" % exc)
        return 2
    host, directory = _switch()
    if directory is None:
        sys.stderr.write("Cli: not an EOS switch of the twin (network namespace %r)\n" % host)
        return 1
    try:
        results, errors = run(host, directory, cmds)
    except (OSError, ValueError) as exc:
        sys.stderr.write("Cli: the switch's eAPI did not answer: %s\n" % exc)
        return 1
    sys.stdout.write("".join(results))
    if errors:
        sys.stdout.write("".join(e + "\n" for e in errors))
        return 1
    return 0
