"""scripts/check_imports.py: the layering of plugins/module_utils/gpufabric holds, and the checker finds
what it must (a cycle, even through a function-local import or a module naming its own package; a package
cycle; an import up a layer of docs/architecture.md's table; a neutral module importing a NOS home or the
twin; one NOS home importing another; an emulator importing the product it judges, the product importing an
emulator)."""
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
        " go through nos_registry.home()",
        "plugins/module_utils/gpufabric/nos/cumulus/__init__.py:1: NOS home nos.cumulus imports another NOS home"
        " nos.sonic.render",
        "plugins/module_utils/gpufabric/validate/transport.py:1: validate.transport imports the twin (twin); pass"
        " the twin's transport in instead",
    ]
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "check_imports.py"), root],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and proc.stdout.splitlines() == lines


def _emulator_tree(tmp_path, **extra):
    files = {
        "netns_process.py": "", "errors.py": "",
        "nos/__init__.py": "", "nos/sonic/__init__.py": "", "nos/sonic/yang.py": "", "nos/sonic/deploy.py": "",
        "twin/__init__.py": "", "twin/daemons.py": "", "twin/lifecycle.py": "from .emulators import plane\n",
        "twin/emulators/__init__.py": "import importlib\n", "twin/emulators/sonic/__init__.py": "",
        "twin/emulators/sonic/cmd.py": "from . import patcher\nfrom ... import daemons\nfrom ....netns_process import x\n",
        "twin/emulators/sonic/patcher.py": "", "twin/emulators/cumulus/__init__.py": "",
        "twin/emulators/cumulus/api.py": "",
    }
    files.update(extra)
    return _tree(tmp_path, files)


def test_an_emulator_using_only_itself_and_the_twin_is_no_offence(tmp_path):
    assert check_imports.offences(_emulator_tree(tmp_path)) == []


def test_an_emulator_importing_the_product_it_judges_fails(tmp_path):
    root = _emulator_tree(tmp_path, **{
        "twin/emulators/sonic/patcher.py": "def load():\n    from ....nos.sonic.yang import validate\n",
        "twin/emulators/cumulus/api.py": "from ...emulators.sonic import cmd\nfrom ....errors import E\n"})
    assert check_imports.offences(root) == [
        "plugins/module_utils/gpufabric/twin/emulators/cumulus/api.py:2: emulator twin.emulators.cumulus.api"
        " imports errors (product code it judges): an emulator imports none of the product; write its own",
        "plugins/module_utils/gpufabric/twin/emulators/cumulus/api.py:1: emulator twin.emulators.cumulus.api"
        " imports twin.emulators.sonic.cmd (another NOS's emulator): an emulator imports none of the product;"
        " write its own",
        "plugins/module_utils/gpufabric/twin/emulators/sonic/patcher.py:2: emulator twin.emulators.sonic.patcher imports"
        " nos.sonic.yang (product code it judges): an emulator imports none of the product; write its own",
    ]


def test_the_product_importing_an_emulator_fails(tmp_path):
    root = _emulator_tree(tmp_path, **{
        "nos/sonic/deploy.py": "def plan():\n    from ...twin.emulators.sonic import patcher\n",
        "twin/lifecycle.py": "from .emulators.cumulus import api\n"})
    assert check_imports.offences(root) == [
        "plugins/module_utils/gpufabric/nos/sonic/deploy.py:2: product module nos.sonic.deploy imports the emulator"
        " twin.emulators.sonic.patcher: the product imports nothing of what judges it",
        "plugins/module_utils/gpufabric/twin/lifecycle.py:1: twin.lifecycle names the emulator"
        " twin.emulators.cumulus.api; ask twin.emulators.plane(name)",
    ]


def test_a_package_cycle_is_found(tmp_path):
    # No module cycle (p.a -> q.b -> p.c), but the packages p and q import each other.
    files = {"p/__init__.py": "", "p/a.py": "from ..q import b\n", "p/c.py": "", "q/__init__.py": "",
             "q/b.py": "def f():\n    from ..p import c\n"}
    root = _tree(tmp_path, files)
    assert check_imports.offences(root) == [
        "package cycle between p, q (plugins/module_utils/gpufabric/p/a.py:1 -> q.b; "
        "plugins/module_utils/gpufabric/q/b.py:2 -> p.c)"]


def test_each_home_is_a_package_of_its_own(tmp_path):
    # nos.a -> x -> nos.b is no cycle: the homes are two packages, not one nos/.
    files = {"nos/__init__.py": "", "nos/a/__init__.py": "from ...x import f\n", "nos/b/__init__.py": "",
             "x.py": "def f():\n    import importlib\n"}
    assert check_imports.offences(_tree(tmp_path, files)) == []
    files["x.py"] = "from .nos.b import g\n"
    lines = check_imports.offences(_tree(tmp_path, files))
    assert lines == ["plugins/module_utils/gpufabric/x.py:1: neutral module x imports the NOS home nos.b;"
                     " go through nos_registry.home()"]


