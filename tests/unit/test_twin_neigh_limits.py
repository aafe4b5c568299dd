"""The twin raises the kernel's shared neighbour-table thresholds while it runs and puts them back after the
last twin is removed (twin/state.py, twin/kernel.py); /proc is replaced by a dict here."""
import os

from gpufabric.twin import kernel
from gpufabric.twin import state as twin


class FakeTwin:
    cluster = "lab"
    veths = [None] * 300


def test_raised_once_and_restored_after_the_last_twin(tmp_path, monkeypatch):
    proc = {kernel.PROC % (fam, i): v for fam in kernel.FAMILIES for i, v in ((1, 128), (2, 512), (3, 1024))}
    monkeypatch.setattr(kernel, "_read", lambda path: proc[path])
    monkeypatch.setattr(kernel, "_write", proc.__setitem__)
    monkeypatch.setattr(kernel.os.path, "exists", lambda path: path in proc or os.path.lexists(path))
    monkeypatch.setattr(twin, "STATE_ROOT", str(tmp_path))
    monkeypatch.setattr(twin, "NEIGH_SAVED", str(tmp_path / "neigh-thresholds.json"))
    before = dict(proc)
    (tmp_path / "lab").mkdir()
    changes = twin.raise_neigh_limits(FakeTwin())
    assert len(changes) == 6 and proc[kernel.PROC % ("ipv4", 3)] == 4 * 4 * 600
    assert twin.raise_neigh_limits(FakeTwin()) == []             # a second up changes nothing
    (tmp_path / "other").mkdir()
    (tmp_path / "lab").rmdir()
    assert twin.restore_neigh_limits() == []                     # another twin still runs
    (tmp_path / "other").rmdir()
    assert len(twin.restore_neigh_limits()) == 6 and proc == before
    assert not os.path.exists(twin.NEIGH_SAVED)
