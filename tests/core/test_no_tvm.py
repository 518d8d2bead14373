"""The core is TVM-free: it imports, trains and scores with ``tvm`` made unimportable."""
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent('''
    import pkgutil, sys

    try:
        import tvm  # noqa: F401
    except ImportError:
        pass
    else:
        raise SystemExit("tvm is importable: the test's stand-in was not picked up")
    import numpy as np
    import tvm_gnn_cost.core as core

    names = [m.name for m in pkgutil.iter_modules(core.__path__)]
    for name in names:
        __import__(f"tvm_gnn_cost.core.{name}")
    from tvm_gnn_cost.core import OnlineTrainer, ProgramGraph, TrainerConfig

    rng = np.random.default_rng(0)
    graphs = [ProgramGraph(rng.normal(size=(3, 5)).astype(np.float32),
                           np.array([0, 1]), np.array([1, 2])) for _ in range(32)]
    trainer = OnlineTrainer(5, trainer_config=TrainerConfig(max_steps=5))
    trainer.add(graphs, ["t"] * 32, rng.uniform(1e-3, 2e-3, size=32))
    assert trainer.fit() is not None
    assert np.isfinite(trainer.predict(graphs)).all()
    assert not any(m == "tvm" or m.startswith("tvm.") for m in sys.modules)
    print(len(names), "modules")
''')


def test_the_core_imports_trains_and_scores_without_tvm(tmp_path):
    # A package named tvm that refuses to import, first on the path: what a machine without
    # TVM (or with a broken one) gives. Libraries that only look for TVM (torch's dynamo
    # does) still find a file there, as they would find nothing on such a machine.
    for name in ("tvm", "tvm_ffi"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            f"raise ImportError('{name} is made unimportable by this test')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[0]) >= 12  # every module of core/ was imported
