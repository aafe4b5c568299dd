# -*- coding: utf-8 -*-
# Copyright: (c) 2026, gpucluster.fabric contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
name: netns
short_description: Run tasks inside a network namespace of the virtual twin
version_added: 0.1.0
description:
  - Reaches a device of the virtual twin (see C(gpucluster.fabric.twin)) the way SSH reaches a real one, so
    playbooks such as C(playbooks/deploy.yml) run unchanged against the twin when the inventory selects this
    connection (C(inventories/lab-twin/group_vars/all.yml)).
  - Commands run with C(ip netns exec <namespace>) on the controller, which must be root.
  - Each device sees its own FRR, as on a real switch. Inside a command, C(/etc/frr) and C(/run/frr) are the
    device's FRR pathspace (C(/etc/frr/<namespace>), C(/run/frr/<namespace>)), so C(vtysh) and
    C(frr-reload.py) need no C(-N). A namespace without FRR sees empty C(/etc/frr) and C(/run/frr), never the
    controller's own.
  - A switch whose NOS stand-in needs more (its NOS's files where the NOS keeps them, its NOS's commands) gets what
    the stand-in wrote for it when the twin came up, in C(/run/gpufabric-twin/<cluster>/<device>/netns-env.json) (O(device)),
    that is directories bound over others and directories put first on C(PATH). A device without that file gets
    nothing more. See docs/twin.md for what each NOS's stand-in gives.
  - Files are copied through the controller's filesystem with the same mapping of C(/etc/frr) and C(/run/frr), and
    of the directories that file binds.
  - A device whose NOS stand-in says on which addresses its management port answers (C(mgmt-reach.json) beside that
    file, from the NOS's live configuration) is unreachable at any other C(ansible_host), as over SSH. Every command
    and file transfer fails with AnsibleConnectionFailure (Ansible's UNREACHABLE) until the switch's configuration
    gives the address back.
  - With O(remote_user) a user other than the controller's own (C(ansible_user), e.g. the twin's login user
    C(gpufabric-admin) that C(make setup) creates), each command runs as that user, as an SSH login would, with its
    own groups, home directory and no privileges, so C(become) (sudo) is what takes it to root, as on a switch
    whose login user is not root. Copied files belong to that user.
options:
  netns:
    description: The network namespace; the twin names them after inventory hostnames.
    type: str
    vars:
      - name: inventory_hostname
      - name: ansible_netns_name
  device:
    description:
      - The device whose C(netns-env.json) applies, when it is not the namespace's own (devices the twin stands in
        for together in one namespace, as the OOB switches in C(<cluster>-oob)). Default is O(netns).
    type: str
    vars:
      - name: ansible_netns_device
  remote_user:
    description:
      - The user the device's commands run as, its login user. Default is the controller's own user (root).
    type: str
    vars:
      - name: ansible_user
    keyword:
      - name: remote_user
author:
  - gpucluster.fabric contributors (@gpucluster)
"""

EXAMPLES = r"""
# inventories/lab-twin/group_vars/all.yml
# ansible_connection: gpucluster.fabric.netns
# fabric_target: twin
"""

import glob
import ipaddress
import json
import os
import pwd
import shlex
import shutil
import subprocess

from ansible.errors import AnsibleConnectionFailure, AnsibleFileNotFound
from ansible.plugins.connection import ConnectionBase

FRR_PATHS = ("/etc/frr", "/run/frr", "/var/run/frr")
# Where a NOS's twin stand-in tells this connection what a device gets besides its namespace (module_utils
# gpufabric/twin/netns_env.py writes it; tests/unit check that both name the same file).
STATE_ROOT = "/run/gpufabric-twin"
ENV_FILE = "netns-env.json"
# Beside it, what the device's management port answers on, by its NOS's live configuration (its emulator writes it,
# docs/twin.md "Management reachability"): a command to another address fails as SSH would.
REACH_FILE = "mgmt-reach.json"


def pathspace(netns):
    return {"/etc/frr": os.path.join("/etc/frr", netns), "/run/frr": os.path.join("/run/frr", netns),
            "/var/run/frr": os.path.join("/run/frr", netns)}


def device_env(netns, root=STATE_ROOT):
    """{"binds": [[source, target]], "path": [dirs]} the twin's NOS stand-in wrote for ``netns`` (none: empty).
    Namespace names are the machine's, so at most one twin has a run directory of that name."""
    found = sorted(glob.glob(os.path.join(glob.escape(root), "*", glob.escape(netns), ENV_FILE)))
    if not found:
        return {"binds": [], "path": []}
    try:
        with open(found[0], encoding="utf-8") as f:
            data = json.load(f)
        binds = [(str(source), str(target)) for source, target in data.get("binds") or ()]
        env = {"binds": binds, "path": [str(p) for p in data.get("path") or ()]}
    except (OSError, ValueError, TypeError) as exc:
        raise AnsibleConnectionFailure("%s: the twin's %s is unreadable (%s): bring the twin up again (playbooks/twin.yml)"
                                       % (netns, found[0], exc))
    reach = os.path.join(os.path.dirname(found[0]), REACH_FILE)
    try:
        with open(reach, encoding="utf-8") as f:
            env["reach"] = json.load(f)
    except OSError:
        pass
    except ValueError as exc:
        raise AnsibleConnectionFailure("%s: the twin's %s is unreadable (%s)" % (netns, reach, exc))
    return env


