"""Scoring throughput, update time and ranking accuracy: GNNCostModel against XGBModel.

    .venv/bin/python benchmarks/bench_predict.py            # writes a section for RESULTS.md

1. Both models are trained on the same measured records (3/4 of each task's
   random programs); pairwise ranking accuracy is computed on the other 1/4.
2. Both score the same 2048 states of the conv2d task, feature extraction
   included, a few times; the median times give the throughput ratio.
3. ``GNNCostModel.update`` on 1,000 records, timed from a fresh model.
4. The GNN's losses compared by held-out ranking accuracy.
"""
from __future__ import annotations

import argparse
import logging
import statistics
import time
from dataclasses import replace

import numpy as np
from tvm import auto_scheduler

from common import costs_of, measured_records, split_by_task

from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.core.config import LOSSES, FeaturizerConfig, TrainerConfig
from tvm_gnn_cost.core.metrics import pairwise_accuracy
from tvm_gnn_cost.ansor.sampling import sample_states


def ranking_accuracy(model, tasks, inputs, results, test):
    """Mean over tasks of held-out pairwise accuracy (failed programs left out)."""
    costs = costs_of([results[i] for i in test])
    accs = {}
    for task in tasks:
        ids = [j for j, i in enumerate(test) if inputs[i].task.workload_key == task.workload_key
               and costs[j] < 1e9]
        states = [task.compute_dag.infer_bound_from_state(inputs[test[j]].state) for j in ids]
        scores = np.asarray(model.predict(task, states))
        accs[task.desc or task.workload_key] = pairwise_accuracy(scores, -costs[ids],
                                                                 np.zeros(len(ids)))
    return accs


