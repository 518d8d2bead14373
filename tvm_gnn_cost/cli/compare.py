"""``tvm-gnn-cost compare``: each model for each seed at the same budget, in Ansor or
MetaSchedule; curves, plot and summary (:mod:`tvm_gnn_cost.experiments.runner` runs them,
:mod:`tvm_gnn_cost.report` writes them)."""
from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import List

from ..experiments.registry import describe_models, model_names
from ..progress import progress_table, write_progress
from . import tune_ms
from .common import (add_prior_records_arg, add_workload_args, at_least, check_budget,
                     load_network, parse_target, workload_argv)

logger = logging.getLogger("tvm_gnn_cost")


def add_parser(sub) -> argparse.ArgumentParser:
    c = sub.add_parser("compare", help="tune with several cost models and compare search curves")
    add_workload_args(c)
    c.add_argument("--models", default="gnn,xgb",
                   help=f"comma-separated, of: {describe_models('ansor')}")
    c.add_argument("--pretrained", default=None,
                   help="checkpoint the gnn-pretrained and gnn-prior runs use (see pretrain)")
    add_prior_records_arg(c)
    c.add_argument("--searcher", choices=["ansor", "metaschedule"], default="ansor",
                   help="the search to compare models in; metaschedule takes the models "
                        f"{', '.join(model_names('metaschedule'))} (MetaSchedule's own)")
    c.add_argument("--trials", type=at_least(1), required=True, help="trials per run")
    c.add_argument("--seeds", type=at_least(0), default=3, help="runs per model, seeds 0..N-1")
    c.add_argument("--out", required=True, help="folder for logs, curves, plot and summary")
    c.add_argument("--max-gap", type=float, default=300.0,
                   help="seconds between two records counted as the job not running (a crash "
                        "before a resume), left out of the tuning time")
    c.add_argument("--logs", nargs="*", default=[], metavar="MODEL=LOG",
                   help="existing logs to include (seeds in order given), beside the --seeds "
                        "runs of --models it tunes; --seeds 0 tabulates these logs alone")
    tune_ms.add_arguments(c)
    return c


def run(args) -> int:
    from ..experiments.registry import parse_models

    target = parse_target(args.target, args.rpc_key)
    try:
        models = parse_models(args.models, args.searcher)
    except ValueError as err:
        raise SystemExit(f"error: --models: {err}") from None
    if args.searcher == "metaschedule":
        tune_ms.refuse(args, tune_ms.ANSOR_ONLY, "Ansor")
        return _metaschedule(args, target, models)
    tune_ms.refuse(args, tune_ms.METASCHEDULE_ONLY, "MetaSchedule")
    return _ansor(args, target, models)


def _ansor(args, target, models: List[str]) -> int:
    from ..experiments.registry import ANSOR_MODELS, choose
    from ..experiments.runner import ansor_runs, framework_line, time_builds

    extra = []
    for item in args.logs:
        model, _, path = item.partition("=")
        if model not in ANSOR_MODELS or not path or not os.path.exists(path):
            raise SystemExit(f"error: --logs takes MODEL=PATH, MODEL one of "
                             f"{', '.join(ANSOR_MODELS)} and PATH an existing log; got {item!r}")
        extra.append((model, path))
    if args.pretrained and not os.path.exists(args.pretrained):
        raise SystemExit(f"error: --pretrained {args.pretrained}: no such file")
    try:  # each model's checkpoints, decided once for the target (logs read as they ran)
        choices = {m: choose(m, target, args.pretrained if ANSOR_MODELS[m].checkpoint else None)
                   for m in dict.fromkeys(models + [m for m, _ in extra])}
    except ValueError as err:
        raise SystemExit(f"error: {err}; pass --pretrained CHECKPOINT") from None
    workload = load_network(args, target)
    if args.seeds:
        check_budget(workload.tasks, args.trials, args.measures_per_round)
    base = ([sys.executable, "-m", "tvm_gnn_cost", "tune"]
            + workload_argv(args, leave_out=("first_round", "no_build"))
            + ["--trials", str(args.trials), "--no-build",
               "--prior-records", str(args.prior_records)])

    def first_round(model: str) -> int:
        return args.first_round or choices[model].first_round(args.measures_per_round)

    def command(model: str, seed: int, log: str) -> List[str]:
        return base + choices[model].tune_flags() + [
            "--seed", str(seed), "--log", log, "--first-round", str(first_round(model))]

    try:
        runs = ansor_runs(workload.tasks, workload.weights, models, args.seeds, args.trials,
                          args.out, command, first_round, args.measures_per_round,
                          args.max_gap, extra)
    except RuntimeError as err:
        raise SystemExit(f"error: {err}") from None
    notes = [runs.note, progress_table(runs.progress)]
    write_progress(runs.progress, os.path.join(args.out, "task_progress.json"))
    if not args.no_build:
        seconds = time_builds(runs.curves, runs.logs, workload, target, args.out)
        notes.append(framework_line(workload, seconds))
    return _report(runs.curves, args.out, f"{args.network} on {target}",
                   "\n\n".join(n for n in notes if n))


def _metaschedule(args, target, models: List[str]) -> int:
    from ..experiments.runner import (framework_line, metaschedule_log, metaschedule_progress,
                                      metaschedule_runs, time_builds)
    from ..tir.compat import MODERN
    from ..workloads.targets import with_num_cores

    target = with_num_cores(target)  # MetaSchedule's CPU rules need it
    workload = tune_ms.load_ms_workload(args, target)
    print(f"{args.network}: {len(workload.modules)} MetaSchedule tasks, target {target}",
          flush=True)
    curves = metaschedule_runs(workload, models, args.seeds, args.trials, args.out, target,
                               args.trials_per_iter)
    progress = metaschedule_progress(workload, curves, args.out)
    write_progress(progress, os.path.join(args.out, "task_progress.json"))
    notes = [progress_table(progress)]
    if workload.model is not None and not args.no_build:  # a network builds
        if MODERN:
            from ..metaschedule.relax_build import build_checked
        else:
            from ..metaschedule.relay_build import build_checked

        logs = [metaschedule_log(args.out, c.model, c.seed) for c in curves]
        seconds = time_builds(curves, logs, workload.model, target, args.out,
                              lambda log: build_checked(workload.model, workload.modules, log,
                                                        target))
        notes.append(framework_line(workload.model, seconds))
    return _report(curves, args.out, f"{args.network} with MetaSchedule on {target}",
                   "\n\n".join(n for n in notes if n))


def _report(curves, out: str, title: str, note: str = "") -> int:
    """Write and print the report; exit 1 if a run's build computed something else (the
    report says which), 0 otherwise."""
    from ..report import write_report

    text = write_report(curves, out, title, note=note)
    print(f"wrote {out}/curves.csv, curves.json, compare.json, curves.png, summary.md")
    print(text)
    wrong = [c for c in curves if (c.build_error or "").startswith("wrong outputs")]
    if wrong:
        print(f"error: {len(wrong)} of {len(curves)} runs built a network whose outputs are "
              f"wrong ({', '.join(f'{c.model} seed {c.seed}' for c in wrong)}); see "
              f"{out}/summary.md", file=sys.stderr)
        return 1
    return 0
