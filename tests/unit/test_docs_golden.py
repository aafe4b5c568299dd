"""The lab's documentation, byte for byte. Regenerate after a reviewed change with
GOLDEN_UPDATE=1 .venv/bin/python -m pytest tests/unit/test_docs_golden.py
SVG is left out: its bytes depend on the Graphviz version; the DOT source is compared instead."""
import os

from conftest import ROOT
from docs_helpers import plan_of
from gpufabric.docs import render_docs

GOLDEN = os.path.join(ROOT, "tests", "golden", "lab")


def _golden_files():
    found = {}
    for directory, _dirs, names in os.walk(os.path.join(GOLDEN, "docs")):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as f:
                found[os.path.relpath(path, GOLDEN).replace(os.sep, "/")] = f.read()
    return found


def test_lab_docs_match_golden():
    files = render_docs(plan_of("lab"), svg=False)
    if os.environ.get("GOLDEN_UPDATE") == "1":
        for rel, text in files.items():
            path = os.path.join(GOLDEN, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    golden = _golden_files()
    assert sorted(golden) == sorted(files), "files differ; GOLDEN_UPDATE=1 regenerates after review"
    for rel, text in files.items():
        assert text == golden[rel], "%s differs from tests/golden/lab/%s" % (rel, rel)
