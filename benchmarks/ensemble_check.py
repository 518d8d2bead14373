"""Held-out accuracy of an ensemble of pretrained GNNs (their standardized scores averaged).

A check, not a model the package ships: does averaging checkpoints trained with other seeds
steady the top-1 score? Held-out tasks that the training logs hold too are left out, as
``tvm-gnn-cost evaluate`` does.

    .venv/bin/python benchmarks/ensemble_check.py data/gnn-cpu.pt /tmp/gnn-s1.pt /tmp/gnn-s2.pt
"""
from __future__ import annotations

import argparse
import glob
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tvm_gnn_cost.ansor.cost_model import GNNCostModel  # noqa: E402
from tvm_gnn_cost.offline.evaluate import (Scored, drop_seen, gnn_scorer, load_groups, metrics,  # noqa: E402
                                   read_logs, score)


def _standardized(x: np.ndarray) -> np.ndarray:
    return (x - x.mean()) / (x.std() + 1e-9)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoints", nargs="+")
    p.add_argument("--train", default="data/train/*.json.gz")
    p.add_argument("--heldout", default="data/heldout/*.json.gz")
    args = p.parse_args()
    seen = read_logs(sorted(glob.glob(args.train)))[0]
    first = GNNCostModel()
    first.load(args.checkpoints[0])
    groups = drop_seen(load_groups(sorted(glob.glob(args.heldout)), first.rebuilder), seen)
    runs = []
    for path in args.checkpoints:
        model = GNNCostModel()
        model.load(path)
        runs.append(score(groups, gnn_scorer(model)))
    ensemble = [Scored(s.task, np.mean([_standardized(r[i].scores) for r in runs], axis=0),
                       s.costs, s.weight) for i, s in enumerate(runs[0])]
    keys = ("pairwise", "top1", "top5", "recall@5")
    print("| model | " + " | ".join(keys) + " |\n|---|" + "---:|" * len(keys))
    for name, scored in list(zip(args.checkpoints, runs)) + [("ensemble", ensemble)]:
        m = metrics(scored)
        print(f"| {name} | " + " | ".join(f"{m[k]:.3f}" for k in keys) + " |")


if __name__ == "__main__":
    main()
