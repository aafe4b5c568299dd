"""Regenerate docs/spec.md and the published JSON Schema docs/topology.schema.json from the spec
declaration (`make docs`)."""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "plugins", "module_utils"))

from gpufabric.files import write_atomic  # noqa: E402
from gpufabric.spec import reference_json_schema, reference_markdown  # noqa: E402

SCHEMA_PATH = os.path.join(ROOT, "docs", "topology.schema.json")


def schema_text():
    return json.dumps(reference_json_schema(), indent=1) + "\n"


if __name__ == "__main__":
    for path, text in ((os.path.join(ROOT, "docs", "spec.md"), reference_markdown()), (SCHEMA_PATH, schema_text())):
        print(("updated " if write_atomic(path, text) else "unchanged ") + path)