def time_predict(model, task, states, repeats):
    """Median seconds of ``model.predict(task, states)`` over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        scores = model.predict(task, states)
        times.append(time.perf_counter() - start)
        assert len(scores) == len(states)
    return statistics.median(times), times


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--states", type=int, default=2048)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--splits", type=int, default=3, help="random train/test splits to average")
    p.add_argument("--skip-losses", action="store_true")
    p.add_argument("--lowered", action="store_true",
                   help="also time a GNN fed Ansor's per-store features (FeaturizerConfig.lowered)")
    p.add_argument("--step-tokens", type=int, default=0, metavar="K",
                   help="also time a GNN fed K transform steps a node "
                        "(FeaturizerConfig.step_tokens)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    inputs, results, tasks = measured_records()
    n_fail = int((costs_of(results) >= 1e9).sum())
    lines = [f"records: {len(inputs)} measured random programs of {len(tasks)} tasks "
             f"({n_fail} failed); each split: 3/4 of each task to train, 1/4 to test"]

    def fit_pair(seed, loss="pairwise+mse"):
        train, test = split_by_task(inputs, results, seed=seed)
        tr_in, tr_res = [inputs[i] for i in train], [results[i] for i in train]
        gnn = GNNCostModel(seed=seed, trainer_config=replace(TrainerConfig(), loss=loss))
        t0 = time.perf_counter()
        gnn.update(tr_in, tr_res)
        t_gnn = time.perf_counter() - t0
        return gnn, t_gnn, tr_in, tr_res, test

    acc_g, acc_x, fit_g, fit_x = [], [], [], []
    for seed in range(args.splits):
        gnn, t_gnn, tr_in, tr_res, test = fit_pair(seed)
        xgb = auto_scheduler.XGBModel(seed=seed, num_warmup_sample=0)
        t0 = time.perf_counter()
        xgb.update(tr_in, tr_res)
        fit_x.append(time.perf_counter() - t0)
        fit_g.append(t_gnn)
        acc_g.append(ranking_accuracy(gnn, tasks, inputs, results, test))
        acc_x.append(ranking_accuracy(xgb, tasks, inputs, results, test))
    lines.append(f"training on {len(tr_in)} records (mean of {args.splits} splits): "
                 f"GNN {np.mean(fit_g):.2f} s, XGB {np.mean(fit_x):.2f} s")
    lines.append(f"held-out pairwise ranking accuracy, mean over {args.splits} random splits:")
    lines.append("| task | GNN | XGBModel |")
    lines.append("|---|---:|---:|")
    for k in acc_g[0]:
        lines.append(f"| {k} | {np.mean([a[k] for a in acc_g]):.3f} | "
                     f"{np.mean([a[k] for a in acc_x]):.3f} |")
    lines.append(f"| mean | {np.mean([list(a.values()) for a in acc_g]):.3f} | "
                 f"{np.mean([list(a.values()) for a in acc_x]):.3f} |")

    conv = tasks[1]
    states = sample_states(conv, args.states, seed=7, params={"sample_init_min_population": 512})
    t_first = time_predict(gnn, conv, states, 1)[0]  # stage-structure cache cold
    t_gnn = time_predict(gnn, conv, states, args.repeats)[0]
    t_xgb = time_predict(xgb, conv, states, args.repeats)[0]
    featurize = time_predict(_FeaturizeOnly(gnn), conv, states, args.repeats)[0]
    lines.append(f"predict on {len(states)} states of {conv.desc or 'conv2d'} "
                 f"(median of {args.repeats}, feature extraction included):")
    lines.append(f"- GNN {t_gnn:.3f} s ({len(states) / t_gnn:.0f} states/s; "
                 f"featurization {featurize:.3f} s; first call, cold cache {t_first:.3f} s)")
    lines.append(f"- XGBModel {t_xgb:.3f} s ({len(states) / t_xgb:.0f} states/s)")
    lines.append(f"- throughput ratio GNN/XGB = {t_xgb / t_gnn:.2f} (target >= 1.0)")
    variants = {"lowered features": FeaturizerConfig(lowered=True)} if args.lowered else {}
    if args.step_tokens:
        variants[f"{args.step_tokens} step tokens a node"] = FeaturizerConfig(
            step_tokens=args.step_tokens)
    for name, fcfg in variants.items():
        other = GNNCostModel(seed=args.seed, featurizer_config=fcfg)
        other.update(tr_in, tr_res)
        t_other = time_predict(other, conv, states, args.repeats)[0]
        lines.append(f"- GNN with {name} {t_other:.3f} s ({len(states) / t_other:.0f} "
                     f"states/s); throughput ratio to XGB = {t_xgb / t_other:.2f} (issue 21 "
                     "keeps >= 3)")

    # update on 1,000 records from a fresh model (history featurization + training)
    n = min(1000, len(inputs))
    fresh = GNNCostModel(seed=args.seed)
    t0 = time.perf_counter()
    fresh.update(inputs[:n], results[:n])
    t_upd = time.perf_counter() - t0
    fit = fresh.last_fit
    fresh_xgb = auto_scheduler.XGBModel(seed=args.seed, num_warmup_sample=0)
    t0 = time.perf_counter()
    fresh_xgb.update(inputs[:n], results[:n])
    t_upd_x = time.perf_counter() - t0
    lines.append(f"update on {n} records from a fresh model: GNN {t_upd:.2f} s (target < 10 s; "
                 f"training {fit.seconds:.2f} s for {fit.steps} steps), XGBModel {t_upd_x:.2f} s")

    if not args.skip_losses:
        lines.append(f"GNN loss comparison (held-out pairwise accuracy, mean over tasks and "
                     f"{args.splits} splits):")
        for loss in LOSSES:
            accs = []
            for seed in range(args.splits):
                m, _, _, _, test = fit_pair(seed, loss)
                accs.append(list(ranking_accuracy(m, tasks, inputs, results, test).values()))
            accs = np.array(accs)
            lines.append(f"- {loss}: {accs.mean():.3f} (per task {', '.join(f'{v:.3f}' for v in accs.mean(0))})")
    print("\n".join(lines))


class _FeaturizeOnly:
    def __init__(self, model):
        self.model = model

    def predict(self, task, states):
        return self.model.featurizer.featurize(task, states)


if __name__ == "__main__":
    main()
