"""``tvm-gnn-cost``: tune a network, compare cost models' search curves, redraw plots.

    tvm-gnn-cost tune --network resnet-18 --model gnn --trials 500 --log r18.json
    tvm-gnn-cost compare --network resnet-18 --models gnn,xgb,random --trials 500 --seeds 3 --out runs/r18
    tvm-gnn-cost plot runs/r18
    tvm-gnn-cost collect --network resnet-18 --programs-per-task 64 --out data/r18.json
    tvm-gnn-cost pretrain data/*.json --out gnn-cpu.pt
    tvm-gnn-cost evaluate --model gnn-cpu.pt data/heldout/*.json --baseline xgb --train data/*.json
"""
from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import time
from typing import List, Optional

from ..core.config import LOSSES, PretrainConfig, TrainerConfig

logger = logging.getLogger("tvm_gnn_cost")

#: Models ``compare`` runs; ``gnn-pretrained`` is the GNN started from ``--pretrained``,
#: ``gnn-prior`` the online GNN with ``--pretrained`` as a frozen prior.
COMPARE_MODELS = ("gnn", "xgb", "random", "gnn-pretrained", "gnn-prior")


def _shape(text: str):
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--input-shape takes comma-separated integers, got {text!r}")


def _add_workload_args(p: argparse.ArgumentParser) -> None:
    from ..workloads.networks import NETWORKS

    p.add_argument("--network", required=True, choices=NETWORKS,
                   help="a relay.testing network, a BERT-style encoder, or one operator")
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--input-shape", type=_shape, default=None,
                   help="H,W,C for CNNs; sequence length for bert; n,m,k for matmul; "
                        "H,W,Cin,Cout,kernel for conv2d")
    p.add_argument("--target", default=None,
                   help="any TVM target string (default: the host CPU with its -mcpu)")
    p.add_argument("--search", choices=["small", "default"], default="small",
                   help="SketchPolicy size: 'small' (population 256, 2 iterations) or Ansor's default")
    p.add_argument("--measures-per-round", type=int, default=16)
    p.add_argument("--rpc-key", default=None, help="measure on devices of this key at an RPC tracker")
    p.add_argument("--rpc-host", default="127.0.0.1")
    p.add_argument("--rpc-port", type=int, default=9190)
    p.add_argument("--no-build", action="store_true",
                   help="skip building and timing the result with its best schedules")
    p.add_argument("-v", "--verbose", action="store_true")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tvm-gnn-cost", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    t = sub.add_parser("tune", help="tune a network or operator with one cost model")
    _add_workload_args(t)
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

    c = sub.add_parser("compare", help="tune with several cost models and compare search curves")
    _add_workload_args(c)
    c.add_argument("--models", default="gnn,xgb",
                   help="comma-separated: gnn, xgb, random, gnn-pretrained (the GNN started "
                        "from --pretrained) and gnn-prior (an online GNN with --pretrained "
                        "as a frozen prior)")
    c.add_argument("--pretrained", default=None,
                   help="checkpoint the gnn-pretrained and gnn-prior runs use (see pretrain)")
    c.add_argument("--prior-records", type=float, default=128.0,
                   help="gnn-prior: a task's own records at which prior and online GNN weigh "
                        "the same")
    c.add_argument("--searcher", choices=["ansor", "metaschedule"], default="ansor",
                   help="the search to compare models in; metaschedule takes the models gnn, "
                        "xgb, mlp and random (MetaSchedule's own)")
    c.add_argument("--trials-per-iter", type=int, default=16,
                   help="metaschedule: candidates measured per search iteration")
    c.add_argument("--trials", type=int, required=True, help="trials per run")
    c.add_argument("--seeds", type=int, default=3, help="runs per model, seeds 0..N-1")
    c.add_argument("--out", required=True, help="folder for logs, curves, plot and summary")
    c.add_argument("--max-gap", type=float, default=300.0,
                   help="seconds between two records counted as the job not running (a crash "
                        "before a resume), left out of the tuning time")
    c.add_argument("--logs", nargs="*", default=[], metavar="MODEL=LOG",
                   help="existing logs to include instead of tuning (seeds in order given)")

    co = sub.add_parser("collect", help="measure random programs of each task into a dataset log")
    _add_workload_args(co)
    co.add_argument("--programs-per-task", type=int, default=64)
    co.add_argument("--out", required=True, help="Ansor log to append to (tasks saved beside it)")
    co.add_argument("--seed", type=int, default=0)
    co.add_argument("--search-trials", type=int, default=0,
                    help="then also tune with the GNN for this many trials into the same log")

    pt = sub.add_parser("pretrain", help="train the GNN offline on Ansor logs")
    pt.add_argument("logs", nargs="+", help="Ansor logs (task files beside them are loaded)")
    pt.add_argument("--out", required=True, help="checkpoint to write")
    pt.add_argument("--epochs", type=int, default=200)
    pt.add_argument("--patience", type=int, default=20)
    pt.add_argument("--hidden", type=int, default=128, help="width of the GNN's layers")
    pt.add_argument("--dropout", type=float, default=0.2)
    pt.add_argument("--weight-decay", type=float, default=1e-3)
    pt.add_argument("--loss", choices=LOSSES, default=TrainerConfig.loss,
                    help="training loss; pairwise+logmse learns log throughput (comparable "
                         "across tasks) instead of throughput normalized per task")
    pt.add_argument("--per-task", type=int, default=PretrainConfig.per_task,
                    help="programs of one task kept together in a training batch, for the "
                         "ranking loss's same-task pairs (0: random batches)")
    pt.add_argument("--val-fraction", type=float, default=0.2, help="share of tasks held out")
    pt.add_argument("--seed", type=int, default=0)
    pt.add_argument("--nproc", type=int, default=1,
                    help="train data-parallel in this many processes (DDP over gloo)")
    pt.add_argument("--workers", type=int, default=1,
                    help="processes that read and featurize the logs, one log each")
    pt.add_argument("--shard-size", type=int, default=4096,
                    help="records per shard; training holds 4 shards in memory at a time")
    pt.add_argument("--cache", default=None,
                    help="folder for the featurized shards (default: a temporary folder)")
    pt.add_argument("-v", "--verbose", action="store_true")

    ev = sub.add_parser("evaluate", help="accuracy of a pretrained GNN (and XGBoost) on held-out logs")
    ev.add_argument("logs", nargs="+", help="held-out Ansor logs")
    ev.add_argument("--model", required=True, help="GNN checkpoint")
    ev.add_argument("--baseline", choices=["xgb", "none"], default="xgb")
    ev.add_argument("--train", nargs="*", default=[],
                    help="the GNN's training logs: XGBoost is trained on them, and held-out "
                         "tasks that they hold too are left out")
    ev.add_argument("--include-seen", action="store_true",
                    help="keep the tasks that the training logs hold too (a fit check, not "
                         "held-out accuracy)")
    ev.add_argument("--out", default=None, help="also write the table to this markdown file")
    ev.add_argument("-v", "--verbose", action="store_true")

    pl = sub.add_parser("plot", help="redraw the plot and summary of a compare folder")
    pl.add_argument("out", help="folder written by compare")
    pl.add_argument("--reference", default="xgb", help="model whose final latency is the bar")
    return parser


