"""scripts/check_imports.py: the layering of plugins/module_utils/gpufabric holds, and the checker finds
what it must (a cycle, even through a function-local import; a neutral module importing a NOS home or the
twin; one NOS home importing another)."""
import os
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_imports  # noqa: E402


def _tree(tmp_path, files):
    pkg = tmp_path.joinpath("plugins", "module_utils", "gpufabric")
    for rel, text in dict({"__init__.py": ""}, **files).items():
        path = pkg.joinpath(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


def test_the_collection_has_no_offence():
    assert check_imports.offences(ROOT) == []


def test_the_script_exits_0_on_the_collection():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_imports.py")], capture_output=True,
                          text=True, check=False)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_a_cycle_hidden_in_a_function_is_found(tmp_path):
    root = _tree(tmp_path, {"a.py": "from .b import x\n", "b.py": "def x():\n    from .a import y\n"})
    (line,) = check_imports.offences(root)
    assert line.startswith("import cycle between a, b (") and "a.py:1 -> b" in line and "b.py:2 -> a" in line


def test_a_neutral_module_importing_a_nos_home_or_the_twin_is_found(tmp_path):
    root = _tree(tmp_path, {
        "nos/__init__.py": "import importlib\n", "nos/sonic/__init__.py": "", "nos/sonic/render.py": "",
        "nos/cumulus/__init__.py": "from ..sonic import render\n", "twin/__init__.py": "",
        "build.py": "from .nos.sonic.render import x\nfrom .nos import home\n",
        "validate/__init__.py": "", "validate/transport.py": "from ..twin import state_dir\n"})
    lines = check_imports.offences(root)
    assert lines == [
        "plugins/module_utils/gpufabric/build.py:1: neutral module build imports the NOS home nos.sonic.render;"
        " go through nos.home()",
        "plugins/module_utils/gpufabric/nos/cumulus/__init__.py:1: NOS home nos.cumulus imports another NOS home"
        " nos.sonic.render",
        "plugins/module_utils/gpufabric/validate/transport.py:1: validate.transport imports the twin (twin); pass"
        " the twin's transport in instead",
    ]
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_imports.py"), root],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and proc.stdout.splitlines() == lines


def test_a_package_cycle_is_found_and_a_known_one_that_is_gone_is_stale(tmp_path, monkeypatch):
    # No module cycle (p.a -> q.b -> p.c), but the packages p and q import each other.
    files = {"p/__init__.py": "", "p/a.py": "from ..q import b\n", "p/c.py": "", "q/__init__.py": "",
             "q/b.py": "def f():\n    from ..p import c\n"}
    root = _tree(tmp_path, files)
    monkeypatch.setattr(check_imports, "KNOWN_PACKAGE_CYCLES", {})
    assert check_imports.offences(root) == [
        "package cycle between p, q (plugins/module_utils/gpufabric/p/a.py:1 -> q.b; "
        "plugins/module_utils/gpufabric/q/b.py:2 -> p.c)"]
    monkeypatch.setattr(check_imports, "KNOWN_PACKAGE_CYCLES", {("p", "q"): "to be split"})
    assert check_imports.offences(root) == []
    tmp_path.joinpath("plugins", "module_utils", "gpufabric", "q", "b.py").write_text("def f():\n    pass\n")
    assert check_imports.offences(root) == [
        "package cycle p, q is gone: remove it from KNOWN_PACKAGE_CYCLES in scripts/check_imports.py"]
