"""The build's tree on disk: the new build compared file by file with the one in place (by its manifest), written
into a staging tree beside it (files equal to the old ones hard-linked), the lock on a build directory, the
leftovers of killed runs, whole trees swapped in with two renames (``write_tree``), and the diffs of a change.
``build.write_build`` drives it; the renderers' jobs are ``build.py``'s.
"""
import difflib
import os
import shutil
import tempfile

from . import build_manifest

# Beside build/<cluster>/, the build before the current one: --diff compares against it.
PREVIOUS_SUFFIX = ".previous"
# Subdirectories of build/<cluster>/ that other playbooks write (validate.yml's reports).
NOT_BUILT = ("validation/",)
# Files a --diff shows in full (up to DIFF_LINES lines each); the rest are counted.
DIFF_FILES = 40
DIFF_LINES = 400
# Subtrees of build/<cluster>/ that other writers own (the ztp playbook writes ztp/ with inputs the
# plan does not hold): the build neither compares nor drops them.
FOREIGN_SUBTREES = ("ztp",)


def _read_tree(root, skip=()):
    found = {}
    for directory, dirs, names in os.walk(root):
        if directory == root:
            dirs[:] = [d for d in dirs if d not in skip]
        for name in names:
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                found[os.path.relpath(path, root)] = f.read()
    return found


def list_tree(root, skip=()):
    """Relative paths of the files under ``root`` (not its subtrees ``skip`` nor its manifest)."""
    found = []
    for directory, dirs, names in os.walk(root):
        rel = os.path.relpath(directory, root)
        if directory == root:
            dirs[:] = [d for d in dirs if d not in skip]
            names = [n for n in names if n != build_manifest.NAME]
        found.extend(n if rel == "." else rel + "/" + n for n in names)
    return found


def untouched(root, entries):
    """Whether the files under ``root`` (but its foreign subtrees and the reports of NOT_BUILT) are exactly
    those of the manifest ``entries``, each with the size and mtime it was written with: no file added,
    removed or edited since."""
    seen = 0
    pending = [(root, "")]
    while pending:
        directory, prefix = pending.pop()
        with os.scandir(directory) as it:
            for entry in it:
                rel = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    if not prefix and (entry.name in FOREIGN_SUBTREES or rel + "/" in NOT_BUILT):
                        continue
                    pending.append((entry.path, rel + "/"))
                    continue
                if not prefix and entry.name == build_manifest.NAME:
                    continue
                known = entries.get(rel)
                if known is None:
                    return False
                st = entry.stat(follow_symlinks=False)
                if st.st_size != known[1] or st.st_mtime_ns != known[2]:
                    return False
                seen += 1
    return seen == sum(1 for rel in entries if not rel.startswith(NOT_BUILT))


def _changes(old, new):
    return sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))