def _target(text: Optional[str]):
    import json

    import tvm

    from ..workloads.targets import check_target, host_target

    if text is None:
        return host_target()
    try:  # a JSON dict is the form apache-tvm 0.27 takes; TVM 0.19 takes both
        target = tvm.target.Target(json.loads(text) if text.lstrip().startswith("{") else text)
    except Exception as err:  # noqa: BLE001 - TVM raises TVMError/ValueError on bad strings
        raise SystemExit(f"error: invalid --target {text!r}: {str(err).splitlines()[0]}. "
                         "Examples: 'llvm -mcpu=skylake-avx512', 'cuda', "
                         "'{\"kind\": \"llvm\", \"mcpu\": \"skylake-avx512\"}'.")
    try:
        check_target(target)
    except ValueError as err:
        raise SystemExit(f"error: --target {text!r}: {err}")
    return target


def _runner(args):
    from tvm import auto_scheduler

    if args.rpc_key:
        return auto_scheduler.RPCRunner(args.rpc_key, args.rpc_host, args.rpc_port, n_parallel=1,
                                        timeout=20, number=2, repeat=2, min_repeat_ms=20,
                                        enable_cpu_cache_flush=False)
    return None


def _search_params(args):
    from ..ansor.tuning import SMALL_SEARCH

    return SMALL_SEARCH if args.search == "small" else None


