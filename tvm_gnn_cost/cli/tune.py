"""``tvm-gnn-cost tune``: tune a network or operator with one cost model, then build and time it."""
from __future__ import annotations

import argparse
import json
import os

from ..experiments.registry import ANSOR_MODELS, METASCHEDULE_MODELS
from . import tune_ms
from .common import (add_prior_args, add_workload_args, at_least, build_and_report,
                     check_budget, describe, ensure_folder, load_network, model_choice,
                     parse_target, print_tuned, runner, save_model, search_params)

#: Models ``--model`` takes: those that need no checkpoint (``--prior`` and ``--pretrained``
#: give one to gnn).
TUNE_MODELS = {name: spec for name, spec in ANSOR_MODELS.items() if not spec.checkpoint}


def add_parser(sub) -> argparse.ArgumentParser:
    t = sub.add_parser("tune", help="tune a network or operator with one cost model")
    add_workload_args(t)
    t.add_argument("--searcher", choices=["ansor", "metaschedule"], default="ansor",
                   help="Ansor (TVM 0.19, the default) or MetaSchedule with Relax (apache-tvm: "
                        "--log is then its work folder)")
    t.add_argument("--model", choices=list(dict.fromkeys([*TUNE_MODELS, *METASCHEDULE_MODELS])),
                   default="gnn",
                   help="Ansor: " + ", ".join(f"{m.name} ({m.help})" for m in TUNE_MODELS.values())
                        + "; MetaSchedule: " + ", ".join(
                            f"{m.name} ({m.help})" for m in METASCHEDULE_MODELS.values()))
    budget = t.add_mutually_exclusive_group(required=True)
    budget.add_argument("--trials", type=at_least(1),
                        help="total measurement trials, at least one a task")
    budget.add_argument("--trials-per-task", type=at_least(1), metavar="N",
                        help="N trials for each task of the network (the total is N times the "
                             "tasks; Ansor's scheduler still gives more to the tasks that cut "
                             "the most latency)")
    t.add_argument("--log", required=True,
                   help="Ansor log to write (standard format); with --searcher metaschedule, "
                        "the work folder of its JSON database")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--resume", action="store_true",
                   help="continue from the records in --log, with the model trained on them")
    t.add_argument("--save-model", default=None, help="save the GNN here after tuning")
    t.add_argument("--pretrained", default=None,
                   help="start the GNN from this checkpoint (see pretrain) and fine-tune it, "
                        "without a prior")
    t.add_argument("--profile", action="store_true",
                   help="after the build, time each fused function alone (TVM's debug "
                        "executor) and show where the time goes: share, tuned or not, the "
                        "tuned task's estimate; LOG.profile.json for scripts")
    t.add_argument("--weigh-by-profile", default=None, metavar="PROFILE.json",
                   help="a build profile of this network (--profile writes LOG.profile.json): "
                        "the task scheduler counts each task's latency times what its function "
                        "took in that build over its estimate, so trials go where the built "
                        "network spends its time; usually with --resume and a larger budget")
    t.add_argument("--export", default=None, metavar="LIB.so",
                   help="write the library built with the best schedules here, .so or .tar "
                        "(checked against the original model first)")
    add_prior_args(t)
    tune_ms.add_arguments(t)
    return t


