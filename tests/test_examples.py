"""The matmul example runs end to end: tunes, builds the best program, checks it against numpy."""
import os
import runpy
import sys

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, "examples")


def test_tune_matmul_example(tmp_path, capsys, matmul_task):
    sys.path.insert(0, EXAMPLES)
    try:
        mod = runpy.run_path(os.path.join(EXAMPLES, "tune_matmul.py"))
    finally:
        sys.path.remove(EXAMPLES)
    log = str(tmp_path / "mm.json")
    mod["main"](["--size", "128", "--trials", "8", "--log", log])
    out = capsys.readouterr().out
    assert "result checked against numpy" in out
    assert os.path.getsize(log) > 0