def cmd_tune(args) -> int:
    from ..ansor.cost_model import GNNCostModel
    from ..workloads.deploy import build_and_time
    from ..workloads.networks import load_workload
    from ..ansor.tuning import make_model, tune

    target = _target(args.target)
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
    if args.prior:
        model = GNNCostModel(seed=args.seed, prior=args.prior, prior_records=args.prior_records)
    else:
        model = make_model(args.model, seed=args.seed)
    if args.pretrained:
        model.load(args.pretrained)
    curve = tune(workload.tasks, model, args.trials, args.log, weights=workload.weights,
                 seed=args.seed, search_params=_search_params(args),
                 measures_per_round=args.measures_per_round, runner=_runner(args),
                 resume=args.resume, progress=True)
    if curve.points:
        last = curve.points[-1]
        print(f"tuned to {last.trials} trials in {last.seconds:.0f} s; estimated latency "
              f"{last.latency * 1e3:.4f} ms; log {args.log}")
    if args.save_model and hasattr(model, "save"):
        model.save(args.save_model)
        print(f"model saved to {args.save_model}")
    if not args.no_build:
        lat = build_and_time(workload, args.log, target)
        print(f"measured latency with the best schedules: {lat * 1e3:.4f} ms")
    return 0


def cmd_compare(args) -> int:
    target = _target(args.target)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if args.searcher == "metaschedule":
        return _compare_metaschedule(args, target, models)
    from ..curves import curve_from_log, read_curves, summary_table, weights_measured, write_curves
    from ..workloads.deploy import build_and_time
    from ..workloads.networks import load_workload

    unknown = sorted(set(models) - set(COMPARE_MODELS))
    if unknown or not models:
        raise SystemExit(f"error: --models takes some of {', '.join(COMPARE_MODELS)}; "
                         f"got {args.models!r}")
    for name in {"gnn-pretrained", "gnn-prior"} & set(models):
        if not (args.pretrained and os.path.exists(args.pretrained)):
            raise SystemExit(f"error: {name} needs --pretrained CHECKPOINT (an existing file "
                             "written by `tvm-gnn-cost pretrain`)")
    workload = load_workload(args.network, target, args.batch_size, args.input_shape)
    logs_dir = os.path.join(args.out, "logs")
    os.makedirs(logs_dir, exist_ok=True)
    runs = []  # (model, seed, log)
    for item in args.logs:
        model, _, path = item.partition("=")
        if not path or not os.path.exists(path):
            raise SystemExit(f"error: --logs takes MODEL=PATH of an existing log, got {item!r}")
        runs.append((model, sum(1 for r in runs if r[0] == model), path))
    for seed in range(args.seeds):  # seeds outer: models alternate, so machine noise hits all
        for model in models:
            log = os.path.join(logs_dir, f"{model}-seed{seed}.json")
            _tune_run(args, workload.tasks, target, model, seed, log)
            runs.append((model, seed, log))

    weights, dropped = weights_measured(workload.tasks, workload.weights,
                                        [log for _, _, log in runs])
    note = ""
    if dropped:
        note = ("Left out of the estimated latency (no valid measurement in any run): "
                + ", ".join(dropped))
        logger.warning(note)
    previous = {}
    if os.path.exists(os.path.join(args.out, "curves.json")):
        previous = {(c.model, c.seed, c.trials[-1] if c.trials else 0): c.measured
                    for c in read_curves(args.out)}
    curves = []
    for model, seed, log in runs:
        start = None
        if os.path.exists(log + ".start"):
            start = float(open(log + ".start").read())
        curve = curve_from_log(log, weights, model, seed, start_time=start,
                               round_size=args.measures_per_round, max_gap=args.max_gap)
        curve.measured = previous.get((model, seed, curve.trials[-1] if curve.trials else 0))
        if curve.measured is None and not args.no_build:
            curve.measured = build_and_time(workload, log, target)
        curves.append(curve)
    write_curves(curves, args.out)
    _render(curves, args.out, f"{args.network} on {target}", note=note)
    print(summary_table(curves))
    return 0


def _compare_metaschedule(args, target, models: List[str]) -> int:
    """``compare --searcher metaschedule``: each model and seed through ``ms.tune_tasks``."""
    import json
    from dataclasses import asdict

    from ..curves import Curve, summary_table, write_curves
    from ..metaschedule.tuning import MS_MODELS, ms_tune, ms_workload
    from ..workloads.targets import with_num_cores

    unknown = sorted(set(models) - set(MS_MODELS))
    if unknown or not models:
        raise SystemExit(f"error: with --searcher metaschedule, --models takes some of "
                         f"{', '.join(MS_MODELS)}; got {args.models!r}")
    target = with_num_cores(target)  # MetaSchedule's CPU rules need it
    workload = ms_workload(args.network, target, args.batch_size, args.input_shape)
    print(f"{args.network}: {len(workload.modules)} MetaSchedule tasks, target {target}",
          flush=True)
    curves = []
    for seed in range(args.seeds):  # seeds outer: models alternate, so machine noise hits all
        for model in models:
            path = os.path.join(args.out, "metaschedule", f"{model}-seed{seed}.json")
            if os.path.exists(path):  # a finished run is reused
                with open(path) as f:
                    curves.append(Curve(**json.load(f)))
                continue
            print(f"[{model} seed {seed}] tuning {args.network} with MetaSchedule", flush=True)
            curve = ms_tune(workload, model, args.trials, path[:-5], target, seed,
                            args.trials_per_iter)
            with open(path, "w") as f:
                json.dump(asdict(curve), f)
            curves.append(curve)
    write_curves(curves, args.out)
    _render(curves, args.out, f"{args.network} with MetaSchedule on {target}")
    print(summary_table(curves))
    return 0


