"""The manifest of a build directory: what build/<cluster>/ was built from, and each file's content hash.

build/<cluster>/.build-manifest is written last, inside the new tree before it is swapped in (or renamed over
the old manifest when only it changes), so a manifest always describes the tree that holds it. Its first line
is a JSON header; every other line is one file: ``<content hash> <size> <mtime_ns> <path>``.

- ``key`` hashes every input of the build: the spec as planned (drain and swap options applied), the tenant
  assignment, this collection's code and data (every file under module_utils/gpufabric/) and its version, and
  the Graphviz ``dot`` found on PATH. A full build whose key equals the manifest's renders and writes nothing.
- ``key`` is null after a partial build (--limit, --tags): the tree then mixes builds of different inputs.
- The file lines let the next build that does render know which old files it would write again unchanged
  without reading them (a file whose size or mtime no longer matches its line is read and compared instead).
"""
import hashlib
import json
import os
import shutil
import tempfile

NAME = ".build-manifest"
FORMAT = 1
COLLECTION_VERSION = "0.1.0"  # galaxy.yml's version (module_utils cannot read galaxy.yml where it is installed)
_CODE_ROOT = os.path.dirname(os.path.abspath(__file__))
_code_hash = None


def content_hash(data):
    """Hash of file content ``data`` (bytes)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def code_version():
    """Hash of this collection's code and data (every file under module_utils/gpufabric/), once per process."""
    global _code_hash
    if _code_hash is None:
        digest = hashlib.blake2b(digest_size=16)
        for directory, dirs, names in os.walk(_CODE_ROOT):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(directory, name)
                digest.update(os.path.relpath(path, _CODE_ROOT).encode("utf-8") + b"\0")
                with open(path, "rb") as f:
                    digest.update(content_hash(f.read()).encode("ascii"))
        _code_hash = digest.hexdigest()
    return _code_hash


def _canonical(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


def _dot():
    exe = shutil.which("dot")
    if exe is None:
        return None
    st = os.stat(exe)
    return [os.path.realpath(exe), st.st_size, st.st_mtime_ns]


def input_key(plan):
    """Hash of everything the full build of ``plan`` (its tenant assignment attached) is rendered from."""
    assignment = getattr(plan, "tenant_assignment", None)
    inputs = {
        "spec": plan.spec,
        "tenants": None if assignment is None else [assignment.as_data(), getattr(assignment, "isolation", None)],
        "code": code_version(),
        "collection": COLLECTION_VERSION,
        "dot": _dot(),
    }
    text = json.dumps(inputs, sort_keys=True, default=_canonical, separators=(",", ":"))
    return content_hash(text.encode("utf-8"))


def read_header(root):
    """The header of ``root``'s manifest, or None when it has none (or one this code cannot read)."""
    try:
        with open(os.path.join(root, NAME), encoding="utf-8") as f:
            header = json.loads(f.readline())
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        return None
    return header


def read_entries(root):
    """{path: (hash, size, mtime_ns)} of ``root``'s manifest, or {} when it has none readable."""
    if read_header(root) is None:
        return {}
    entries = {}
    try:
        with open(os.path.join(root, NAME), encoding="utf-8") as f:
            f.readline()
            for line in f:
                digest, size, mtime, path = line.rstrip("\n").split(" ", 3)
                entries[path] = (digest, int(size), int(mtime))
    except (OSError, ValueError):
        return {}
    return entries


def write(root, key, entries):
    """Write ``root``'s manifest (atomically): ``key`` (None for a partial build) and {path: (hash, size,
    mtime_ns)}."""
    header = {"format": FORMAT, "key": key, "collection": COLLECTION_VERSION, "files": len(entries)}
    fd, tmp = tempfile.mkstemp(dir=root, prefix=NAME + ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(header, sort_keys=True) + "\n")
            for path in sorted(entries):
                digest, size, mtime = entries[path]
                f.write("%s %d %d %s\n" % (digest, size, mtime, path))
        os.chmod(tmp, 0o644)
        os.rename(tmp, os.path.join(root, NAME))
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
