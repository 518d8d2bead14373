"""Where a pretrained GNN misorders held-out programs: pairwise accuracy by kind of pair.

Pairs of one task at least 1.1x apart (closer ones are ordered by noise, ``pair_buckets.py``)
are split by what differs between the two programs in their heaviest stage (the node with the
most float operations): the stage structure (which stages exist and where each is attached),
the vectorized inner extent, the parallel extent. A representation that misses tile-level
effects ranks pairs that share all three worst. Pairs are also split by how long their task's
best program takes (the heavy tasks decide a search), and the pairs whose two programs are both in
their task's fastest quarter (the near-best, where a search's last rounds are decided). Then,
per candidate quantity of that stage, its
rank correlation with the model's error (true rank minus predicted rank, within the task; mean
over tasks): a quantity the model lacks correlates with its error.

    .venv/bin/python benchmarks/pair_kinds.py tvm_gnn_cost/checkpoints/gnn-cpu.pt \
        data/validation/*.json.gz --train data/train/*.json.gz
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Tuple

import numpy as np
from scipy.stats import rankdata, spearmanr

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tvm_gnn_cost.ansor.cost_model import GNNCostModel  # noqa: E402
from tvm_gnn_cost.cli.common import log_files  # noqa: E402
from tvm_gnn_cost.offline.evaluate import drop_seen, load_groups, read_logs  # noqa: E402

APART = np.log(1.1)


def _extent(feature: float) -> float:
    """Invert ``log_feature``: the loop extent a ``log2(1 + x)`` column holds."""
    return float(np.round(2.0 ** feature - 1.0)) if feature > 0 else 1.0


def heaviest_stage(features: np.ndarray, ix: Dict[str, int], lanes: int) -> Dict[str, float]:
    """Quantities of the stage with the most float operations, from its node features."""
    x = features[int(np.argmax(features[:, ix["total_float_ops"]]))]
    par = _extent(x[ix["ann_parallel"]])
    vec = _extent(x[ix["inner_extent"]]) if x[ix["inner_vectorized"]] > 0 else 1.0
    return {"log2 parallel extent": np.log2(par),
            "log2 vector width": np.log2(vec),
            f"vector lanes used (of {lanes})": vec / (lanes * np.ceil(vec / lanes)),
            "inner extent": x[ix["inner_extent"]],
            "auto unroll": x[ix["auto_unroll"]],
            "footprint": x[ix["footprint"]],
            "traffic": x[ix["traffic"]]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", help="GNN checkpoint")
    ap.add_argument("logs", nargs="+", help="held-out Ansor logs")
    ap.add_argument("--train", nargs="+", required=True,
                    help="the training logs: held-out tasks they hold are left out")
    ap.add_argument("--lanes", type=int, default=16, help="float32 lanes of the hosts' vectors")
    ap.add_argument("--xgb", action="store_true",
                    help="also XGBModel trained on --train, on the same pairs")
    ap.add_argument("--json", default=None, help="also write the accuracies here, for scripts")
    args = ap.parse_args()
    model = GNNCostModel()
    model.load(args.model)
    ix = {n: i for i, n in enumerate(model.feature_names)}
    train_inputs, train_results = read_logs(log_files(args.train))
    groups = drop_seen(load_groups(log_files(args.logs), model.rebuilder), train_inputs)
    scorers = {"GNN": lambda task, states, graphs: model.trainer.predict(graphs)}
    if args.xgb:
        from tvm import auto_scheduler

        xgb = auto_scheduler.XGBModel(seed=0, num_warmup_sample=1)  # as `evaluate` trains it
        xgb.update(train_inputs, train_results)
        scorers["XGBModel"] = lambda task, states, graphs: xgb.predict(task, states)
    pairs: Dict[str, Dict[str, List[int]]] = {name: {} for name in scorers}
    corr: Dict[str, List[float]] = {}
    for g in groups:
        graphs = model.featurize_measured(g.task, g.states)
        costs = np.asarray(g.costs, dtype=float)
        ok = np.array([gr.valid for gr in graphs]) & np.isfinite(costs) & (costs < 1e9)
        if ok.sum() < 8:
            continue
        kept = [gr for gr, o in zip(graphs, ok) if o]
        states = [st for st, o in zip(g.states, ok) if o]
        y = -np.log(costs[ok])
        q = [heaviest_stage(gr.features, ix, args.lanes) for gr in kept]
        i, j, masks = _pair_kinds(kept, q, y, ix)
        for name, scorer in scorers.items():
            s = np.asarray(scorer(g.task, states, kept), dtype=float)
            right = (s[i] - s[j]) * (y[i] - y[j]) > 0
            for kind, mask in masks.items():
                _add(pairs[name], kind, right[mask])
            if name == "GNN":
                error = rankdata(y) / len(y) - rankdata(s) / len(s)
                for k in q[0]:
                    v = np.array([d[k] for d in q])
                    if np.std(v) > 0:
                        corr.setdefault(k, []).append(
                            (spearmanr(v, error)[0], spearmanr(v, y)[0], spearmanr(v, s)[0]))
    if args.json:
        import json

        with open(args.json, "w") as f:
            json.dump({"tasks": len(groups), "pairs": {
                name: {k: {"right": r, "pairs": n, "accuracy": r / max(n, 1)}
                       for k, (r, n) in p.items()} for name, p in pairs.items()}}, f, indent=1)
    print(f"{len(groups)} tasks; pairs of a task at least 1.1x apart; pairwise accuracy\n")
    print("| pairs | count | " + " | ".join(pairs) + " |\n|---|---:|" + "---:|" * len(pairs))
    for k, (_, n) in pairs["GNN"].items():
        print(f"| {k} | {n} | "
              + " | ".join(f"{p[k][0] / max(n, 1):.3f}" for p in pairs.values()) + " |")
    print("\nHeaviest stage: rank correlation with the GNN's error (true rank - predicted rank), "
          "with the measured throughput and with the score; mean over the tasks where it varies\n")
    print("| quantity | with error | with throughput | with score | tasks |\n|---|---:|---:|---:|---:|")
    for k, rows in corr.items():
        a = np.nanmean(np.array(rows), axis=0)
        print(f"| {k} | {a[0]:+.3f} | {a[1]:+.3f} | {a[2]:+.3f} | {len(rows)} |")
    return 0


def _pair_kinds(graphs: list, q: List[Dict[str, float]], y: np.ndarray,
                ix: Dict[str, int]) -> Tuple[np.ndarray, np.ndarray, Dict[str, np.ndarray]]:
    """A task's pairs at least 1.1x apart (two index arrays), and masks over them by kind."""
    i, j = np.triu_indices(len(graphs), 1)
    far = np.abs(y[i] - y[j]) >= APART
    i, j = i[far], j[far]
    shape = [(gr.num_nodes, tuple(gr.features[:, ix["is_attached"]])) for gr in graphs]
    same = {
        "structure": np.array([shape[a] == shape[b] for a, b in zip(i, j)], dtype=bool),
        "vector width": np.array([q[a]["log2 vector width"] == q[b]["log2 vector width"]
                                  for a, b in zip(i, j)], dtype=bool),
        "parallel extent": np.array([q[a]["log2 parallel extent"] == q[b]["log2 parallel extent"]
                                     for a, b in zip(i, j)], dtype=bool),
    }
    masks = {"all": np.ones(len(i), dtype=bool)}
    for k, m in same.items():
        masks[f"same {k}"] = m
        masks[f"different {k}"] = ~m
    masks["same in all three"] = np.logical_and.reduce(list(same.values()))
    apart = np.abs(y[i] - y[j])
    fast = y >= np.quantile(y, 0.75)  # the task's fastest quarter
    masks["near-best (both in the task's fastest quarter)"] = fast[i] & fast[j]
    masks["1.1-2x apart"] = apart < np.log(2)
    masks["2x or more apart"] = apart >= np.log(2)
    best = np.exp(-y.max())
    size = "under 10 us" if best < 1e-5 else "10-100 us" if best < 1e-4 else "100 us or more"
    for other in ("under 10 us", "10-100 us", "100 us or more"):
        masks[f"tasks whose best program takes {other}"] = np.full(len(i), other == size)
    masks["near-best of the tasks of 100 us or more"] = (
        masks["near-best (both in the task's fastest quarter)"] & (size == "100 us or more"))
    return i, j, masks


def _add(pairs: Dict[str, List[int]], key: str, right: np.ndarray) -> None:
    total = pairs.setdefault(key, [0, 0])
    total[0] += int(right.sum())
    total[1] += int(right.size)


if __name__ == "__main__":
    raise SystemExit(main())