def cmd_collect(args) -> int:
    from ..ansor.dataset import collect, tasks_path
    from ..workloads.networks import load_workload
    from ..ansor.tuning import make_model, tune

    if args.programs_per_task < 1:
        raise SystemExit("error: --programs-per-task must be at least 1")
    target = _target(args.target)
    workload = load_workload(args.network, target, args.batch_size, args.input_shape)
    print(f"{args.network}: {len(workload.tasks)} tasks, target {target}", flush=True)
    total = collect(workload.tasks, args.programs_per_task, args.out, seed=args.seed,
                    progress=True, runner=_runner(args), weights=workload.weights)
    if args.search_trials:
        tune(workload.tasks, make_model("gnn", args.seed), args.search_trials, args.out,
             weights=workload.weights, seed=args.seed, search_params=_search_params(args),
             measures_per_round=args.measures_per_round, runner=_runner(args), progress=True)
    print(f"{args.out}: {total} random programs of {len(workload.tasks)} tasks; "
          f"tasks in {tasks_path(args.out)}")
    return 0


def cmd_pretrain(args) -> int:
    from ..ansor.cost_model import GNNCostModel
    from ..core.config import ModelConfig
    from ..offline.pretrain import PretrainConfig, pretrain

    for log in args.logs:
        if not os.path.exists(log):
            raise SystemExit(f"error: no log at {log}")
    model = GNNCostModel(seed=args.seed,
                         model_config=ModelConfig(hidden=args.hidden, readout_hidden=args.hidden,
                                                  dropout=args.dropout),
                         trainer_config=TrainerConfig(weight_decay=args.weight_decay,
                                                      loss=args.loss))
    cfg = PretrainConfig(epochs=args.epochs, patience=args.patience,
                         val_fraction=args.val_fraction, seed=args.seed,
                         shard_size=args.shard_size, per_task=args.per_task)
    result = pretrain(model, args.logs, cfg, progress=True, nproc=args.nproc,
                      workers=args.workers, cache_dir=args.cache)
    model.save(args.out)
    print(f"{result.records} records in {result.shards} shards, at most "
          f"{result.max_in_memory} in memory at once")
    if result.val_tasks:
        print(f"pretrained on {result.train_tasks} tasks ({result.val_tasks} held out for "
              f"validation): best epoch {result.best_epoch} of {result.epochs}, validation "
              f"pairwise accuracy {result.best_val_accuracy:.3f}; saved {args.out}")
    else:
        print(f"pretrained on {result.train_tasks} tasks (none held out for validation) for "
              f"{result.epochs} epochs; saved {args.out}")
    return 0


def cmd_evaluate(args) -> int:
    from tvm import auto_scheduler

    from ..ansor.cost_model import GNNCostModel
    from ..offline.evaluate import drop_seen, gnn_scorer, load_groups, read_logs, score, table, xgb_scorer

    if args.baseline == "xgb" and not args.train:
        raise SystemExit("error: --baseline xgb needs --train LOGS (the GNN's training logs)")
    model = GNNCostModel()
    model.load(args.model)
    train_inputs, train_results = read_logs(args.train)
    groups = load_groups(args.logs, model.rebuilder)
    if not args.include_seen:
        groups = drop_seen(groups, train_inputs)
    if not groups:
        raise SystemExit(f"error: no usable record of a task outside the training logs in "
                         f"{args.logs}; --include-seen evaluates on training tasks too")
    results = {"gnn": score(groups, gnn_scorer(model))}
    if args.baseline == "xgb":
        xgb = auto_scheduler.XGBModel(seed=0, num_warmup_sample=1)  # train on whatever is given
        xgb.update(train_inputs, train_results)
        results["xgb"] = score(groups, xgb_scorer(xgb))
    text = table(results)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 0


