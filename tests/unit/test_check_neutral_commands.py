"""scripts/check_neutral_commands.py: outside the NOS homes, the twin and frr_linux/, no module of the core package
names a device command (vtysh, ip -j, a NOS's CLI), and the checker finds what it must while leaving prose alone."""
import os
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_neutral_commands  # noqa: E402


def _tree(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path.joinpath(check_neutral_commands.PACKAGE, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


def test_the_collection_has_no_offence():
    assert check_neutral_commands.offences(ROOT) == []
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_neutral_commands.py")],
                          capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_a_neutral_module_running_or_parsing_a_device_command_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(check_neutral_commands, "ALLOWED", {})
    files = {
        # As validate/state.py held SWITCH_COMMANDS before the homes gave them.
        "validate/state.py": '"""Reads vtysh and ip -j output (prose: fine)."""\n'
                             'BGP = ("vtysh", "show bgp summary json")\nLINKS = "ip -j -s link show"\n',
        "bgp_gate.py": 'def f():\n    """FRR\'s show bgp json."""\n    return "no fabric_vtysh_command here"\n',
        "nos/sonic/collectors.py": 'QOS = "sonic-cfggen -d --print-data"\n',
        "frr_linux/collectors.py": 'BGP = ("vtysh", "show ip route json")\n',
        "twin/transport.py": 'V = "vtysh -N %s"\n',
    }
    assert check_neutral_commands.offences(_tree(tmp_path, files)) == [
        "plugins/module_utils/gpufabric/validate/state.py:2: neutral code names the device command 'vtysh'; it belongs "
        "to a NOS home (or frr_linux/, which homes choose to use)",
        "plugins/module_utils/gpufabric/validate/state.py:2: neutral code names the device command 'show bgp'; it "
        "belongs to a NOS home (or frr_linux/, which homes choose to use)",
        "plugins/module_utils/gpufabric/validate/state.py:3: neutral code names the device command 'ip -j'; it belongs "
        "to a NOS home (or frr_linux/, which homes choose to use)",
    ]


def test_an_allowed_entry_with_no_command_is_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(check_neutral_commands, "ALLOWED", {"server/": "Linux hosts"})
    root = _tree(tmp_path, {"server/live.py": '"""Parses ip -j link (prose)."""\n'})
    assert check_neutral_commands.offences(root) == [
        "scripts/check_neutral_commands.py: ALLOWED entry server/ names no device command any more: remove it"]