def unreachable(netns, env, address):
    """Why SSH to ``address`` would not reach the device, by what its NOS's stand-in says its management port answers
    on (``env["reach"]``, the NOS's live configuration); None when it would, or when nothing is said."""
    allowed = (env.get("reach") or {}).get("addresses")
    if allowed is None or not address:
        return None
    try:
        address = str(ipaddress.ip_address(address))
    except ValueError:
        return None     # a name: the twin resolves none
    if address in allowed:
        return None
    return ("ssh: connect to host %s port 22: Connection timed out (the twin's %s: its management port answers on %s "
            "only, as its live configuration says)" % (address, netns, ", ".join(allowed) or "no address"))


def map_path(netns, path, env=None):
    """The controller path of ``path`` as the device sees it."""
    path = os.path.normpath(path)
    for source, target in (env if env is not None else device_env(netns))["binds"]:
        if (path == target or path.startswith(target + "/")) and os.path.isdir(source):
            return source + path[len(target):]
    for prefix, target in pathspace(netns).items():
        if path == prefix or path.startswith(prefix + "/"):
            if not os.path.isdir(target):
                raise AnsibleConnectionFailure("%s runs no FRR in the twin: refusing to touch %s" % (netns, path))
            return target + path[len(prefix):]
    return path


def login(user):
    """pwd entry of the device's login user ``user``, or None when it is the controller's own user."""
    if not user:
        return None
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise AnsibleConnectionFailure("the twin's login user %r does not exist on this machine: make setup creates "
                                       "gpufabric-admin (scripts/twin_login_user.sh)" % user)
    return None if entry.pw_uid == os.geteuid() else entry


def wrapper(netns, env=None, user=None):
    """Shell run by `ip netns exec` (which gives each command its own mount namespace) inside its own UTS
    namespace: the device's host name (vtysh shows it in the running config, as on a switch, whose FRR runs
    under the switch's name); the device's FRR pathspace bound over /etc/frr and /run/frr, or empty tmpfs when
    the device has none; then what its NOS's stand-in asked for (``device_env``): each existing source directory
    bound over its target, and the directories put first on PATH. With ``user`` (a pwd entry), the command then
    runs as that user, from its home, as an SSH login starts."""
    env = env if env is not None else device_env(netns)
    lines = ["hostname %s || exit 97" % shlex.quote(netns)]
    for prefix, target in (("/etc/frr", "/etc/frr/" + netns), ("/run/frr", "/run/frr/" + netns)):
        lines.append("if [ -d %s ]; then mount --bind %s %s; else mount -t tmpfs gpufabric-twin %s; fi || exit 97"
                     % (shlex.quote(target), shlex.quote(target), prefix, prefix))
    for source, target in env["binds"]:
        lines.append("if [ -d %s ]; then mount --bind %s %s; fi || exit 97"
                     % (shlex.quote(source), shlex.quote(source), shlex.quote(target)))
    if env["path"]:
        lines.append("PATH=%s:$PATH && export PATH" % ":".join(shlex.quote(p) for p in env["path"]))
    return "; ".join(lines + login_lines(user))


def login_lines(user):
    """The end of ``wrapper``: run the command ("$0"), as ``user`` (a pwd entry) when given."""
    if user is None:
        return ['exec /bin/sh -c "$0"']
    home, name = shlex.quote(user.pw_dir), shlex.quote(user.pw_name)
    return ["HOME=%s USER=%s LOGNAME=%s && export HOME USER LOGNAME && cd %s || exit 97" % (home, name, name, home),
            'exec setpriv --reuid=%d --regid=%d --init-groups /bin/sh -c "$0"' % (user.pw_uid, user.pw_gid)]


class Connection(ConnectionBase):
    transport = "gpucluster.fabric.netns"
    has_pipelining = True

    def _netns(self):
        return self.get_option("netns")

    def _env(self):
        device = self.get_option("device") or self._netns()
        env = device_env(device)
        problem = unreachable(device, env, self._play_context.remote_addr)
        if problem:
            raise AnsibleConnectionFailure(problem)
        return env

    def set_options(self, task_keys=None, var_options=None, direct=None):
        super().set_options(task_keys=task_keys, var_options=var_options, direct=direct)
        # Become compares the login user with the become user: without ansible_user the commands run as the
        # controller's user, which is then the login user (and root needs no sudo).
        if not self.get_option("remote_user"):
            self.set_option("remote_user", pwd.getpwuid(os.geteuid()).pw_name)

    def _login(self):
        return login(self.get_option("remote_user"))

    def _connect(self):
        if not self._connected:
            if not os.path.exists(os.path.join("/run/netns", self._netns())):
                raise AnsibleConnectionFailure("no network namespace %r: is the twin up (playbooks/twin.yml)?" % self._netns())
            self._connected = True
        return self

    def exec_command(self, cmd, in_data=None, sudoable=True):
        super().exec_command(cmd, in_data=in_data, sudoable=sudoable)
        self._connect()
        argv = ["ip", "netns", "exec", self._netns(), "unshare", "--uts", "/bin/sh", "-c",
                wrapper(self._netns(), self._env(), self._login()), cmd]
        self._display.vvv("EXEC %s" % " ".join(shlex.quote(a) for a in argv), host=self._netns())
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        stdout, stderr = proc.communicate(in_data)
        return proc.returncode, stdout, stderr

    def put_file(self, in_path, out_path):
        super().put_file(in_path, out_path)
        if not os.path.exists(in_path):
            raise AnsibleFileNotFound("file or module does not exist: %s" % in_path)
        target = map_path(self._netns(), out_path, self._env())
        shutil.copyfile(in_path, target)
        user = self._login()
        if user is not None:
            os.chown(target, user.pw_uid, user.pw_gid)

    def fetch_file(self, in_path, out_path):
        super().fetch_file(in_path, out_path)
        shutil.copyfile(map_path(self._netns(), in_path, self._env()), out_path)

    def close(self):
        self._connected = False
