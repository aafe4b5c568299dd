"""scripts/check_sizes.py: modules at or under 300 lines and functions at or under 60, or named with their reason in
docs/architecture.md ("Small rooms"); a named one that grew, or shrank back under, fails too."""
import os
import sys

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import check_sizes  # noqa: E402

DOC = "# Architecture\n\n## Small rooms\n\n| module or function | lines | why |\n|---|---|---|\n%s\n## Next\n"


def _tree(tmp_path, files, rows=""):
    for rel, text in files.items():
        path = tmp_path.joinpath(check_sizes.PACKAGE, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    tmp_path.joinpath("docs").mkdir(exist_ok=True)
    tmp_path.joinpath("docs", "architecture.md").write_text(DOC % rows)
    return str(tmp_path)


def _function(name, lines):
    return "def %s():\n%s" % (name, "    x = 1\n" * (lines - 1))


def test_the_collection_has_no_offence():
    assert check_sizes.offences(ROOT) == []


def test_a_large_module_or_function_fails_unless_named(tmp_path):
    files = {"small.py": _function("f", 60), "big.py": "x = 1\n" * 301, "deep/mod.py": _function("g", 61)}
    assert check_sizes.offences(_tree(tmp_path, files)) == [
        "plugins/module_utils/gpufabric/big.py: module of 301 lines (at most 300): split it, or say why in "
        "docs/architecture.md (\"Small rooms\")",
        "plugins/module_utils/gpufabric/deep/mod.py:g: function of 61 lines (at most 60): split it, or say why in "
        "docs/architecture.md (\"Small rooms\")"]
    rows = "| `big.py` | 301 | one table |\n| `deep/mod.py:g` | 61 | one formula |\n"
    assert check_sizes.offences(_tree(tmp_path, files, rows)) == []


def test_a_named_one_that_grew_or_shrank_fails(tmp_path):
    files = {"big.py": "x = 1\n" * 320, "ok.py": "class C:\n" + "    " + _function("m", 30).replace("\n", "\n    ")}
    rows = "| `big.py` | 310 | one table |\n| `ok.py:C.m` | 70 | was long |\n"
    assert check_sizes.offences(_tree(tmp_path, files, rows)) == [
        "plugins/module_utils/gpufabric/big.py: grew to 320 lines, past the 310 docs/architecture.md "
        "(\"Small rooms\") allows",
        "docs/architecture.md (\"Small rooms\"): ok.py:C.m is not over its limit (or gone): remove it"]
