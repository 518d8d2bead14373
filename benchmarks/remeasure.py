"""How well can any model do on these labels? Measure the held-out programs a second time and
score the second measurement as if it were a model's prediction of the first.

Random programs of one task can be a few percent apart, closer than the measurement noise; the
pairwise accuracy, top-k scores and RMSE that a second measurement gets against the first are
the ceiling for any cost model on the same logs. Remeasured records go to ``--out`` (one plain
Ansor log per input log, resumable: what is there already is not measured again).

    .venv/bin/python benchmarks/remeasure.py data/validation/*.json.gz --out /tmp/remeasure \
        --train data/train/*.json.gz

``--settings`` must be what the log was measured with: ``tuning`` for the first dataset
(``data/train``, ``data/validation`` until December 2026), ``labels`` for the corpus that
``collect`` measures since (``data/test``). ``--per-task N`` remeasures only the first N
programs of each task (a cheaper ceiling on the same programs).

``--train`` leaves out the held-out tasks that the training logs hold too, as ``tvm-gnn-cost
evaluate`` does, so the table compares with its. A second folder measures the measurements
again (``remeasure.py /tmp/remeasure/*.json --out /tmp/remeasure2``, task files copied beside).
"""
from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

import numpy as np


from pair_buckets import HEADER, bucket_row  # benchmarks/, beside this file
from tvm_gnn_cost.ansor.taskfile import register_logs
from tvm_gnn_cost.cli.common import log_files
from tvm_gnn_cost.offline.evaluate import (METRICS, Scored, drop_seen, load_groups, metrics,
                                   read_logs)
from tvm_gnn_cost.ansor.featurizer import task_key
from tvm_gnn_cost.ansor.records import TaskRebuilder, measured_cost
from tvm_gnn_cost.ansor.measure import LABELS, TUNING, MeasureSettings
from tvm_gnn_cost.ansor.sampling import measure_states


def _pick(g, per_task: int, spread: bool):
    """The first ``per_task`` programs of a task, or (``spread``) ``per_task`` of its programs
    that ran, evenly spaced over the log: a tuning log's first programs are its early ones,
    its later ones near its best."""
    if not spread:
        return replace(g, states=g.states[:per_task], costs=g.costs[:per_task])
    ran = [i for i, c in enumerate(g.costs) if c < 1e10]
    idx = sorted({ran[int(round(x))] for x in np.linspace(0, len(ran) - 1, per_task)}) if ran else []
    return replace(g, states=[g.states[i] for i in idx], costs=[g.costs[i] for i in idx])


def _remeasured(log: str, out_dir: str, seen: list, settings: MeasureSettings,
                per_task: int = 0, chunk: int = 16, spread: bool = False):
    """Groups of ``log`` (but the workloads of the records ``seen``; ``per_task`` programs of
    each when given, :func:`_pick`) and the same programs measured again (costs in the same
    order)."""
    out = os.path.join(out_dir, os.path.basename(log).replace(".gz", ""))
    rebuilder = TaskRebuilder()
    groups = drop_seen(load_groups([log], rebuilder), seen)
    if per_task:
        groups = [_pick(g, per_task, spread) for g in groups]
    done = {}
    if os.path.exists(out):
        for g in load_groups([out], rebuilder):
            done[task_key(g.task)] = g.costs
    second = []
    runner = settings.runner()
    for g in groups:
        costs = list(done.get(task_key(g.task), []))
        start = time.time()
        for s in range(len(costs), len(g.states), chunk):
            _, results = measure_states(g.task, g.states[s:s + chunk], out, runner=runner)
            costs += [measured_cost(r) for r in results]
        if time.time() - start > 1:
            print(f"{os.path.basename(log)} {g.name}: {len(g.states)} programs "
                  f"({time.time() - start:.0f} s)", flush=True)
        second.append(np.asarray(costs[:len(g.states)], float))
    return groups, second


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("logs", nargs="+")
    p.add_argument("--out", required=True, help="folder for the second measurements")
    p.add_argument("--train", nargs="*", default=[],
                   help="training logs: held-out tasks they hold too are left out")
    p.add_argument("--settings", choices=("tuning", "labels"), default="tuning",
                   help="the runner settings the logs were measured with (default: tuning, "
                        "the first dataset's)")
    p.add_argument("--per-task", type=int, default=0,
                   help="remeasure only the first N programs of each task (default: all)")
    p.add_argument("--spread", action="store_true",
                   help="with --per-task, N programs that ran spread over each task's log "
                        "instead of the first N (a tuning log's later programs are its best)")
    args = p.parse_args()
    settings = {"tuning": TUNING, "labels": LABELS}[args.settings]
    os.makedirs(args.out, exist_ok=True)
    # data/SPLIT/*.json.gz matches the task files too; each is read with its log
    args.logs, args.train = log_files(args.logs), log_files(args.train)
    register_logs(args.logs)
    seen = read_logs(args.train)[0]
    rows = {}
    for log in args.logs:
        groups, second = _remeasured(log, args.out, seen, settings, args.per_task,
                                     spread=args.spread)
        # the second measurement "predicts" throughput: best second cost / second cost
        scored = [Scored(g.name, np.where(c2 < 1e10, c2[c2 < 1e10].min(initial=np.inf) / c2, 0.0),
                         np.asarray(g.costs, float), g.weight) for g, c2 in zip(groups, second)]
        rows[os.path.basename(log)] = scored
        c1 = np.concatenate([s.costs for s in scored])
        c2 = np.concatenate(second)
        ok = (c1 < 1e10) & (c2 < 1e10)
        ratio = c2[ok] / c1[ok]
        print(f"{os.path.basename(log)}: second / first cost, median {np.median(ratio):.3f}, "
              f"5-95% {np.percentile(ratio, 5):.3f}-{np.percentile(ratio, 95):.3f}; "
              f"ran in one only: {int(((c1 < 1e10) != (c2 < 1e10)).sum())}")
    rows["all"] = [s for v in rows.values() for s in v]
    print("| logs | " + " | ".join(METRICS) + " |\n|---|" + "---:|" * len(METRICS))
    for name, scored in rows.items():
        m = metrics(scored)
        print(f"| {name} | " + " | ".join(f"{m[k]:.3f}" for k in METRICS) + " |")
    print("\nPairwise accuracy of the second measurement by how far apart the first one puts a pair:")
    print(HEADER)
    print(bucket_row("second measurement", rows["all"]))


if __name__ == "__main__":
    main()
