"""Scoring throughput of MetaSchedule cost models: the GNN against MetaSchedule's XGBoost.

Tunes a conv2d briefly with MetaSchedule to get real, distinct candidates, trains each model
on them (XGBoost past its 100-record warm-up, so that it extracts features and predicts), then
times ``predict`` on all of them. The GNN is timed cold (its graph cache cleared before every
call: every candidate featurized) and warm (the evolutionary search scores survivors again).

    .venv/bin/python benchmarks/bench_ms_predict.py --trials 160          # TVM 0.19
    .venv-modern/bin/python benchmarks/bench_ms_predict.py --trials 160   # apache-tvm 0.27
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

os.environ.setdefault("TOPHUB_LOCATION", "NONE")

import tvm

from tvm_gnn_cost.metaschedule.cost_model import GNNMetaCostModel, ms
from tvm_gnn_cost.metaschedule.builder import local_builder
from tvm_gnn_cost.experiments.registry import make_ms_model
from tvm_gnn_cost.metaschedule.tuning import ms_workload
from tvm_gnn_cost.tir.compat import Schedule
from tvm_gnn_cost.workloads.targets import host_target, with_num_cores


def candidates(work_dir: str, target, trials: int):
    """Measured candidates and results of a short conv2d tuning run."""
    workload = ms_workload("conv2d", target, input_shape=(28, 28, 64, 64, 3))
    _, mod = workload.modules[0]
    db = ms.tune_tir(mod, target, work_dir, max_trials_global=trials, num_trials_per_iter=32,
                     cost_model="random", builder=local_builder())
    ctx = ms.TuneContext(mod=mod, target=target, space_generator="post-order-apply",
                         search_strategy="evolutionary", num_threads=os.cpu_count() or 1)
    cands, results = [], []
    for rec in db.get_all_tuning_records():
        sch = Schedule(rec.workload.mod)
        rec.trace.apply_to_schedule(sch, remove_postproc=False)
        cands.append(ms.MeasureCandidate(sch, rec.args_info))
        results.append(ms.runner.RunnerResult(rec.run_secs, None))
    return ctx, cands, results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=160)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    target = with_num_cores(host_target())
    with tempfile.TemporaryDirectory() as wd:
        ctx, cands, results = candidates(wd, target, args.trials)
    print(f"TVM {tvm.__version__}: {len(cands)} distinct measured conv2d candidates, scored in "
          "one call")

    def rate(model, cold: bool) -> float:
        best = np.inf
        for _ in range(args.repeats):
            if cold:
                model._graphs.clear()
            start = time.perf_counter()
            scores = model.predict(ctx, cands)
            best = min(best, time.perf_counter() - start)
        assert len(scores) == len(cands)
        return len(cands) / best

    xgb = make_ms_model("xgb")
    if len(cands) < xgb.num_warmup_samples:  # it would not extract features at all
        raise SystemExit(f"only {len(cands)} distinct candidates: MetaSchedule's XGBoost scores "
                         f"at random below {xgb.num_warmup_samples}; raise --trials")
    xgb.update(ctx, cands, results)
    gnn = GNNMetaCostModel(seed=0)
    gnn.update(ctx, cands, results)
    rates = {"xgb": rate(xgb, False), "gnn (cold)": rate(gnn, True), "gnn (warm)": rate(gnn, False)}
    for name, r in rates.items():
        print(f"{name}: {r:,.0f} candidates/s (best of {args.repeats})")
    print(f"gnn / xgb scoring throughput: cold {rates['gnn (cold)'] / rates['xgb']:.2f}x, "
          f"warm {rates['gnn (warm)'] / rates['xgb']:.2f}x")


if __name__ == "__main__":
    main()
