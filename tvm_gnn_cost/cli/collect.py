"""``tvm-gnn-cost collect``: measure random programs of each task into a dataset log."""
from __future__ import annotations

import argparse

from ..ansor.measure import LABELS  # loads no TVM: building the parser stays fast
from .common import (add_prior_args, add_workload_args, at_least, check_budget, ensure_folder,
                     load_network, model_choice, parse_target, runner, search_params)


def add_parser(sub) -> argparse.ArgumentParser:
    co = sub.add_parser("collect", help="measure random programs of each task into a dataset log")
    add_workload_args(co)
    co.add_argument("--programs-per-task", type=at_least(1), default=64)
    co.add_argument("--out", required=True, help="Ansor log to append to (tasks saved beside it)")
    co.add_argument("--seed", type=int, default=0)
    labels = LABELS
    co.add_argument("--number", type=at_least(1), default=labels.number,
                    help=f"runs averaged into one repeat of a label (default {labels.number})")
    co.add_argument("--repeat", type=at_least(1), default=labels.repeat,
                    help=f"repeats of a label, each kept in the log (default {labels.repeat})")
    co.add_argument("--min-repeat-ms", type=at_least(0), default=labels.min_repeat_ms,
                    help=f"a repeat runs at least this long (default {labels.min_repeat_ms})")
    co.add_argument("--search-trials", type=at_least(0), default=0,
                    help="then also tune with the GNN for this many trials into the same log")
    add_prior_args(co)
    return co


def run(args) -> int:
    from ..ansor.dataset import collect
    from ..ansor.measure import MeasureSettings
    from ..ansor.taskfile import tasks_path
    from ..ansor.tuning import tune

    labels = MeasureSettings(args.number, args.repeat, args.min_repeat_ms)
    target = parse_target(args.target, args.rpc_key)
    choice = model_choice(args, target) if args.search_trials else None
    ensure_folder("--out", args.out)
    workload = load_network(args, target)
    print(f"{args.network}: {len(workload.tasks)} tasks, target {target}", flush=True)
    if args.search_trials:
        check_budget(workload.tasks, args.search_trials, args.measures_per_round)
    total = collect(workload.tasks, args.programs_per_task, args.out, seed=args.seed,
                    progress=True, runner=runner(args, labels), weights=workload.weights)
    if args.search_trials:
        model = choice.make(args.seed, workload.tasks, args.search_trials,
                            args.measures_per_round, args.prior_records)
        first = args.first_round or choice.first_round(args.measures_per_round)
        tune(workload.tasks, model, args.search_trials, args.out,
             weights=workload.weights, seed=args.seed, search_params=search_params(args),
             measures_per_round=args.measures_per_round, first_round=first,
             runner=runner(args), progress=True, name=choice.name)
    print(f"{args.out}: {total} random programs of {len(workload.tasks)} tasks; "
          f"tasks in {tasks_path(args.out)}")
    return 0
