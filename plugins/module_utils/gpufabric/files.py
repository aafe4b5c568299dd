"""Writing a file whole: beside itself, then renamed over it, so a reader sees the old file or the new one, never
part of one. Standard library only: module ztp_tree ships it to the provisioning host."""
import os
import tempfile


def replace_file(path, data, mode=0o644):
    """Write ``data`` (bytes or text) to ``path`` through a temporary file in its directory (made if missing),
    with permission bits ``mode``; on any failure the temporary file is removed and ``path`` is untouched."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, staging = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(staging, mode)
        os.replace(staging, path)
    except BaseException:
        if os.path.exists(staging):
            os.unlink(staging)
        raise


def write_atomic(path, text):
    """Write ``text`` to ``path`` through a temporary file in the same directory, so readers see the old
    file or the new one, never half of one. Returns True when the content changed."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return False
    except (FileNotFoundError, UnicodeDecodeError):
        pass
    replace_file(path, text)
    return True
