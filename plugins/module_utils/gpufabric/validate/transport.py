"""How a command reaches a device: ``Transport.run(device, command) -> text``, or all of a device's commands
at once with ``Transport.run_many(device, commands)``.

Commands are abstract (``Command(tool, text)``): ``sh`` runs in the device's shell, ``vtysh`` and ``lldpcli``
talk to its FRR and lldpd; a NOS home adds its own (its collectors' ``SSH_TOOLS``, e.g. one that prints the
switch's configuration). Each transport maps them to what
works there: a network namespace of the virtual twin (twin/transport.py, handed in by the twin's callers), OpenSSH to a real switch or server. The twin and SSH
run a device's commands as one shell script (one process, one SSH session a device instead of one a
command); each command keeps its own output, standard error and exit status.
"""
import secrets
import shlex
import subprocess

from ..device_command import CommandFailed, Unavailable, Unreachable
from ..frr_linux import host as linux_host
from ..nos_registry import home


def run_argv(argv, timeout):
    """The standard output of ``argv``; CommandFailed (Unreachable for ssh's or ip netns's own failure) else."""
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CommandFailed("%s: %s" % (" ".join(argv[:6]), exc)) from exc
    if proc.returncode != 0:
        # 255 is ssh's own failure (and `ip netns exec`'s for a missing namespace), not the remote command's.
        kind = Unreachable if proc.returncode == 255 and argv[0] in ("ssh", "ip") else CommandFailed
        raise kind("%s exited %d: %s" % (" ".join(argv), proc.returncode, (proc.stderr or proc.stdout).strip()[-300:]))
    return proc.stdout


def batch_script(scripts):
    """(one shell script running ``scripts`` in turn, its marker): each script's standard output, exit
    status and standard error stand between lines carrying the marker, a random word no output contains."""
    mark = "@@gpufabric-" + secrets.token_hex(6)
    lines = ['d=$(mktemp -d) || exit 1']
    for i, script in enumerate(scripts):
        lines.append('echo "%s out %d"; ( :\n%s\n) 2>"$d/%d" </dev/null; r=$?; echo; echo "%s rc %d $r"; '
                     'cat "$d/%d"; echo; echo "%s end %d"' % (mark, i, script, i, mark, i, i, mark, i))
    lines.append('rm -rf "$d"')
    return "\n".join(lines), mark


def split_batch(text, mark, count, what):
    """[output or CommandFailed] of a batch_script's ``count`` scripts from its standard output."""
    out, pos = [], 0
    for i in range(count):
        head, rc_at, end_at = "%s out %d\n" % (mark, i), "\n%s rc %d " % (mark, i), "\n%s end %d\n" % (mark, i)
        start = text.find(head, pos)
        middle = text.find(rc_at, start) if start >= 0 else -1
        stop = text.find(end_at, middle) if middle >= 0 else -1
        if stop < 0:
            out.append(CommandFailed("%s: no output (the batch of commands ended early)" % what[i]))
            continue
        stdout = text[start + len(head):middle]
        status, _nl, stderr = text[middle + len(rc_at):stop].partition("\n")
        pos = stop + len(end_at)
        out.append(stdout if status == "0" else CommandFailed(
            "%s exited %s: %s" % (what[i], status, (stderr or stdout).strip()[-300:])))
    return out


class Transport:
    name = "none"
    # Interfaces of a virtual device (veth) report no real speed and carry no optics.
    virtual = False

    def internal_peer(self, address):
        """Whether a BGP session to ``address`` is the transport's own plumbing, never a planned session
        (the twin's VRF links): collection leaves it out of the device's facts."""
        return False

    def run(self, device, command):
        raise NotImplementedError

    def run_many(self, device, commands):
        """[output text, or the Unavailable / CommandFailed of that command] for ``commands`` in order;
        raises Unreachable when the device itself cannot be reached. This default runs them one by one."""
        out = []
        for command in commands:
            try:
                out.append(self.run(device, command))
            except Unreachable:
                raise
            except (Unavailable, CommandFailed) as exc:
                out.append(exc)
        return out

    def shell_text(self, device, command):
        """The shell text of ``command`` on ``device``, or None when it is not run in a shell."""
        return None

    def shell_argv(self, device, script):
        """argv that runs shell ``script`` on ``device``."""
        raise NotImplementedError

    def run_batched(self, device, commands):
        """run_many as one shell script for every command with shell text; the rest one by one."""
        out, scripts, at = [None] * len(commands), [], []
        for i, command in enumerate(commands):
            try:
                text = self.shell_text(device, command)
            except Unavailable as exc:
                out[i] = exc
                continue
            if text is None:
                try:
                    out[i] = self.run(device, command)
                except Unreachable:
                    raise
                except (Unavailable, CommandFailed) as exc:
                    out[i] = exc
            else:
                scripts.append(text)
                at.append(i)
        if scripts:
            script, mark = batch_script(scripts)
            text = run_argv(self.shell_argv(device, script), self.timeout * len(scripts))
            for i, result in zip(at, split_batch(text, mark, len(scripts), [commands[i].text[:60] for i in at])):
                out[i] = result
        return out


def ssh_tools(flavour):
    """{tool: command template} on a device of ``flavour``: "linux" (a server, frr_linux/host.py) or a NOS name (a
    switch: its home's collectors say how its tools are reached)."""
    if flavour == "linux":
        return linux_host.SSH_TOOLS
    return home(flavour).collectors.SSH_TOOLS


class SshTransport(Transport):
    """OpenSSH with keys only (BatchMode): ``hosts`` maps a device name to its address and user and
    what it runs ({"host", "user", "port", "flavour"}: "linux" or its NOS); unknown devices are reached by name."""
    name = "ssh"

    def __init__(self, hosts=None, options=("-o", "BatchMode=yes", "-o", "ConnectTimeout=10"), timeout=60):
        self.hosts = hosts or {}
        self.options = list(options)
        self.timeout = timeout

    def remote_text(self, device, command):
        tool, text = command
        if tool == "sh":
            return text
        flavour = self.hosts.get(device, {}).get("flavour", "linux")
        template = ssh_tools(flavour).get(tool)
        if template is None:
            raise Unavailable("%s has no %s (flavour %s)" % (device, tool, flavour))
        return template.format(q=shlex.quote(text), text=text)

    def shell_text(self, device, command):
        return self.remote_text(device, command)

    def shell_argv(self, device, script):
        host = self.hosts.get(device, {})
        target = host.get("host") or device
        if host.get("user"):
            target = "%s@%s" % (host["user"], target)
        return ["ssh"] + self.options + (["-p", str(host["port"])] if host.get("port") else []) + [target, script]

    def run_many(self, device, commands):
        return self.run_batched(device, commands)

    def run(self, device, command):
        return run_argv(self.shell_argv(device, self.remote_text(device, command)), self.timeout)
