"""What a Cumulus Linux 5.x switch holds before anyone configured it, and the defaults NVUE fills in when asked.

The factory configuration (the switch's /etc/nvue.d/startup.yaml after its first boot, what ``nv config show`` then
prints) put together from what NVIDIA's Cumulus Linux 5.14 user guide says a new switch has, each part from its
chapter (docs/twin.md, "Factory configuration", names them):
- "Management VRF": the management VRF is enabled by default and holds ``eth0``, which asks DHCP for its address
  (``nv set interface eth0 ip address dhcp``, ``ip vrf mgmt``, type ``eth``);
- "Setting the Hostname" / "Quick Start Guide": the switch is called ``cumulus`` until you name it;
- "User Accounts": the default ``cumulus`` account, role ``system-admin`` (the nvapply and sudo classes; nvue-admin
  and nvue-monitor beside it, nvshow read-only), whose password the first login must change (``hashed-password``
  ``*`` here: no password set);
- "NVUE CLI": configuration auto-save on (5.9 and later), the NVUE API enabled (nginx, port 8765);
- "Time Zone": ``Etc/UTC``; "Switch Reboot": reboot mode ``cold``; "SSH": root login over SSH refused
  (``permit-root-login`` ``disabled``); "What Just Happened": WJH on, forwarding channel with its l2, l3 and tunnel
  triggers.
The control-plane ACLs of 5.9+ (``acl-default-dos``, ``acl-default-whitelist``) are not part of it: their rules are
not reproduced (docs/twin.md says so).

``FILLED``: the defaults NVUE adds to a configuration read with ``filled=true`` (``nv config show --all``), for the
objects a deploy reads back: a configured port's link (MTU 9216, admin state up, full duplex; "Switch Port
Attributes"), a bond
(LACP, fast rate, no bypass, no delays; "Bonding - Link Aggregation"), MLAG (priority 32768, init-delay 180, debug off;
"Multi-Chassis Link Aggregation - MLAG"), BGP (enabled; "Basic BGP Configuration": keepalive 3, hold 9 on Cumulus'
datacenter defaults), and the password policy of "User Accounts", Password Security (hardening on, at least 8
characters, expiry 180 days, warning 15 days before, 10 passwords remembered).

Emulator code: the standard library only.
"""
import copy

RELEASE = "5.14"

FACTORY = {
    "interface": {"eth0": {"type": "eth", "ip": {"address": {"dhcp": {}}, "vrf": "mgmt"}}},
    "system": {
        "hostname": "cumulus",
        "timezone": "Etc/UTC",
        "reboot": {"mode": "cold"},
        "ssh-server": {"permit-root-login": "disabled"},
        "api": {"state": "enabled"},
        "config": {"auto-save": {"state": "enabled"}},
        "wjh": {"enable": "on", "channel": {"forwarding": {"trigger": {"l2": {}, "l3": {}, "tunnel": {}}}}},
        "aaa": {
            "class": {"nvapply": {"action": "allow", "command-path": {"/": {"permission": "all"}}},
                      "nvshow": {"action": "allow", "command-path": {"/": {"permission": "ro"}}},
                      "sudo": {"action": "allow", "command-path": {"/": {"permission": "all"}}}},
            "role": {"nvue-admin": {"class": {"nvapply": {}}}, "nvue-monitor": {"class": {"nvshow": {}}},
                     "system-admin": {"class": {"nvapply": {}, "sudo": {}}}},
            "user": {"cumulus": {"full-name": "cumulus,,,", "hashed-password": "*", "role": "system-admin"}},
        },
    },
}

PASSWORD_POLICY = {"state": "enabled", "len-min": 8, "expiration": 180, "expiration-warning": 15, "reject-user-passw-match": "enabled",
                   "lower-class": "enabled", "upper-class": "enabled", "digits-class": "enabled",
                   "special-class": "enabled", "history-cnt": 10}
PORT_LINK = {"mtu": 9216, "state": {"up": {}}, "duplex": "full"}
BOND = {"mode": "lacp", "lacp-rate": "fast", "lacp-bypass": "off", "up-delay": 0, "down-delay": 0}
MLAG = {"priority": 32768, "init-delay": 180, "debug": "off"}
BGP_TIMERS = {"keepalive": 3, "hold": 9}


def factory_config():
    """The factory configuration, a new copy."""
    return copy.deepcopy(FACTORY)


def factory_startup(release=RELEASE):
    """The text of the factory /etc/nvue.d/startup.yaml (NVUE's header, then the configuration)."""
    import yaml

    header = {"model": "stand-in", "nvue-api-version": "nvue_v1", "rev-id": 1.0,
              "version": "Cumulus Linux %s.0" % release}
    return yaml.safe_dump([{"header": header}, {"set": factory_config()}], sort_keys=False, default_flow_style=False)


def _under(defaults, have):
    """``have`` with each key of ``defaults`` it lacks added."""
    out = copy.deepcopy(defaults)
    for key, value in have.items():
        out[key] = _under(defaults[key], value) if isinstance(value, dict) and isinstance(defaults.get(key), dict) \
            else copy.deepcopy(value)
    return out


def filled(config):
    """``config`` as NVUE shows it with ``filled=true``: what was set, and the defaults of the objects it holds."""
    out = copy.deepcopy(config or {})
    for name, conf in (out.get("interface") or {}).items():
        if not isinstance(conf, dict):
            continue
        if conf.get("type") in ("swp", "bond", "peerlink"):
            conf["link"] = _under(PORT_LINK, conf.get("link") or {})
        if conf.get("type") in ("bond", "peerlink") and isinstance(conf.get("bond"), dict):
            conf["bond"] = _under(BOND, conf["bond"])
    if isinstance(out.get("mlag"), dict):
        out["mlag"] = _under(MLAG, out["mlag"])
    for vrf in (out.get("vrf") or {}).values():
        bgp = ((vrf or {}).get("router") or {}).get("bgp") if isinstance(vrf, dict) else None
        if isinstance(bgp, dict):
            for peer in (bgp.get("neighbor") or {}).values():
                if isinstance(peer, dict):
                    peer["timers"] = _under(BGP_TIMERS, peer.get("timers") or {})
    bgp = (out.get("router") or {}).get("bgp")
    if isinstance(bgp, dict) and bgp:
        bgp.setdefault("enable", "on")
    if isinstance(out.get("system"), dict):
        security = out["system"].setdefault("security", {})
        security["password-hardening"] = _under(PASSWORD_POLICY, security.get("password-hardening") or {})
    return out