def _write_tree(staging, files, old_root, old):
    """Write ``files`` under ``staging``; a file equal to the old build's is hard-linked, not rewritten
    (files are replaced, never edited, so the old build keeps its own copy)."""
    for rel, text in files.items():
        path = os.path.join(staging, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if old.get(rel) == text:
            try:
                os.link(os.path.join(old_root, rel), path)
                continue
            except OSError:
                pass
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


class Tree:
    """The new build, file by file: compared with the old one (by its manifest's hashes, or by reading the old
    file where the manifest cannot vouch for it), written into ``staging`` (None: only compared), a file
    equal to the old one hard-linked rather than written, so that its mtime stays."""

    def __init__(self, old_root, staging, shown=0):
        self.old_root, self.staging = old_root, staging
        self.old = build_manifest.read_entries(old_root) if old_root else {}
        self.entries = {}     # the new manifest
        self.changed = []
        self.made = set()     # directories made under staging
        self.shown = shown    # how many changed files' texts to keep, the first in diff order (--diff)
        self.new_texts = {}

    def _old_hash(self, rel):
        """(hash, stat) of the old build's file ``rel``, (None, None) if it has none."""
        if not self.old_root:
            return None, None
        path = os.path.join(self.old_root, rel)
        try:
            st = os.stat(path)
        except OSError:
            return None, None
        entry = self.old.get(rel)
        if entry and entry[1] == st.st_size and entry[2] == st.st_mtime_ns:
            return entry[0], st
        with open(path, "rb") as f:
            return build_manifest.content_hash(f.read()), st

    def part(self):
        """A tree for one job's files, in a forked worker: the same old build and staging tree, its own results."""
        part = Tree.__new__(Tree)
        part.old_root, part.staging, part.old, part.shown = self.old_root, self.staging, self.old, self.shown
        part.entries, part.changed, part.made, part.new_texts = {}, [], set(self.made), {}
        return part

    def report(self):
        """(manifest entries, [(changed path, its text when --diff shows texts)]) of a part."""
        return self.entries, [(rel, self.new_texts.get(rel)) for rel in self.changed]

    def merge(self, entries, changed):
        """A part's report, made in a worker, into this tree."""
        self.entries.update(entries)
        for rel, text in changed:
            self._changed(rel, text)

    def _changed(self, rel, text):
        self.changed.append(rel)
        if self.shown:
            self.new_texts[rel] = text
            if len(self.new_texts) > 2 * self.shown:
                for path in diff_order(self.new_texts)[self.shown:]:
                    del self.new_texts[path]

    def texts(self):
        """{"old": {path: text}, "new": {path: text}} of the first changed files in diff order."""
        new = {rel: text for rel, text in self.new_texts.items() if rel in diff_order(self.new_texts)[:self.shown]}
        old = {}
        for rel in new:
            try:
                with open(os.path.join(self.old_root or "", rel), encoding="utf-8", errors="replace") as f:
                    old[rel] = f.read()
            except OSError:
                continue
        return {"old": old, "new": {rel: text for rel, text in new.items() if text is not None}}

    def _dir(self, rel):
        directory = os.path.dirname(os.path.join(self.staging, rel))
        if directory not in self.made:
            os.makedirs(directory, exist_ok=True)
            self.made.add(directory)

    def add(self, rel, text):
        data = text.encode("utf-8")
        digest = build_manifest.content_hash(data)
        old_digest, st = self._old_hash(rel)
        if old_digest != digest:
            self._changed(rel, text)
        if self.staging is None:
            self.entries[rel] = (digest, 0, 0)
            return
        self._dir(rel)
        path = os.path.join(self.staging, rel)
        if old_digest == digest:
            try:
                os.link(os.path.join(self.old_root, rel), path)
                self.entries[rel] = (digest, st.st_size, st.st_mtime_ns)
                return
            except OSError:
                pass
        with open(path, "wb", buffering=0) as f:
            f.write(data)
            st = os.fstat(f.fileno())
        self.entries[rel] = (digest, st.st_size, st.st_mtime_ns)

    def carry(self, rel):
        """Keep the old build's file ``rel`` as it is (not the build's to write, or outside a partial build)."""
        digest, st = self._old_hash(rel)
        if self.staging is None:
            self.entries[rel] = (digest, 0, 0)
            return
        self._dir(rel)
        os.link(os.path.join(self.old_root, rel), os.path.join(self.staging, rel))
        self.entries[rel] = (digest, st.st_size, st.st_mtime_ns)

    def drop(self, rel):
        self._changed(rel, None)


def lock(build_root):
    """An exclusive lock on builds into ``build_root`` (flock on the directory itself: no file left behind),
    held until the returned descriptor is closed."""
    import fcntl
    fd = os.open(build_root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:
        os.close(fd)
        raise
    return fd


def remove_leftovers(build_root, cluster):
    """Remove the unfinished trees of runs killed while they wrote (never seen as the build: a tree is only
    renamed into place once complete). Returns how many there were."""
    prefix = "." + cluster + ".new-"
    left = [name for name in os.listdir(build_root) if name.startswith(prefix)]
    for name in left:
        shutil.rmtree(os.path.join(build_root, name), ignore_errors=True)
    return len(left)


def write_tree(target, files, check=False):
    """Make directory ``target`` hold exactly ``files`` ({relative path: text}), swapped in with two
    renames so readers see the old tree or the new one. Returns the changed paths, empty when nothing
    changed and nothing was touched; with ``check`` only returns them."""
    old = _read_tree(target) if os.path.isdir(target) else {}
    changed = _changes(old, files)
    if check or not changed:
        return changed
    parent, name = os.path.split(os.path.normpath(target))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(dir=parent, prefix="." + name + ".new-")
    retired = None
    try:
        _write_tree(staging, files, target, old)
        os.chmod(staging, 0o755)
        if os.path.isdir(target):
            retired = tempfile.mkdtemp(dir=parent, prefix="." + name + ".old-")
            os.rename(target, os.path.join(retired, name))
        os.rename(staging, target)
    except BaseException:
        if retired and not os.path.isdir(target):
            os.rename(os.path.join(retired, name), target)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        if retired:
            shutil.rmtree(retired, ignore_errors=True)
    return changed


def previous_files(plan, build_root, paths):
    """{path: text} of ``paths`` in the build before the current one (absent files left out)."""
    previous = os.path.join(build_root, plan.summary["cluster"] + PREVIOUS_SUFFIX)
    found = {}
    for rel in paths:
        try:
            with open(os.path.join(previous, rel), encoding="utf-8", errors="replace") as f:
                found[rel] = f.read()
        except OSError:
            continue
    return found


def unified_diffs(old, new, paths, max_lines=DIFF_LINES, max_files=None):
    """Unified diffs of ``paths`` between two {path: text} trees, bounded: at most ``max_files`` files
    and ``max_lines`` lines per file, with a line saying what was left out."""
    max_files = max_files or DIFF_FILES
    out = []
    for rel in paths[:max_files]:
        lines = list(difflib.unified_diff((old.get(rel) or "").splitlines(True), (new.get(rel) or "").splitlines(True),
                                          "a/" + rel if rel in old else "/dev/null",
                                          "b/" + rel if rel in new else "/dev/null"))
        if len(lines) > max_lines:
            lines = lines[:max_lines] + ["... %d more diff lines of %s\n" % (len(lines) - max_lines, rel)]
        out.append("".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                           for line in lines))
    if len(paths) > max_files:
        out.append("... and %d more changed files (diff -ru the build and its .previous copy to see all)\n"
                   % (len(paths) - max_files))
    return out


def diff_order(paths):
    """Device configurations first (what a deploy pushes), then the rest, each in path order."""
    return sorted(paths, key=lambda p: (not p.startswith("devices/"), p))
