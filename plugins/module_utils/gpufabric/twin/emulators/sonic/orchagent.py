"""What acts on a twin switch after its CONFIG_DB or frr.conf changed, as SONiC's daemons do: orchagent (PORT rows'
admin state and MTU onto the namespace's links, ACL tables as nftables), vrfmgrd/intfmgrd (tenant VRFs as namespaces,
twin/vrf.py, through plane.reconcile in the machine's namespaces) and the bgp container's frr-reload.py."""
import json
import os
import sys

from ....netns_process import machine_process


def program_ports(config, run):
    """portsorch's part: each PORT row's admin_status and mtu onto the namespace's link of that name (the cable
    the twin made; a port with no cable has no link, and is left alone). A LAG member's MTU is its LAG's, so
    only links that belong to no master take the row's MTU. Returns the changes made."""
    links = {link["ifname"]: link for link in json.loads(run(["ip", "-j", "link", "show"]).stdout or "[]")}
    changes = []
    for name, row in sorted(config.get("PORT", {}).items()):
        link = links.get(name)
        if link is None:
            continue
        up = row.get("admin_status", "up") == "up"
        if up != ("UP" in link.get("flags", [])):
            run(["ip", "link", "set", "dev", name, "up" if up else "down"])
            changes.append("%s %s" % (name, "up" if up else "down"))
        mtu = row.get("mtu")
        if mtu and not link.get("master") and int(mtu) != link.get("mtu"):
            run(["ip", "link", "set", "dev", name, "mtu", str(int(mtu))])
            changes.append("%s mtu %s" % (name, mtu))
    return changes


class Portsorch:
    """A CONFIG_DB whose PORT writes reach the namespace's links as each is written, as portsorch acts on each key
    when it comes, not at the end of a command: a port the Generic Config Updater sets admin down around a QoS change
    (gcu_moves.py) really goes down and comes back up during `config replace`, and traffic over it notices; a PORT
    row deleted (a create-only change re-adds it) takes the link down. ``run``: twin.run.run, or a test's."""

    def __init__(self, db, run):
        self.db, self.run, self._links = db, run, None

    def get_config(self):
        return self.db.get_config()

    def set_entry(self, table, key, row):
        self.db.set_entry(table, key, row)
        if table != "PORT":
            return
        if self._links is None:
            self._links = {link["ifname"]: "UP" in link.get("flags", [])
                           for link in json.loads(self.run(["ip", "-j", "link", "show"]).stdout or "[]")}
        up = row is not None and row.get("admin_status", "up") == "up"
        if key in self._links and self._links[key] != up:
            self.run(["ip", "link", "set", "dev", key, "up" if up else "down"])
            self._links[key] = up


def orchagent(switch, err):
    """What SONiC's orchagent does with a CONFIG_DB change, for the dataplane the twin has: PORT rows' admin
    state and MTU become the switch namespace's links' (``program_ports``), and the L3 ingress ACLs of
    ACL_TABLE/ACL_RULE its nftables port filters (acl.py), so a spare swap or a tenant change reaches
    the twin the way it reaches a switch, through config replace. Only on a switch of a running twin
    (gpufabric-twin.json "dataplane"); VRFs and the rest are not reprogrammed here (docs/twin.md). A CONFIG_DB
    the twin cannot enforce is an error (on SONiC, orchagent's log)."""
    if not switch.twin.get("dataplane"):
        return 0
    from ... import nftables
    from ...run import CommandError, run
    from .acl import AclError, ruleset
    config = switch.db().get_config()
    try:
        program_ports(config, run)
    except (CommandError, OSError, ValueError) as e:
        err.write("orchagent: the PORT table in CONFIG_DB could not be programmed: %s\n" % e)
        return 1
    try:
        nftables.apply_local(ruleset(config))
    except (AclError, CommandError, OSError) as e:
        err.write("orchagent: the ACLs in CONFIG_DB could not be programmed: %s\n" % e)
        return 1
    # vrfmgrd and intfmgrd: VRFs, and addresses, LAGs, VLANs and the loopback as they change, made again in the twin.
    changed = layout_digest(config) != _remembered(switch.etc)
    if has_vrfs(switch, config.get("VRF")) or changed:
        code = vrfmgr(switch, err, "vrfmgrd" if config.get("VRF") else "intfmgrd")
        if code == 0:
            remember_layout(switch.etc, config)
        return code
    return 0


LAYOUT_FILE = "gpufabric-layout.sha1"