def run(args) -> int:
    target = parse_target(args.target, args.rpc_key)
    if args.searcher == "metaschedule":
        return tune_ms.run(args, target)
    from ..ansor.tuning import count_records, first_rounds_only, trials_by_task, tune

    tune_ms.refuse(args, tune_ms.METASCHEDULE_ONLY, "MetaSchedule")
    if args.model not in TUNE_MODELS:
        raise SystemExit(f"error: --model {args.model} is a MetaSchedule model; Ansor takes "
                         f"{', '.join(TUNE_MODELS)}")
    if os.path.exists(args.log) and not args.resume:
        raise SystemExit(f"error: {args.log} exists; pass --resume to continue it, "
                         "or choose another --log")
    if args.export and args.no_build:
        raise SystemExit("error: --export writes the built library; drop --no-build")
    if args.export and not args.export.endswith((".so", ".tar")):
        raise SystemExit(f"error: --export {args.export}: name the library with .so (a shared "
                         "library) or .tar (its object files); tvm.runtime.load_module goes "
                         "by the suffix")
    choice = model_choice(args, target)
    workload = load_network(args, target)
    if args.export and not workload.is_network:
        raise SystemExit(f"error: --export writes a network's library; {args.network} is "
                         "single operators, each built and checked on its own. Tune a network "
                         "(a model file, package.module:function or a built-in network) to "
                         "export it")
    for flag, path in (("--log", args.log), ("--export", args.export)):
        if path:
            ensure_folder(flag, path)
    print(f"{args.network}: {len(workload.tasks)} tasks, target {target}", flush=True)
    if args.trials_per_task:
        args.trials = args.trials_per_task * len(workload.tasks)
        print(f"budget: {args.trials} trials ({args.trials_per_task} a task)", flush=True)
    if not (args.resume and count_records(args.log, workload.tasks)):
        # a resumed log with none of these tasks' records starts afresh: same minimum
        check_budget(workload.tasks, args.trials, args.measures_per_round)
    scheduler_weights = weights_from_profile(args.weigh_by_profile, workload)
    model = choice.make(args.seed, workload.tasks, args.trials, args.measures_per_round,
                        args.prior_records)
    if choice.name.startswith("gnn"):
        print(f"model: {describe(model)}", flush=True)
    first = args.first_round or choice.first_round(args.measures_per_round)
    if first != args.measures_per_round:
        print(f"rounds: {first} programs in each task's first round, "
              f"{args.measures_per_round} after (--first-round)", flush=True)
    short = first_rounds_only(len(workload.tasks), args.trials, first, args.measures_per_round)
    if short:
        print(f"warning: {short}", flush=True)
    curve = tune(workload.tasks, model, args.trials, args.log, weights=workload.weights,
                 seed=args.seed, search_params=search_params(args),
                 measures_per_round=args.measures_per_round, first_round=first,
                 runner=runner(args), resume=args.resume, progress=True, name=choice.name,
                 scheduler_weights=scheduler_weights)
    print_tuned(curve, f"log {args.log}", "; operators that are no task are left out: "
                "--profile times every function of the build",
                trials_by_task(args.log, workload.tasks) if curve.trials else {})
    save_model(args, model)
    if args.no_build:
        return 0
    return build(workload, args, target)


def weights_from_profile(path, workload):
    """The task scheduler's weights from the build profile at ``path`` (None without one),
    each task's factor printed."""
    if path is None:
        return None
    from ..ansor.profile import profile_weights

    if not os.path.exists(path):
        raise SystemExit(f"error: --weigh-by-profile {path}: no such file; tune with --profile "
                         "first, which writes LOG.profile.json after the build")
    with open(path) as f:
        profile = json.load(f)
    if not isinstance(profile, dict) or "rows" not in profile:
        raise SystemExit(f"error: --weigh-by-profile {path} is no build profile (the "
                         "LOG.profile.json that tune --profile writes)")
    weights, factors = profile_weights(profile, workload.tasks, workload.weights)
    if not factors:
        raise SystemExit(f"error: --weigh-by-profile {path} times none of these tasks; was it "
                         "written for another network?")
    shown = ", ".join(f"{fn} x{r:.2f}" for fn, r in sorted(factors.items(), key=lambda x: -x[1]))
    print(f"scheduler weights: {len(factors)} of {len(workload.tasks)} tasks weighed by their "
          f"time in the build over their estimate: {shown}", flush=True)
    return weights


def build(workload, args, target) -> int:
    """Build, check, time and export what was tuned (:func:`.common.build_and_report`)."""
    from ..ansor.build import build_and_time

    report = build_and_report(
        args, lambda: build_and_time(workload, args.log, target, export=args.export,
                                     profile=args.profile),
        "schedules", "use TVM's default schedule")
    if report is None:
        return 1
    if report.profile:
        print("where the time goes (each function timed alone):")
        print(report.profile.describe(report.latency * 1e3))
        with open(args.log + ".profile.json", "w") as f:
            json.dump({"network": args.network, "log": args.log,
                       "built_ms": report.latency * 1e3, **report.profile.to_dict()}, f, indent=1)
    if report.exported:
        print(f"compiled library: {report.exported} (inputs in {report.exported}.json; load it "
              "with tvm.runtime.load_module)")
    return 0
