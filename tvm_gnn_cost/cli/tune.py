"""``tvm-gnn-cost tune``: tune a network or operator with one cost model, then build and time it."""
from __future__ import annotations

import argparse
import os

from .common import add_workload_args, parse_target, runner, search_params


def add_parser(sub) -> argparse.ArgumentParser:
    t = sub.add_parser("tune", help="tune a network or operator with one cost model")
    add_workload_args(t)
    t.add_argument("--model", choices=["gnn", "xgb", "random"], default="gnn")
    t.add_argument("--trials", type=int, required=True, help="total measurement trials")
    t.add_argument("--log", required=True, help="Ansor log to write (standard format)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--resume", action="store_true",
                   help="continue from the records in --log, with the model trained on them")
    t.add_argument("--save-model", default=None, help="save the GNN here after tuning")
    t.add_argument("--pretrained", default=None,
                   help="start the GNN from this checkpoint (see pretrain); it keeps learning")
    t.add_argument("--prior", default=None,
                   help="keep this pretrained checkpoint frozen as a prior: an online GNN "
                        "learns the job and gains weight on each task as its records come in")
    t.add_argument("--prior-records", type=float, default=128.0,
                   help="a task's own records at which prior and online GNN weigh the same")
    return t


def run(args) -> int:
    from ..ansor.tuning import make_model, tune
    from ..workloads.deploy import build_and_time
    from ..workloads.networks import load_workload

    target = parse_target(args.target)
    if os.path.exists(args.log) and not args.resume:
        raise SystemExit(f"error: {args.log} exists; pass --resume to continue it, "
                         "or choose another --log")
    if args.pretrained and args.model != "gnn":
        raise SystemExit("error: --pretrained needs --model gnn")
    if args.prior and (args.model != "gnn" or args.pretrained):
        raise SystemExit("error: --prior needs --model gnn and no --pretrained (it keeps "
                         "the checkpoint frozen beside an online GNN)")
    workload = load_workload(args.network, target, args.batch_size, args.input_shape)
    print(f"{args.network}: {len(workload.tasks)} tasks, target {target}", flush=True)
    model = make_model(args.model, args.seed, pretrained=args.pretrained, prior=args.prior,
                       prior_records=args.prior_records)
    curve = tune(workload.tasks, model, args.trials, args.log, weights=workload.weights,
                 seed=args.seed, search_params=search_params(args),
                 measures_per_round=args.measures_per_round, runner=runner(args),
                 resume=args.resume, progress=True, name=args.model)
    if curve.trials:
        print(f"tuned to {curve.trials[-1]} trials in {curve.wall:.0f} s; estimated latency "
              f"{curve.final * 1e3:.4f} ms; log {args.log}")
    if args.save_model and hasattr(model, "save"):
        model.save(args.save_model)
        print(f"model saved to {args.save_model}")
    if not args.no_build:
        lat = build_and_time(workload, args.log, target)
        print(f"measured latency with the best schedules: {lat * 1e3:.4f} ms")
    return 0
