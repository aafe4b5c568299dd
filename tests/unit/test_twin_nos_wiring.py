"""The twin reaches each switch's NOS through its emulator's plane (twin/emulators/<nos>/), by the NOS's name: the namespace comes from the
plane's layout of the rendered configuration, the management plane from the plane, and what the netns connection
gives a device beyond its namespace from a file the plane writes (no root, no namespaces: the files and the
desired state only)."""
import importlib.util
import json
import os

import pytest

from gpufabric.build import render_all
from gpufabric.plan import build_plan
from gpufabric.twin import desired, emulators, model, netns_env
from conftest import ROOT, load_example


def _connection():
    path = os.path.join(ROOT, "plugins", "connection", "netns.py")
    spec = importlib.util.spec_from_file_location("gpufabric_netns_connection", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def lab():
    plan = build_plan(load_example("lab"))
    return plan, render_all(plan)


def test_the_connection_reads_the_file_the_twin_writes(tmp_path):
    conn = _connection()
    assert conn.ENV_FILE == netns_env.FILE
    from gpufabric.twin import STATE_ROOT
    assert conn.STATE_ROOT == STATE_ROOT
    state = tmp_path / "lab"
    source = tmp_path / "etc-nos" / "lab-leaf1"
    source.mkdir(parents=True)
    assert netns_env.write(str(state), "lab-leaf1", binds=[(str(source), "/etc/nos")], path=["/run/nos/bin"])
    assert not netns_env.write(str(state), "lab-leaf1", binds=[(str(source), "/etc/nos")], path=["/run/nos/bin"])
    env = conn.device_env("lab-leaf1", root=str(tmp_path))
    assert env == {"binds": [(str(source), "/etc/nos")], "path": ["/run/nos/bin"]}
    script = conn.wrapper("lab-leaf1", env)
    assert "mount --bind %s /etc/nos" % source in script and "PATH=/run/nos/bin:$PATH && export PATH" in script
    assert conn.map_path("lab-leaf1", "/etc/nos/config.json", env) == str(source / "config.json")
    assert conn.map_path("lab-leaf1", "/etc/nosx/a", env) == "/etc/nosx/a"
    # A device the stand-in wrote nothing for gets nothing more than its namespace and FRR pathspace.
    bare = conn.device_env("lab-gpu0001", root=str(tmp_path))
    assert bare == {"binds": [], "path": []}
    assert "PATH=" not in conn.wrapper("lab-gpu0001", bare) and conn.wrapper("lab-gpu0001", bare).count("mount") == 4
    assert netns_env.remove(str(state), "lab-leaf1") and conn.device_env("lab-leaf1", root=str(tmp_path))["binds"] == []


def test_an_unreadable_env_file_is_one_line_naming_it(tmp_path):
    conn = _connection()
    (tmp_path / "lab" / "lab-leaf1").mkdir(parents=True)
    (tmp_path / "lab" / "lab-leaf1" / netns_env.FILE).write_text("{not json")
    with pytest.raises(conn.AnsibleConnectionFailure, match=r"lab-leaf1: the twin's .*netns-env.json is unreadable"):
        conn.device_env("lab-leaf1", root=str(tmp_path))


def test_a_login_user_runs_the_command_unprivileged_from_its_home(tmp_path):
    # As an SSH login: the namespace and its binds are set up as root, then the command runs as the user, with its
    # groups and home, so become (sudo) is what takes it back to root. The end of the wrapper run for real.
    import pwd
    import subprocess
    import tempfile
    conn = _connection()
    me = pwd.getpwuid(os.geteuid())
    assert conn.login(None) is None and conn.login(me.pw_name) is None        # the controller's own user: no change
    with pytest.raises(conn.AnsibleConnectionFailure, match=r"login user 'no-such-twin-user' does not exist.*make setup"):
        conn.login("no-such-twin-user")
    nobody = pwd.getpwnam("nobody")
    home = tempfile.mkdtemp(prefix="gpufabric-login-")
    os.chmod(home, 0o755)
    user = pwd.struct_passwd(("nobody", "x", nobody.pw_uid, nobody.pw_gid, "", home, "/bin/sh"))
    tail = conn.login_lines(user)
    assert conn.wrapper("lab-leaf1", {"binds": [], "path": []}, user).endswith("; ".join(tail))
    if os.geteuid() != 0:
        pytest.skip("dropping to another user needs root")
    try:
        proc = subprocess.run(["/bin/sh", "-c", "; ".join(tail), 'id -u; echo "$HOME $USER"; pwd; touch /etc/gpufabric-x'],
                              capture_output=True, text=True, check=False)
    finally:
        os.rmdir(home)
    assert proc.returncode != 0 and "Permission denied" in proc.stderr
    assert proc.stdout.splitlines() == [str(nobody.pw_uid), "%s nobody" % home, home]


def test_validation_reads_a_switchs_configuration_from_the_switch_never_the_build(tmp_path):
    # The config_db source runs the NOS's own command in the switch's namespace with what its plane gave it (its /etc,
    # its commands); a device whose NOS runs no management plane on the twin cannot be read: Unavailable, a SKIP.
    from gpufabric.twin.transport import NetnsTransport
    from gpufabric.device_command import Command, Unavailable
    source = tmp_path / "etc-nos"
    source.mkdir()
    assert netns_env.write(str(tmp_path / "lab"), "lab-leaf1", binds=[(str(source), "/etc/nos")], path=["/run/nos/bin"])
    transport = NetnsTransport(lambda host: "/dev/null", env_root=str(tmp_path))
    text = transport.shell_text("lab-leaf1", Command("native", "nos-db --print"))
    assert text == ("(if [ -d {0} ]; then mount --bind {0} /etc/nos || exit 97; fi; PATH=/run/nos/bin:$PATH && export PATH; "
                    "nos-db --print)".format(source))
    with pytest.raises(Unavailable, match=r"lab-gpu1 runs no NOS management plane on the twin .*cannot be read"):
        transport.shell_text("lab-gpu1", Command("native", "nos-db --print"))


def test_a_switch_namespace_is_what_its_nos_plane_lays_out(lab):
    plan, files = lab
    twin = desired.build_twin(plan, files)
    for dev in plan.devices:
        if dev.role in ("gpu_server", "oob_switch"):
            continue
        ns = twin.namespaces[dev.name]
        plane = emulators.plane(dev.nos)
        lay = plane.layout(files["devices/%s/%s" % (dev.name, plane.CONFIG_FILE)])
        assert ns.mgmt_plane == (dev.nos, dev.model.name, lay["native"])
        assert ns.lldp_ports == [plane.PORT_PATTERN]
        for port in desired.cabled_ports(plan, dev.name):
            assert (ns.ifaces[port].mtu, ns.ifaces[port].up) == (lay["ports"][port]["mtu"], lay["ports"][port]["up"])
    # The management plane is what the rendered file says, read once (the lab's switches run SONiC).
    leaf = twin.namespaces["lab-r0-leaf01"]
    assert leaf.mgmt_plane[2] == json.loads(files["devices/lab-r0-leaf01/config_db.json"])


def test_a_cabled_port_the_rendered_config_lacks_is_refused_in_one_line(lab):
    plan, files = lab
    host = "lab-r0-leaf01"
    dev = plan.device(host)
    plane = emulators.plane(dev.nos)
    path = "devices/%s/%s" % (host, plane.CONFIG_FILE)
    port = desired.cabled_ports(plan, host)[0]
    native = json.loads(files[path])
    del native["PORT"][port]
    broken = dict(files, **{path: json.dumps(native)})
    with pytest.raises(model.TwinError, match=r"^%s: port %s is cabled in the plan but missing from its rendered %s$"
                       % (host, port, plane.CONFIG_FILE)):
        desired.build_twin(plan, broken)
    with pytest.raises(model.TwinError, match=r"^%s: no rendered %s in the build" % (host, path)):
        desired.build_twin(plan, {k: v for k, v in files.items() if k != path})


def test_a_self_applying_switch_keeps_its_ports_bridges_and_its_vrf_namespaces_at_a_new_up(tmp_path):
    """A switch whose NOS applies its own configuration (a Cumulus switch of the twin) bridged a tenant VRF's port
    itself (twin/switch.py, self_applied_vrfs): the twin's own bring-up neither takes the port out of the bridge nor removes the
    VRF's namespace, which the next `up` keeps in the state file for `down`."""
    from gpufabric.twin import lifecycle, network

    port = model.Iface("swp1s0", "veth", None, None, None, False)     # as _self_applying makes it
    have = {"swp1s0": {"kind": "veth", "mtu": 9216, "master": "bswp1s0", "up": True, "addrs": []}}
    ns = model.Namespace("c-r0-leaf01", "backend_leaf")
    ns.add(port)
    assert network.namespace_batch(ns, have) == ([], [])
    laid_out = model.Namespace("s-r0-leaf01", "backend_leaf")
    laid_out.add(model.Iface("Ethernet0", "veth", 9100, ["10.0.0.0/31"]))
    lines, _changes = network.namespace_batch(laid_out, {"Ethernet0": dict(have["swp1s0"], addrs=["10.0.0.0/31"])})
    assert "link set Ethernet0 nomaster" in lines     # a switch the twin lays out gets what its layout says

    wanted = model.Twin("c")
    wanted.ns("c-r0-leaf01", "backend_leaf").nos_plane = ("cumulus", "5.14", None)
    wanted.ns("s-r0-leaf01", "backend_leaf")
    previous = ["c-r0-leaf01", "c-r0-leaf01-Vrf-alpha", "s-r0-leaf01", "s-r0-leaf01-Vrf-alpha"]
    assert lifecycle._self_applied_vrf_namespaces(wanted, previous) == ["c-r0-leaf01-Vrf-alpha"]
