"""FRR and lldpd inside the twin's namespaces.

FRR runs with its own pathspace per namespace (``-N <namespace>``), the layout FRR itself defines:
configuration in /etc/frr/<namespace>/, sockets and pid files in /run/frr/<namespace>/, and
``vtysh -N <namespace>`` talks to it. lldpd runs in the foreground of its namespace (``-d``) with its own
control socket, configuration and pid file under the twin's state directory.
"""
import grp
import os
import pwd
import subprocess
import time

from .run import run_many

FRR_SBIN = "/usr/lib/frr"
FRR_ETC = "/etc/frr"
FRR_RUN = "/run/frr"
FRR_RELOAD = "/usr/lib/frr/frr-reload.py"
VTYSH_CONF = "service integrated-vtysh-config\n"
LLDPD_CONF = """configure system hostname {host}
configure lldp portidsubtype ifname
configure lldp tx-interval 5
"""


def frr_dir(ns):
    return os.path.join(FRR_ETC, ns)


def frr_run_dir(ns):
    return os.path.join(FRR_RUN, ns)


def _alive(pidfile, comm):
    try:
        with open(pidfile) as f:
            pid = int(f.read().strip())
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip() == comm
    except (OSError, ValueError):
        return False


def _owned_by_frr(path, mode):
    os.makedirs(path, exist_ok=True)
    try:
        os.chown(path, pwd.getpwnam("frr").pw_uid, grp.getgrnam("frr").gr_gid)
    except KeyError:
        pass
    os.chmod(path, mode)


def write_if_changed(path, text, mode=0o644, owner="frr"):
    """Write ``text`` to ``path`` (``mode``, owned by user and group ``owner`` when given and present) in one
    rename; False when it already held it."""
    try:
        with open(path) as f:
            if f.read() == text:
                return False
    except OSError:
        pass
    tmp = "%s.tmp%d" % (path, os.getpid())   # twins of other clusters may write the same file at the same time
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    try:
        if owner:
            os.chown(tmp, pwd.getpwnam(owner).pw_uid, grp.getgrnam(owner).gr_gid)
    except KeyError:
        pass
    os.rename(tmp, path)
    return True


def running_conf(ns):
    """Where the configuration FRR runs in ``ns`` is kept when it is not the namespace's frr.conf (a translation)."""
    return os.path.join(frr_run_dir(ns), "twin-running.conf")


def _conf_of(ns):
    """The file FRR of ``ns`` is loaded and reloaded from."""
    side = running_conf(ns)
    return side if os.path.exists(side) else os.path.join(frr_dir(ns), "frr.conf")


def blank_conf(host):
    return "frr defaults datacenter\nhostname %s\nservice integrated-vtysh-config\n!\n" % host


def frr_stage(namespaces, blank=False):
    """Write each switch's rendered frr.conf into its pathspace. Returns ({ns: daemons to start},
    [ns whose running FRR needs the new config], changes). With ``blank``, FRR starts with no routing
    config and a frr.conf already there (put by deploy.yml) is left alone."""
    to_start, to_reload, changes = {}, [], []
    for ns in namespaces:
        if not ns.frr_daemons:
            continue
        _owned_by_frr(frr_dir(ns.name), 0o750)
        _owned_by_frr(frr_run_dir(ns.name), 0o755)
        write_if_changed(os.path.join(frr_dir(ns.name), "vtysh.conf"), VTYSH_CONF)
        conf_path = os.path.join(frr_dir(ns.name), "frr.conf")
        if blank or ns.nos_plane:
            # A self-applying NOS (ns.nos_plane) writes its own frr.conf: FRR starts with what that NOS renders
            # for an empty configuration (ns.frr_conf), and the twin leaves it alone after.
            first = ns.frr_conf if ns.nos_plane else blank_conf(ns.name)
            conf_changed = not os.path.exists(conf_path) and write_if_changed(conf_path, first)
        else:
            text = ns.frr_conf if ns.frr_file is None else ns.frr_file
            conf_changed = write_if_changed(conf_path, text)
            # FRR runs a translation of the file (a twin leaf with tenant VRFs): kept beside its sockets, loaded and
            # reloaded from there (running_conf), while /etc/frr/frr.conf holds what the switch was given.
            side = running_conf(ns.name)
            if text != ns.frr_conf:
                conf_changed = write_if_changed(side, ns.frr_conf) or conf_changed
            elif os.path.exists(side):
                os.remove(side)
                conf_changed = True
        missing = [d for d in ns.frr_daemons if not _alive(os.path.join(frr_run_dir(ns.name), d + ".pid"), d)]
        if missing:
            to_start[ns.name] = missing
            changes.append("%s: FRR %s started" % (ns.name, ", ".join(missing)))
        elif conf_changed:
            to_reload.append(ns.name)
            changes.append("%s: frr.conf changed, reloaded" % ns.name)
    return to_start, to_reload, changes