def test_a_module_naming_its_own_package_that_imports_it_is_a_cycle(tmp_path):
    # As nos/cumulus/ztp.py took FILE from its package while the package imported ztp.
    files = {"h/__init__.py": "from .ztp import files\nFILE = 'a'\n", "h/ztp.py": "from . import FILE\n"}
    (line,) = check_imports.offences(_tree(tmp_path, files))
    assert line == ("import cycle between h, h.ztp (plugins/module_utils/gpufabric/h/__init__.py:1 -> h.ztp; "
                    "plugins/module_utils/gpufabric/h/ztp.py:1 -> h)")
    # A package importing its modules is no cycle by itself: Python runs the package first for every module.
    files["h/ztp.py"] = "from .render import FILE\n"
    files["h/render.py"] = "FILE = 'a'\n"
    assert check_imports.offences(_tree(tmp_path, files)) == []


LAYERS = """# Architecture

## Layers

| layer | modules | may import |
|---|---|---|
| 1 bottom | `low`, `pkg/base.py`, `low2/__init__.py` | each other |
| 2 middle | `pkg/`, `mid` | 1 |
| 3 top | `nos/<name>/`, `top` | 1-2 |

Upward imports:

| from | to | why |
|---|---|---|
%s
## Next
"""


def _layered(tmp_path, files, upward=""):
    root = _tree(tmp_path, files)
    tmp_path.joinpath("docs").mkdir(exist_ok=True)
    tmp_path.joinpath("docs", "architecture.md").write_text(LAYERS % upward)
    return root


def test_the_layer_table_is_read_from_the_architecture_document():
    table = check_imports.read_layer_table(ROOT)
    numbers = [layer[0] for layer in table.layers]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) <= 9
    assert len(table.upward) <= check_imports.MAX_UPWARD
    assert table.layer_of("nos_registry") == 1 and table.layer_of("nos.sonic.render") == numbers[-1]
    assert table.layer_of("structured.server") < table.layer_of("validate.report") < table.layer_of("twin")


def test_an_import_up_a_layer_fails_unless_the_table_lists_it(tmp_path):
    files = {"low.py": "", "mid.py": "from .low import a\n", "top.py": "from .mid import b\n",
             "pkg/__init__.py": "", "pkg/base.py": "from ..low import c\n", "pkg/more.py": "from . import base\n",
             "nos/__init__.py": "", "nos/x/__init__.py": "from ...top import d\n"}
    assert check_imports.offences(_layered(tmp_path, files)) == []
    # pkg/base.py is layer 1, but importing it runs pkg/__init__.py (layer 2).
    files["low.py"] = "def f():\n    from .pkg import base\n"
    files["pkg/base.py"] = ""
    assert check_imports.offences(_layered(tmp_path, files)) == [
        "plugins/module_utils/gpufabric/low.py:2: low (layer 1) imports pkg (layer 2): an import up a layer"]
    files["low.py"] = "from .mid import e\n"
    files["mid.py"] = ""
    assert check_imports.offences(_layered(tmp_path, files)) == [
        "plugins/module_utils/gpufabric/low.py:1: low (layer 1) imports mid (layer 2): an import up a layer"]
    assert check_imports.offences(_layered(tmp_path, files, "| `low` | `mid` | a reason |\n")) == []
    # A package's own module named alone: its other modules are another entry's (here none: they fail).
    files.update({"low2/__init__.py": "", "low2/sub.py": "from . import x\n"})
    lines = check_imports.offences(_layered(tmp_path, files, "| `low` | `mid` | a reason |\n"))
    assert lines == ["plugins/module_utils/gpufabric/low2/sub.py: module low2.sub has no layer in "
                     "docs/architecture.md (\"Layers\")"]


def test_a_listed_upward_import_that_is_gone_or_too_many_fail(tmp_path):
    files = {"low.py": "", "mid.py": "", "top.py": "", "pkg/__init__.py": "", "pkg/base.py": ""}
    assert check_imports.offences(_layered(tmp_path, files, "| `low` | `mid` | a reason |\n")) == [
        "docs/architecture.md: the upward import low -> mid no longer happens: remove it from the table"]
    files["low.py"] = "from . import mid, top\nfrom .pkg import more\n"
    files["pkg/more.py"] = ""
    files["mid.py"] = "from . import top\n"
    rows = "".join("| `%s` | `%s` | why |\n" % pair
                   for pair in [("low", "mid"), ("low", "top"), ("low", "pkg/"), ("mid", "top")])
    assert check_imports.offences(_layered(tmp_path, files, rows)) == [
        "docs/architecture.md: 4 upward imports listed; at most 3"]


def test_a_module_no_layer_names_fails(tmp_path):
    files = {"low.py": "", "mid.py": "", "top.py": "", "stray.py": ""}
    assert check_imports.offences(_layered(tmp_path, files)) == [
        "plugins/module_utils/gpufabric/stray.py: module stray has no layer in docs/architecture.md (\"Layers\")"]
