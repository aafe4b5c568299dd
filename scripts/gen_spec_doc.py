"""Regenerate docs/spec.md from the spec schema (`make docs`)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

from gpufabric.export import write_atomic  # noqa: E402
from gpufabric.spec import reference_markdown  # noqa: E402

if __name__ == "__main__":
    path = os.path.join(ROOT, "docs", "spec.md")
    print(("updated " if write_atomic(path, reference_markdown()) else "unchanged ") + path)