def _tune_run(args, tasks, target, model: str, seed: int, log: str, max_restarts: int = 5) -> None:
    """Tune one model and seed to ``args.trials`` in a child process, resuming after a crash.

    A child process because TVM can abort the whole process (a C++ assertion on
    XGBModel's path, see README); the log keeps every measured record, so a
    restart with ``--resume`` continues where the crash left off. Gives up after
    ``max_restarts`` crashes, or at once if a crash measured nothing new.
    """
    from ..ansor.tuning import count_records

    cmd = [sys.executable, "-m", "tvm_gnn_cost", "tune", "--network", args.network,
           "--batch-size", str(args.batch_size), "--target", str(target),
           "--search", args.search, "--measures-per-round", str(args.measures_per_round),
           "--model", "gnn" if model.startswith("gnn") else model, "--seed", str(seed),
           "--trials", str(args.trials), "--log", log, "--no-build"]
    if model == "gnn-pretrained":
        cmd += ["--pretrained", args.pretrained]
    if model == "gnn-prior":
        cmd += ["--prior", args.pretrained, "--prior-records", str(args.prior_records)]
    if args.input_shape:
        cmd += ["--input-shape", ",".join(map(str, args.input_shape))]
    if args.verbose:
        cmd.append("--verbose")
    if args.rpc_key:
        cmd += ["--rpc-key", args.rpc_key, "--rpc-host", args.rpc_host,
                "--rpc-port", str(args.rpc_port)]
    done = count_records(log, tasks)
    restarts = 0
    while done < args.trials:
        print(f"[{model} seed {seed}] tuning {args.network}: {done} of {args.trials} trials done",
              flush=True)
        if not done:  # tuning time is counted from here
            with open(log + ".start", "w") as f:
                f.write(repr(time.time()))
        rc = subprocess.call(cmd + (["--resume"] if done else []))
        now = count_records(log, tasks)
        if rc == 0 and now >= args.trials:
            return
        if rc == 0:
            raise SystemExit(f"error: tuning {model} seed {seed} ended at {now} of "
                             f"{args.trials} trials; see its output above")
        restarts += 1
        logger.warning("[%s seed %d] the tuning process died (exit %d) at %d trials",
                       model, seed, rc, now)
        if now == done or restarts > max_restarts:
            logger.warning("[%s seed %d] giving up at %d of %d trials; its curve stops there",
                           model, seed, now, args.trials)
            return
        done = now


def _render(curves, out: str, title: str, reference: str = "xgb", note: str = "") -> None:
    from ..curves import plot_curves, summary_table

    plot_curves(curves, os.path.join(out, "curves.png"), title)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(f"# {title}\n\n{summary_table(curves, reference)}\n")
        if note:
            f.write(f"\n{note}\n")
    print(f"wrote {out}/curves.csv, curves.json, curves.png, summary.md")


def cmd_plot(args) -> int:
    from ..curves import read_curves, summary_table

    curves = read_curves(args.out)
    title, note = "", ""
    summary = os.path.join(args.out, "summary.md")
    if os.path.exists(summary):
        lines = open(summary).read().splitlines()
        title = lines[0][2:].strip() if lines and lines[0].startswith("# ") else ""
        note = "\n".join(x for x in lines if x.startswith("Left out"))
    _render(curves, args.out, title, args.reference, note)
    print(summary_table(curves, args.reference))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("TOPHUB_LOCATION", "NONE")
    handlers = {"tune": cmd_tune, "compare": cmd_compare, "plot": cmd_plot,
                "collect": cmd_collect, "pretrain": cmd_pretrain, "evaluate": cmd_evaluate}
    if args.command != "plot" and getattr(args, "searcher", "ansor") == "ansor":
        _require_ansor(args.command)
    return handlers[args.command](args)


def _require_ansor(command: str) -> None:
    """Exit with what to do instead when this TVM has no auto_scheduler (apache-tvm >= 0.20)."""
    try:
        from tvm import auto_scheduler  # noqa: F401
    except ImportError:
        import tvm

        what = ("Pass --searcher metaschedule to compare with MetaSchedule, or run it"
                if command == "compare" else "Run it")
        raise SystemExit(f"error: {command} runs Ansor (tvm.auto_scheduler), which TVM "
                         f"{tvm.__version__} does not have. {what} with the pinned stack "
                         "(TVM 0.19: `make setup`, then .venv/bin/tvm-gnn-cost).")


if __name__ == "__main__":
    sys.exit(main())
