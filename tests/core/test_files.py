"""A result file is replaced whole or not at all."""
import os
import stat

import pytest

from tvm_gnn_cost.core.files import replaced_whole


def test_new_contents_replace_the_file_whole_and_readable_by_all(tmp_path):
    path = tmp_path / "sub" / "result.json"
    with replaced_whole(str(path), "w") as f:
        f.write("new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    assert os.listdir(path.parent) == ["result.json"]


def test_an_error_mid_write_keeps_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "result.json"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with replaced_whole(str(path), "w") as f:
            f.write("half of the new")
            raise RuntimeError("killed")
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["result.json"]
