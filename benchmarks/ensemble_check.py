"""Issue 21: does averaging checkpoints of several seeds rank held-out programs better than one?

Each checkpoint scores every program of the held-out logs as ``evaluate`` does (predicted
normalized throughput, per task); the ensemble's score is their geometric mean, the same
mixing the prior mode uses (``core/prior.py``). Prints one row per checkpoint and one for the
ensemble (pairwise / top-1 / top-5 / recall@5), and writes them as JSON with ``--json``.

    .venv/bin/python benchmarks/ensemble_check.py runs/adopt/ens-s{0,1,2}.pt \
        --train data/train/*.json.gz --logs data/validation/*.json.gz --json ens.validation.json
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tvm_gnn_cost.ansor.cost_model import GNNCostModel  # noqa: E402
from tvm_gnn_cost.offline.evaluate import (Scored, drop_seen, gnn_scorer, load_groups,  # noqa: E402
                                           metrics, read_logs, score)

SHOWN = ("pairwise", "top1", "top5", "recall@5")


def geometric_mean(members: list) -> list:
    """One :class:`Scored` per task whose scores are the members' geometric mean (a program a
    member scores 0, one it could not read, ends near 0: below every program all score)."""
    out = []
    for per_task in zip(*members):
        logs = np.log(np.maximum(np.stack([s.scores for s in per_task]), 1e-300))
        first = per_task[0]
        out.append(Scored(first.task, np.exp(logs.mean(axis=0)), first.costs, first.weight))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="GNN checkpoints (one per seed)")
    ap.add_argument("--logs", nargs="+", required=True, help="held-out Ansor logs")
    ap.add_argument("--train", nargs="+", required=True,
                    help="the training logs: held-out tasks they hold are left out")
    ap.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = ap.parse_args()
    models = []
    for path in args.models:
        m = GNNCostModel()
        m.load(path)
        models.append(m)
    train_inputs, _ = read_logs(args.train)
    groups = drop_seen(load_groups(args.logs, models[0].rebuilder), train_inputs)
    members = [score(groups, gnn_scorer(m)) for m in models]
    rows = {os.path.basename(p): metrics(s) for p, s in zip(args.models, members)}
    rows["ensemble"] = metrics(geometric_mean(members))
    print(f"{len(groups)} tasks, {sum(len(g.costs) for g in groups)} programs")
    print("| model | " + " | ".join(SHOWN) + " |")
    print("|---|" + "---:|" * len(SHOWN))
    for name, m in rows.items():
        print(f"| {name} | " + " | ".join(f"{m[k]:.3f}" for k in SHOWN) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({name: {k: float(m[k]) for k in SHOWN} for name, m in rows.items()}, f,
                      indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
