"""Which runner settings make labels a second measurement agrees with? (issue 21: pairwise >=
0.93 between two measurements on the same host, at the least cost.)

Measures the same programs (the first ``--per-task`` of every task of the given logs) twice
with each candidate setting, on this host, and scores the second pass against the first as
if it were a model's prediction: pairwise accuracy, top-1, top-5, the cost ratio's spread,
and the seconds a program took. Labels are the mean of a record's repeats (what the dataset
uses) or their median. Resumable: each pass is a plain Ansor log under ``--out``.

    cd benchmarks && PYTHONPATH=.. ../.venv/bin/python label_noise.py \
        ../data/validation/squeezenet.json.gz ../data/validation/bert.json.gz \
        --out /tmp/label-noise --per-task 12 --settings 2,2,20 1,5,50 1,3,150
"""
from __future__ import annotations

import argparse
import json
import os
import time
from typing import Dict, List

import numpy as np

from pair_buckets import HEADER, bucket_row  # benchmarks/, beside this file
from tvm_gnn_cost.ansor.featurizer import task_key
from tvm_gnn_cost.ansor.logs import read_log
from tvm_gnn_cost.ansor.measure import MeasureSettings
from tvm_gnn_cost.ansor.records import TaskRebuilder, measured_cost, repeat_costs
from tvm_gnn_cost.ansor.sampling import measure_states
from tvm_gnn_cost.ansor.taskfile import register_logs
from tvm_gnn_cost.core.labels import FAILED_COST
from tvm_gnn_cost.offline.evaluate import Scored, load_groups, metrics


def _costs(result, how: str) -> float:
    """The label of ``result``: the dataset's (mean of repeats), or the median of repeats."""
    cost = measured_cost(result)
    if how == "mean" or cost == FAILED_COST:
        return cost
    return float(np.median(repeat_costs(result)))


def _pass(groups, settings: MeasureSettings, path: str) -> Dict[str, list]:
    """Results by task of measuring every group's states once into ``path`` (resumed)."""
    done: Dict[str, list] = {}
    if os.path.exists(path):
        for inp, res in zip(*read_log(path)[:2]):
            done.setdefault(task_key(inp.task), []).append(res)
    runner = settings.runner()
    for g in groups:
        have = done.setdefault(task_key(g.task), [])
        if len(have) < len(g.states):
            have += measure_states(g.task, g.states[len(have):], path, runner=runner)[1]
    return done


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("logs", nargs="+", help="logs whose programs are measured (task files beside)")
    p.add_argument("--out", required=True)
    p.add_argument("--per-task", type=int, default=16)
    p.add_argument("--settings", nargs="+", default=["2,2,20"],
                   help="NUMBER,REPEAT,MIN_REPEAT_MS candidates")
    args = p.parse_args()
    register_logs(args.logs)
    groups = load_groups(args.logs, TaskRebuilder())
    for g in groups:
        g.states, g.costs = g.states[:args.per_task], g.costs[:args.per_task]
    groups = [g for g in groups if len(g.states) > 1]
    rows: List[dict] = []
    for text in args.settings:
        number, repeat, min_ms = (int(x) for x in text.split(","))
        settings = MeasureSettings(number, repeat, min_ms)
        passes, seconds = [], []
        for k in (1, 2):
            start = time.time()
            passes.append(_pass(groups, settings, os.path.join(args.out, text, f"pass{k}.json")))
            seconds.append(time.time() - start)
        for how in ("mean", "median"):
            scored, ratios = [], []
            for g in groups:
                key = task_key(g.task)
                c1 = np.array([_costs(r, how) for r in passes[0][key][:len(g.states)]])
                c2 = np.array([_costs(r, how) for r in passes[1][key][:len(g.states)]])
                ok2 = c2 < FAILED_COST
                best = c2[ok2].min(initial=np.inf)
                scored.append(Scored(g.name, np.where(ok2, best / c2, 0.0), c1, g.weight))
                both = ok2 & (c1 < FAILED_COST)
                ratios += list(c2[both] / c1[both])
            m = metrics(scored)
            row = {"number": number, "repeat": repeat, "min_repeat_ms": min_ms, "label": how,
                   "programs": sum(len(s.costs) for s in scored),
                   "seconds_per_program": sum(seconds) / 2 / sum(len(g.states) for g in groups),
                   "ratio_5": float(np.percentile(ratios, 5)),
                   "ratio_95": float(np.percentile(ratios, 95)),
                   **{k: float(m[k]) for k in ("pairwise", "top1", "top5")},
                   "buckets": bucket_row(f"{text} {how}", scored)}
            rows.append(row)
            print(json.dumps({k: v for k, v in row.items() if k != "buckets"}), flush=True)
    with open(os.path.join(args.out, "label_noise.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("\n| number, repeat, min_repeat_ms | label | s a program | ratio 5-95% | pairwise | "
          "top-1 | top-5 |\n|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['number']}, {r['repeat']}, {r['min_repeat_ms']} | {r['label']} | "
              f"{r['seconds_per_program']:.2f} | {r['ratio_5']:.2f}-{r['ratio_95']:.2f} | "
              f"{r['pairwise']:.3f} | {r['top1']:.3f} | {r['top5']:.3f} |")
    print("\n" + HEADER)
    for r in rows:
        print(r["buckets"])


if __name__ == "__main__":
    main()
