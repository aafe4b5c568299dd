"""The provisioning host's side of the ZTP tree (gpufabric.ztp.install): only what differs is written, each file
whole, nothing outside the bundle touched, nothing written in check mode, no path out of the tree."""
import os
import stat

import pytest

from gpufabric.ztp.install import BundleError, install_bundle

FILES = {"ztp/leaf01/ztp.json": '{"ztp": {}}\n', "ztp/leaf01/config_db.json": "{}\n", "idrac/gpu0001.json": "{\"a\": 1}\n"}


def read(root, rel):
    with open(os.path.join(root, rel)) as f:
        return f.read()


def test_first_install_writes_everything_with_modes_and_a_second_changes_nothing(tmp_path):
    root = str(tmp_path / "www")
    assert install_bundle(FILES, root) == sorted(FILES)
    for rel, text in FILES.items():
        assert read(root, rel) == text
        assert stat.S_IMODE(os.stat(os.path.join(root, rel)).st_mode) == 0o644
    assert stat.S_IMODE(os.stat(os.path.join(root, "ztp", "leaf01")).st_mode) == 0o755
    assert install_bundle(FILES, root) == []
    assert sorted(os.listdir(os.path.join(root, "ztp", "leaf01"))) == ["config_db.json", "ztp.json"]  # no staging left


def test_check_mode_reports_and_writes_nothing(tmp_path):
    root = str(tmp_path / "www")
    assert install_bundle(FILES, root, check=True) == sorted(FILES)
    assert not os.path.exists(root)
    install_bundle(FILES, root)
    with open(os.path.join(root, "idrac", "gpu0001.json"), "w") as f:
        f.write("edited\n")
    assert install_bundle(FILES, root, check=True) == ["idrac/gpu0001.json"]
    assert read(root, "idrac/gpu0001.json") == "edited\n"


def test_hand_edits_and_modes_are_put_back_and_other_files_left_alone(tmp_path):
    root = str(tmp_path / "www")
    install_bundle(FILES, root)
    with open(os.path.join(root, "ztp", "leaf01", "config_db.json"), "w") as f:
        f.write("edited\n")
    os.chmod(os.path.join(root, "ztp", "leaf01", "ztp.json"), 0o600)
    os.makedirs(os.path.join(root, "images"))
    with open(os.path.join(root, "images", "nos.bin"), "w") as f:
        f.write("image")
    assert install_bundle(FILES, root) == ["ztp/leaf01/config_db.json", "ztp/leaf01/ztp.json"]
    assert read(root, "ztp/leaf01/config_db.json") == "{}\n"
    assert stat.S_IMODE(os.stat(os.path.join(root, "ztp", "leaf01", "ztp.json")).st_mode) == 0o644
    assert read(root, "images/nos.bin") == "image"


@pytest.mark.parametrize("bad", ["../etc/passwd", "/etc/passwd", "ztp//x", "ztp/./x", ""])
def test_a_path_that_could_leave_the_tree_is_refused_before_anything_is_written(tmp_path, bad):
    root = str(tmp_path / "www")
    with pytest.raises(BundleError, match="not a plain relative path"):
        install_bundle(dict(FILES, **{bad: "x"}), root)
    assert not os.path.exists(root)


def test_a_bundle_that_is_not_path_to_text_is_refused(tmp_path):
    with pytest.raises(BundleError, match="mapping of path to text"):
        install_bundle({"a": 1}, str(tmp_path))
    with pytest.raises(BundleError):
        install_bundle(["a"], str(tmp_path))