def _frr_argv(ns, daemon):
    argv = ["ip", "netns", "exec", ns, os.path.join(FRR_SBIN, daemon), "-N", ns, "-d", "-P", "0"]
    if daemon == "zebra":
        argv += ["-s", "90000000"]     # netlink buffer large enough for a whole fabric's routes at once
        # A NOS whose zebra feeds its dataplane over FPM renders "fpm address" lines into frr.conf (docs/twin.md,
        # "FRR"): with FRR's own FPM module loaded, zebra accepts them here as it does on the switch.
        argv += ["-M", "dplane_fpm_nl"]
    return as_switch(ns, argv)


def frr_start(to_start):
    """Start the daemons (zebra first everywhere, then the protocols), then load each namespace's
    integrated frr.conf with ``vtysh -b`` the way FRR's own init does."""
    first = [(ns, d) for ns, ds in to_start.items() for d in ds if d == "zebra"]
    rest = [(ns, d) for ns, ds in to_start.items() for d in ds if d != "zebra"]
    for batch in (first, rest):
        run_many([(_frr_argv(ns, d), None) for ns, d in batch])
    run_many([(as_switch(ns, ["vtysh", "-N", ns, "-b"] if not os.path.exists(running_conf(ns))
                         else ["vtysh", "-N", ns, "-f", running_conf(ns)]), None) for ns in sorted(to_start)])


def as_switch(ns, argv):
    """``argv`` run with the switch's host name, as FRR runs on a switch (whose own host name it shows).
    FRR daemons and vtysh show their uname host name in `show running-config`, and namespaces share the
    machine's: without this, frr-reload would try to delete `hostname <machine>` on every reload."""
    return ["unshare", "--uts", "/bin/sh", "-c", 'hostname "$0" && exec "$@"', ns] + list(argv)


# /etc/frr and /run/frr of the namespace's pathspace as a switch has them, in a mount namespace of the command's own;
# the file FRR runs (_conf_of) bound over its frr.conf.
_IN_PLACE = ('mount --bind "$1" "$2/frr.conf" && mount --rbind "$2" /etc/frr && mount --bind "$3" /run/frr '
             '&& shift 3 && exec "$@"')


def in_place_argv(ns, mode):
    """frr-reload.py ``mode`` (--reload or --test) in ``ns``, run as on a switch: /etc/frr/frr.conf of its own /etc/frr
    and /run/frr. Given any other file, frr-reload writes the running config over frr.conf after a reload (`write`);
    so it is given that one, with the file FRR runs bound over it, and the namespace's frr.conf stays what was
    installed (as the file the NOS's own configuration service wrote stays what it wrote)."""
    return as_switch(ns, ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", _IN_PLACE, "sh",
                          _conf_of(ns), frr_dir(ns), frr_run_dir(ns), FRR_RELOAD, mode,
                          os.path.join(FRR_ETC, "frr.conf")])


def frr_reload(names):
    """frr-reload.py --reload in each namespace, in place (in_place_argv)."""
    run_many([(in_place_argv(ns, "--reload"), None) for ns in sorted(names)])


def reload_argv(ns, mode):
    """frr-reload.py for the switch's pathspace; ``mode`` is --reload or --test. --confdir is FRR's root:
    frr-reload and vtysh append the pathspace themselves."""
    return [FRR_RELOAD, mode, "--pathspace", ns, "--confdir", FRR_ETC, _conf_of(ns)]


def lldpd_paths(state_dir, ns):
    base = os.path.join(state_dir, ns)
    return {"dir": base, "conf": os.path.join(base, "lldpd.conf"), "socket": os.path.join(base, "lldpd.socket"),
            "pid": os.path.join(base, "lldpd.pid"), "log": os.path.join(base, "lldpd.log")}


def lldpd_apply(state_dir, namespaces):
    """Start lldpd where it is not running, restart it where its configuration changed."""
    changes = []
    for ns in namespaces:
        if not ns.lldp_ports:
            continue
        paths = lldpd_paths(state_dir, ns.name)
        os.makedirs(paths["dir"], exist_ok=True)
        conf = LLDPD_CONF.format(host=ns.name)
        args = ["lldpd", "-d", "-u", paths["socket"], "-O", paths["conf"], "-I", ",".join(sorted(ns.lldp_ports))]
        text = conf + "# started as: " + " ".join(args) + "\n"
        changed = write_if_changed(paths["conf"], text, 0o644)
        running = _alive(paths["pid"], "lldpd")
        if running and not changed:
            continue
        if running:
            lldpd_stop(paths)
        with open(paths["log"], "ab") as log:
            proc = subprocess.Popen(["ip", "netns", "exec", ns.name] + args, stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=log, start_new_session=True)
        with open(paths["pid"], "w") as f:
            f.write("%d\n" % proc.pid)
        changes.append("%s: lldpd %s" % (ns.name, "restarted" if running else "started"))
    return changes


def lldpd_stop(paths):
    try:
        with open(paths["pid"]) as f:
            pid = int(f.read())
        os.kill(pid, 15)
        for _i in range(100):
            if not os.path.exists("/proc/%d" % pid):
                break
            time.sleep(0.02)
    except (OSError, ValueError):
        pass
