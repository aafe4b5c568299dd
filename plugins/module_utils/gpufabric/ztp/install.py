"""The provisioning host's side of the ZTP tree: install the HTTP files from one bundle.

The controller writes build/<cluster>/ztp/www-bundle.json ({path under www/: text}, tree.py); the ztp_server role
copies that one file to the provisioning host, where module ztp_tree calls ``install_bundle``. Copying the tree file
by file costs Ansible a module run per file (hundreds for a lab, tens of thousands for a large cluster); the bundle
costs one copy and one module run, and a second run, or a file changed by hand, is found by comparing the contents.

Each file that differs is written beside itself and renamed over it, so a switch or an iDRAC fetching it meanwhile
reads the old file or the new one, never a part. Files the bundle does not name (the images operators put under
www/) are left alone. Standard library only (and files.py): this runs on the provisioning host.
"""
import os

from ..files import replace_file

FILE_MODE = 0o644
DIR_MODE = 0o755


class BundleError(ValueError):
    pass


def checked_path(rel):
    """``rel`` split into its parts, or BundleError when it could leave the tree (absolute, empty or '..')."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise BundleError("bundle path %r is not a plain relative path under www/" % rel)
    return parts


def _current(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError):
        return None


def install_bundle(files, dest, check=False):
    """Make every ``files`` entry ({relative path: text}) under directory ``dest`` hold its text, mode 0644
    (directories 0755). Returns the sorted relative paths that differed; with ``check`` nothing is written."""
    if not isinstance(files, dict) or not all(isinstance(t, str) for t in files.values()):
        raise BundleError("the bundle is not a mapping of path to text")
    for rel in files:
        checked_path(rel)
    changed = []
    for rel in sorted(files):
        data = files[rel].encode("utf-8")
        path = os.path.join(dest, *checked_path(rel))
        if _current(path) == data and (os.stat(path).st_mode & 0o777) == FILE_MODE:
            continue
        changed.append(rel)
        if check:
            continue
        os.makedirs(os.path.dirname(path), mode=DIR_MODE, exist_ok=True)
        replace_file(path, data, FILE_MODE)
    return changed
