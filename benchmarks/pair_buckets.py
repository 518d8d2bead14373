"""Pairwise ranking accuracy of a pretrained GNN on held-out logs, split by how far apart each
pair's measured costs are (< 1.1x, 1.1-1.3x, 1.3-2x, > 2x).

Pairs of programs a few percent apart are ordered by measurement noise as much as by their
schedules (``benchmarks/remeasure.py`` prints the same split for a second measurement), so
this shows where a model's errors lie: among the pairs noise blurs, or among those it does not.

    .venv/bin/python benchmarks/pair_buckets.py tvm_gnn_cost/checkpoints/gnn-cpu.pt data/validation/*.json.gz \
        --train data/train/*.json.gz
"""
from __future__ import annotations

import argparse
import os
from typing import Sequence


from tvm_gnn_cost.ansor.cost_model import GNNCostModel
from tvm_gnn_cost.ansor.taskfile import register_logs
from tvm_gnn_cost.offline.evaluate import (Scored, drop_seen, gnn_scorer, load_groups,
                                   read_logs, score, stacked)
from tvm_gnn_cost.core.metrics import pairwise_by_ratio

EDGES = (1.1, 1.3, 2.0)
HEADER = "| pairs apart by | < 1.1x | 1.1-1.3x | 1.3-2x | > 2x |\n|---|---:|---:|---:|---:|"


def bucket_row(name: str, scored: Sequence[Scored]) -> str:
    """One table row: accuracy (pairs) per bucket, over the programs that ran."""
    scores, costs, tasks = stacked(scored)
    ran = costs < 1e10
    cells = pairwise_by_ratio(scores[ran], costs[ran], tasks[ran], EDGES)
    return f"| {name} | " + " | ".join(f"{acc:.3f} ({n:,})" for n, acc in cells) + " |"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", help="a checkpoint from tvm-gnn-cost pretrain")
    p.add_argument("logs", nargs="+", help="held-out Ansor logs (task files beside them)")
    p.add_argument("--train", nargs="*", default=[],
                   help="training logs: held-out tasks they hold too are left out")
    args = p.parse_args()
    register_logs(args.logs)
    model = GNNCostModel()
    model.load(args.model)
    groups = drop_seen(load_groups(args.logs, model.rebuilder), read_logs(args.train)[0])
    print(HEADER)
    print(bucket_row(os.path.basename(args.model), score(groups, gnn_scorer(model))))


if __name__ == "__main__":
    main()
