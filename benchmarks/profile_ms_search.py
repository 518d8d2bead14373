"""Where a MetaSchedule search with the GNN spends its time, against MetaSchedule's XGBoost.

Tunes one conv2d (56x56x64->64 3x3+bias+relu) with ``tune_tir`` and each model in turn, and
times the GNN's parts: graphs built from TIR, structural hashes (graph cache keys), training
and the GNN's forward pass.

    .venv/bin/python benchmarks/profile_ms_search.py --trials 128
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from typing import Dict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("TOPHUB_LOCATION", "NONE")

import tvm_gnn_cost.metaschedule.cost_model as msm  # noqa: E402
from tvm_gnn_cost.metaschedule.builder import local_builder  # noqa: E402
from tvm_gnn_cost.metaschedule.tuning import make_ms_model, ms_workload  # noqa: E402
from tvm_gnn_cost.core.trainer import OnlineTrainer  # noqa: E402
from tvm_gnn_cost.workloads.targets import host_target, with_num_cores  # noqa: E402

SECONDS: Dict[str, float] = {}


def timed(owner, name: str, label: str) -> None:
    """Replace ``owner.name`` by a wrapper adding its time to ``SECONDS[label]``."""
    inner = getattr(owner, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            SECONDS[label] = SECONDS.get(label, 0.0) + time.perf_counter() - start

    setattr(owner, name, wrapper)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=128)
    args = ap.parse_args()
    timed(msm, "featurize_module", "graphs from TIR")
    timed(msm, "structural_hash", "structural hashes")
    timed(OnlineTrainer, "fit", "training")
    timed(OnlineTrainer, "predict", "GNN forward")
    target = with_num_cores(host_target())
    _, mod = ms_workload("conv2d", target).modules[0]
    for name in ("gnn", "xgb"):
        SECONDS.clear()
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as work_dir:
            msm.ms.tune_tir(mod, target, work_dir, max_trials_global=args.trials,
                            num_trials_per_iter=16, cost_model=make_ms_model(name),
                            builder=local_builder())
        parts = ", ".join(f"{k} {v:.1f} s" for k, v in SECONDS.items())
        print(f"{name}: {time.perf_counter() - start:.1f} s for {args.trials} trials"
              + (f" ({parts})" if parts else ""))


if __name__ == "__main__":
    main()