def layout_digest(config):
    """A digest of what of CONFIG_DB the twin builds a switch's namespace from besides PORT (program_ports): its
    addresses, LAGs, VLAN bridges, loopback and VRFs (layout.py)."""
    import hashlib
    from .layout import layout
    lay = layout(json.dumps(config))
    part = {"addrs": {port: row["addrs"] for port, row in lay["ports"].items()}, "lags": lay["lags"],
            "bridge_of": lay["bridge_of"], "bridges": lay["bridges"], "loopback": lay["loopback"], "vrfs": lay["vrfs"]}
    return hashlib.sha1(json.dumps(part, sort_keys=True).encode()).hexdigest()


def remember_layout(etc, config):
    """Record which CONFIG_DB the switch's namespace was last made from (at boot, after vrfmgr)."""
    with open(os.path.join(etc, LAYOUT_FILE), "w", encoding="utf-8") as f:
        f.write(layout_digest(config) + "\n")


def _remembered(etc):
    try:
        with open(os.path.join(etc, LAYOUT_FILE), encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


# plane.reconcile in the machine's namespaces: its error as one line, the exit code 1.
RECONCILE = ("import sys; sys.path.insert(0, sys.argv[1]); from gpufabric.twin.emulators.sonic import plane; "
             "from gpufabric.twin import TwinError\n"
             "try:\n    plane.reconcile(sys.argv[2], reload_frr=sys.argv[3] == 'reload')\n"
             "except (TwinError, OSError, ValueError) as e:\n    sys.exit('%s' % e)")


def has_vrfs(switch, vrf_table, frr_text=""):
    """Whether the switch has tenant VRFs in CONFIG_DB or its frr.conf, or VRF namespaces still on the twin (to go)."""
    host = switch.twin.get("host", "")
    try:
        left = any(name.startswith(host + "-Vrf") for name in os.listdir("/run/netns"))
    except OSError:
        left = False
    return bool(vrf_table) or left or any(line.startswith("router bgp ") and " vrf " in line
                                          for line in frr_text.splitlines())


def vrfmgr(switch, err, who, reload_frr=False):
    """SONiC's vrfmgrd and intfmgrd for the twin: the switch's VRFs and their ports from CONFIG_DB, and their BGP from
    its frr.conf, become namespaces joined to the switch's (twin/vrf.py, docs/twin.md), from the machine's namespaces
    (plane.reconcile). Returns the exit code."""
    import subprocess
    module_utils = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))))
    pid = machine_process()
    if pid is None:
        err.write("%s: not run in a twin switch's namespace, where its tenant VRFs are programmed\n" % who)
        return 1
    proc = subprocess.run(["nsenter", "--target", str(pid), "--mount", "--net", "--", sys.executable, "-c", RECONCILE,
                           module_utils, switch.twin["host"], "reload" if reload_frr else "-"],
                          capture_output=True, text=True, check=False)
    if proc.returncode:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        err.write("%s: the tenant VRFs could not be programmed: %s\n" % (who, lines[-1] if lines else proc.returncode))
        return 1
    return 0


def _vrf_table(switch):
    """CONFIG_DB's VRF table, or none when redis does not answer (the bgp container's frr-reload does not need it)."""
    try:
        return switch.db().get_config().get("VRF")
    except Exception:  # noqa: BLE001 -- a redis that is down: FRR's own frr-reload still runs
        return None


FRR_RELOAD = "/usr/lib/frr/frr-reload.py"
FRR_CONF = "/etc/frr/frr.conf"


def frr_reload(args, switch, out, err):
    """/usr/lib/frr/frr-reload.py of the bgp container. On a switch without tenant VRFs it is FRR's own, run as it
    is. A leaf with tenant VRFs runs them in namespaces of their own on the twin (twin/vrf.py), so there `--reload
    /etc/frr/frr.conf` applies the file's translation to the leaf and its VRFs, with their namespaces made to match
    CONFIG_DB and the file (vrfmgr)."""
    files = [a for a in args if not a.startswith("-")]
    text = ""
    if files:
        try:
            with open(files[-1], encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            err.write("frr-reload.py: %s\n" % e)
            return 1
    if not has_vrfs(switch, None, text) and not has_vrfs(switch, _vrf_table(switch)):
        os.execv(FRR_RELOAD, [FRR_RELOAD] + list(args))
    if "--reload" not in args or files != [FRR_CONF]:
        err.write("frr-reload.py: a twin leaf with tenant VRFs reloads only with --reload %s (docs/twin.md)\n"
                  % FRR_CONF)
        return 2
    return vrfmgr(switch, err, "frr-reload.py", reload_frr=True)
