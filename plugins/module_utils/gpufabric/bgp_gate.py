"""The BGP gate of a deploy: what a switch's plan says it must advertise and receive, checked after a change.

The switch keeps a change only when, within the timeout, every required session is Established, the
switch originates its own networks and summaries, no more-specific route leaks past a summary it owns,
and from every required neighbour it has received at least what that neighbour originates by plan.
What the switch says is read by its NOS's home (``bgp_gate`` of the home: ``GATE_COMMANDS``, what the deploy role runs
in one call; ``observe(text)``, its output as the facts below; ``sessions(text)``, each peer's state from the first
command alone), so this module reads no NOS's output (a home whose switches run FRR gives frr_linux/bgp.py).
The facts: ``{"peers": {address: {"state", "prefixes_received"}}, "routes": {prefix: [path]}}``, a path being
``{"valid", "best", "suppressed", "peerId"}`` (the neighbour it came from; absent for the switch's own).
"""
import ipaddress
import json
import time

from .nos_registry import home, nos_of

BGP_GATES = ("auto", "all", "established_before")


def json_documents(text):
    """The JSON documents a switch printed one after another for the gate's commands (what a home's reader parses),
    up to the first that is not JSON."""
    decoder, docs, pos = json.JSONDecoder(), [], 0
    text = text or ""
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return docs
        try:
            doc, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return docs
        docs.append(doc)


def originated(cfg):
    """{prefix: what it is} that ``cfg`` (one switch's structured config) makes BGP announce."""
    bgp = cfg.get("bgp") or {}
    out = {prefix: "network" for prefix in bgp.get("networks", ())}
    out.update((prefix, "summary") for prefix in bgp.get("summaries", ()))
    return out


def _best(paths):
    """The usable best path of a route: valid, and not held back by a summary-only aggregate."""
    for path in paths or ():
        if path.get("valid") and path.get("best") and not path.get("suppressed"):
            return path
    return None


def _peer_label(neighbor):
    return "%s (%s)" % (neighbor["ip"], neighbor.get("description") or neighbor.get("peer", "?"))


def problems(observed, cfg, required, peer_cfgs=(), own=True):
    """[problem], each naming one session or prefix; empty when the change can be kept.

    ``observed`` is what the switch's BGP shows (the facts above; None when it showed nothing readable),
    ``cfg`` the switch's structured config, ``required`` the neighbour IPs that must be Established,
    ``peer_cfgs`` the structured configs of its neighbours (their originated prefixes are what it must
    receive from each). ``own`` false skips the switch's own announcements (a first bring-up, whose
    server links may not be up yet)."""
    if observed is None:
        return ["no BGP state: the switch printed none the gate can read"]
    peers, routes = observed["peers"], observed["routes"]
    neighbors = {n["ip"]: n for n in (cfg.get("bgp") or {}).get("neighbors", ())}
    by_host = {peer.get("hostname"): peer for peer in peer_cfgs or ()}
    found = []
    up = []
    for ip in required:
        neighbor = neighbors.get(ip, {"ip": ip})
        state = (peers.get(ip) or {}).get("state")
        if state != "Established":
            found.append("session %s is %s" % (_peer_label(neighbor), state or "not configured"))
        else:
            up.append(neighbor)
    own = originated(cfg) if own else {}
    for prefix, kind in sorted(own.items()):
        if _best(routes.get(prefix)) is None:
            found.append("%s %s is not announced (not in the BGP table)" % (kind, prefix))
    # Tenant VRF mode announces the /31s with the summary on purpose (bgp.summary_only false, docs/tenancy.md).
    summary_only = (cfg.get("bgp") or {}).get("summary_only", True)
    summaries = [ipaddress.ip_network(p) for p, kind in own.items() if kind == "summary" and summary_only]
    for prefix, paths in sorted(routes.items()):
        net = ipaddress.ip_network(prefix)
        covering = [s for s in summaries if net != s and net.subnet_of(s)]
        if covering and _best(paths) is not None:
            found.append("%s leaks past summary %s (not suppressed)" % (prefix, covering[0]))
    for neighbor in up:
        expected = sorted(originated(by_host.get(neighbor.get("peer"), {})))
        if not expected:
            continue
        missing = [p for p in expected
                   if not any(path.get("peerId") == neighbor["ip"] for path in routes.get(p) or ())]
        received = (peers.get(neighbor["ip"]) or {}).get("prefixes_received") or 0
        if missing or received < len(expected):
            found.append("%s sent %d prefixes, the plan needs at least %d; missing %s"
                         % (_peer_label(neighbor), received, len(expected), ", ".join(missing) or "none"))
    return found


def wait(gate, timeout, poll):
    """The BGP gate's problems once it passed ([]) or, after ``timeout`` seconds, the last ones it found: ``gate()``
    is one look at the switch (a deploy's own reading of its home's ``GATE_COMMANDS`` through ``deploy_gate``),
    asked again every ``poll`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = gate()
        if not found or time.monotonic() >= deadline:
            return found
        time.sleep(poll)


def deploy_gate(text, cfg, before, gate="auto", peer_cfgs=()):
    """The gate of a switch's deploy role after a change: ``problems`` of what the switch printed (``text``, the
    output of its home's ``bgp_gate.GATE_COMMANDS``) with what is required taken from the first command's output
    ``before`` the change: the sessions ``gate`` selects (required_sessions below); the switch's own announcements
    when it was running (a planned session was up). ``peer_cfgs`` may hold None for a neighbour whose build is
    absent (a --limit build into a fresh directory): what it must send is then not checked."""
    reader = home(nos_of(cfg)).bgp_gate
    states = reader.sessions(before)
    planned = [n["ip"] for n in (cfg.get("bgp") or {}).get("neighbors", ())]
    running = any(states.get(ip) == "Established" for ip in planned)
    variable = "%s_deploy_bgp_gate" % nos_of(cfg)  # the deploy role's variable (roles/<nos>_deploy)
    return problems(reader.observe(text), cfg, required_sessions(planned, states, gate, variable),
                    [p for p in peer_cfgs or () if p], own=running)


def required_sessions(planned, states_before, gate="auto", variable="bgp_gate"):
    """Which of the ``planned`` neighbour addresses must be Established after a change, else the
    switch rolls back (``states_before``: {peer address: state} before the change): ``all``;
    ``established_before`` (those up before the change); ``auto``: on a
    running fabric (a planned session was up) every planned session the switch already had before the
    change, up or not; a session this change adds is not required, since its far end may not be deployed
    yet (growth: a spine gains the sessions of leaves racked after it; validation checks them). On a
    first bring-up (nothing was up), established_before. ``variable`` names the setting in the refusal."""
    if gate not in BGP_GATES:
        raise ValueError("%s: %r is not one of %s" % (variable, gate, ", ".join(BGP_GATES)))
    planned = list(planned or [])
    states = states_before or {}
    was_up = [addr for addr in planned if states.get(addr) == "Established"]
    if gate == "all":
        return planned
    if gate == "auto" and was_up:
        return [addr for addr in planned if addr in states]
    return was_up
