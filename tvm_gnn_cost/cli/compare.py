"""``tvm-gnn-cost compare``: each model for each seed at the same budget, in Ansor or
MetaSchedule; curves, plot and summary.

Both searches go through one loop (seeds outer, models inner, so machine noise hits every
model alike) and keep every finished run on disk, so a rerun of the command reuses them. What
a run is differs: an Ansor run is a ``tune`` child process writing an Ansor log (TVM can abort
the whole process, and the log lets a restart resume), and its curve is rebuilt from that log;
a MetaSchedule run tunes in this process and keeps its curve as JSON.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from typing import Callable, List, Optional

from ..core.prior import PRIOR_RECORDS
from ..signals import signal_name
from .common import (COMPARE_MODELS, add_workload_args, at_least, check_budget, load_network,
                     parse_target)

logger = logging.getLogger("tvm_gnn_cost")


def add_parser(sub) -> argparse.ArgumentParser:
    c = sub.add_parser("compare", help="tune with several cost models and compare search curves")
    add_workload_args(c)
    c.add_argument("--models", default="gnn,xgb",
                   help="comma-separated: gnn (the default model: online GNN with the shipped "
                        "prior where the target fits it), gnn-online (no prior), gnn-prior "
                        "(--pretrained as the prior), gnn-pretrained (the GNN started from "
                        "--pretrained), xgb (stock Ansor), xgb-w16 (XGBModel with a 16-record "
                        "warm-up), random")
    c.add_argument("--pretrained", default=None,
                   help="checkpoint the gnn-pretrained and gnn-prior runs use (see pretrain)")
    c.add_argument("--prior-records", type=float, default=PRIOR_RECORDS,
                   help="gnn and gnn-prior: a task's own records at which prior and online GNN "
                        f"weigh the same (default {PRIOR_RECORDS:g})")
    c.add_argument("--searcher", choices=["ansor", "metaschedule"], default="ansor",
                   help="the search to compare models in; metaschedule takes the models gnn, "
                        "xgb, mlp and random (MetaSchedule's own)")
    c.add_argument("--trials-per-iter", type=at_least(1), default=16,
                   help="metaschedule: candidates measured per search iteration")
    c.add_argument("--trials", type=at_least(1), required=True, help="trials per run")
    c.add_argument("--seeds", type=at_least(0), default=3, help="runs per model, seeds 0..N-1")
    c.add_argument("--out", required=True, help="folder for logs, curves, plot and summary")
    c.add_argument("--max-gap", type=float, default=300.0,
                   help="seconds between two records counted as the job not running (a crash "
                        "before a resume), left out of the tuning time")
    c.add_argument("--logs", nargs="*", default=[], metavar="MODEL=LOG",
                   help="existing logs to include (seeds in order given), beside the --seeds "
                        "runs of --models it tunes; --seeds 0 tabulates these logs alone")
    return c


def run(args) -> int:
    target = parse_target(args.target, args.rpc_key)
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if args.searcher == "metaschedule":
        return _metaschedule(args, target, models)
    return _ansor(args, target, models)


def each_run(args, models: List[str], run_one: Callable):
    """``run_one(model, seed)`` for every seed and model, seeds outer: models alternate, so
    machine noise hits all of them."""
    return [run_one(model, seed) for seed in range(args.seeds) for model in models]


def _ansor(args, target, models: List[str]) -> int:
    from ..curves import curve_from_log, weights_measured

    unknown = sorted(set(models) - set(COMPARE_MODELS))
    if unknown or not models:
        raise SystemExit(f"error: --models takes some of {', '.join(COMPARE_MODELS)}; "
                         f"got {args.models!r}")
    for name in {"gnn-pretrained", "gnn-prior"} & set(models):
        if not (args.pretrained and os.path.exists(args.pretrained)):
            raise SystemExit(f"error: {name} needs --pretrained CHECKPOINT (an existing file "
                             "written by `tvm-gnn-cost pretrain`)")
    workload = load_network(args, target)
    if args.seeds:
        check_budget(workload.tasks, args.trials, args.measures_per_round)
    logs_dir = os.path.join(args.out, "logs")
    os.makedirs(logs_dir, exist_ok=True)
    runs = []  # (model, seed, log)
    for item in args.logs:
        model, _, path = item.partition("=")
        if not path or not os.path.exists(path):
            raise SystemExit(f"error: --logs takes MODEL=PATH of an existing log, got {item!r}")
        runs.append((model, sum(1 for r in runs if r[0] == model), path))

    def run_one(model: str, seed: int):
        log = os.path.join(logs_dir, f"{model}-seed{seed}.json")
        _tune_child(args, workload.tasks, target, model, seed, log)
        return model, seed, log

    runs += each_run(args, models, run_one)
    weights, dropped = weights_measured(workload.tasks, workload.weights,
                                        [log for _, _, log in runs])
    note = ""
    if dropped:
        note = ("Left out of the estimated latency (no valid measurement in any run): "
                + ", ".join(dropped))
        logger.warning(note)
    curves = []
    for model, seed, log in runs:
        start = None
        if os.path.exists(log + ".start"):
            start = float(open(log + ".start").read())
        curves.append(curve_from_log(log, weights, model, seed, start_time=start,
                                     round_size=args.measures_per_round, max_gap=args.max_gap,
                                     first_round=_first_round(args, target, model)))
    framework = None
    if not args.no_build:
        seconds = _measure(curves, [log for _, _, log in runs], workload, target, args.out)
        framework = _framework_line(workload, seconds)
    note = "\n\n".join(x for x in (note, framework) if x)
    return report(curves, args.out, f"{args.network} on {target}", note=note)


def _framework_line(workload, seconds: Optional[float], runs: int = 15) -> str:
    """What the user would run without TVM: the original model's CPU inference time in its
    framework (torch eager, ONNX Runtime), ``seconds`` if it was timed in turns with the
    builds, else now (median of ``runs``); "" if it has none."""
    from ..workloads.deploy import random_inputs, time_reference

    if workload.reference is None:
        return ""
    how = "timed in turns with the builds"
    if seconds is None:
        seconds = time_reference(workload.reference, random_inputs(workload.inputs), runs)
        how = f"median of {runs} runs"
    return (f"{workload.framework} runs the original model in {seconds * 1e3:.3f} ms on this "
            f"host ({how}): what the user would run without TVM.")


def _metaschedule(args, target, models: List[str]) -> int:
    from ..curves import Curve
    from ..metaschedule.tuning import MS_MODELS, ms_tune, ms_workload
    from ..workloads.models import parse_input_dtypes, parse_input_shapes
    from ..workloads.targets import with_num_cores

    unknown = sorted(set(models) - set(MS_MODELS))
    if unknown or not models:
        raise SystemExit(f"error: with --searcher metaschedule, --models takes some of "
                         f"{', '.join(MS_MODELS)}; got {args.models!r}")
    target = with_num_cores(target)  # MetaSchedule's CPU rules need it
    try:
        workload = ms_workload(args.network, target, args.batch_size, args.input_shape,
                               parse_input_shapes(args.input_shapes),
                               parse_input_dtypes(args.input_shapes))
    except (ValueError, FileNotFoundError) as err:
        raise SystemExit(f"error: --network {args.network}: {err}")
    print(f"{args.network}: {len(workload.modules)} MetaSchedule tasks, target {target}",
          flush=True)

    def run_one(model: str, seed: int):
        path = os.path.join(args.out, "metaschedule", f"{model}-seed{seed}.json")
        if os.path.exists(path):  # a finished run is reused
            with open(path) as f:
                return Curve(**json.load(f))
        print(f"[{model} seed {seed}] tuning {args.network} with MetaSchedule", flush=True)
        curve = ms_tune(workload, model, args.trials, path[:-5], target, seed,
                        args.trials_per_iter)
        with open(path, "w") as f:
            json.dump(asdict(curve), f)
        return curve

    curves = each_run(args, models, run_one)
    return report(curves, args.out, f"{args.network} with MetaSchedule on {target}")


def _measure(curves, logs: List[str], workload, target, out: str) -> Optional[float]:
    """Set each curve's ``measured``: its log's best schedules built, checked and timed, all
    builds in turns (:func:`~tvm_gnn_cost.workloads.deploy.time_side_by_side`) with the
    original model in its framework, so that the host's drift hits each alike; returns the
    framework's seconds (None if not timed). Latencies of an earlier call on the same ``out``
    are kept if every run has one (timed together then); a build that fails counts as None,
    with a warning: the tuning is done and its curve still counts."""
    from ..curves import read_curves
    from ..workloads.deploy import (build_checked, random_inputs, reference_timer,
                                    time_side_by_side)
    from ..workloads.errors import error_summary

    def key(c):
        return c.model, c.seed, c.trials[-1] if c.trials else 0

    if os.path.exists(os.path.join(out, "curves.json")):
        previous = {key(c): c.measured for c in read_curves(out)}
        if all(previous.get(key(c)) is not None for c in curves):
            for c in curves:
                c.measured = previous[key(c)]
            return None
    timers = {}
    for i, (curve, log) in enumerate(zip(curves, logs)):
        print(f"[{curve.model} seed {curve.seed}] building {workload.name} with the best "
              f"schedules of {log}", flush=True)
        try:
            timers[i] = build_checked(workload, log, target).timer
        except Exception as err:  # noqa: BLE001 - a build error must not lose the comparison
            logger.warning("building %s with the best schedules of %s failed: %s",
                           workload.name, log, error_summary(err))
    what = f"{len(timers)} build(s)"
    if timers and workload.reference is not None:
        timers["reference"] = reference_timer(workload.reference, random_inputs(workload.inputs))
        what += f" and {workload.framework}"
    print(f"timing {what} in turns", flush=True)
    seconds = time_side_by_side(timers)
    for i, curve in enumerate(curves):
        curve.measured = seconds.get(i)
    return seconds.get("reference")


def report(curves, out: str, title: str, reference: str = "xgb", note: str = "") -> int:
    """Write ``curves.csv``/``curves.json``, ``compare.json`` (title, note, reference: what
    ``plot`` redraws with), ``curves.png`` and ``summary.md``; print the summary."""
    from ..curves import plot_curves, summary_table, verdict, write_curves

    write_curves(curves, out)
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump({"title": title, "note": note, "reference": reference}, f, indent=1)
    plot_curves(curves, os.path.join(out, "curves.png"), title)
    table = summary_table(curves, reference)
    line = verdict(curves, "gnn", reference)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(f"# {title}\n\n{table}\n")
        for text in (line, note):
            if text:
                f.write(f"\n{text}\n")
    print(f"wrote {out}/curves.csv, curves.json, compare.json, curves.png, summary.md")
    print(table)
    if line:
        print(f"\nverdict: {line}")
    return 0


def _tune_child(args, tasks, target, model: str, seed: int, log: str,
                max_restarts: int = 5) -> None:
    """Tune one model and seed to ``args.trials`` in a child process, resuming after a crash.

    A child process because TVM can abort the whole process (a C++ assertion on
    XGBModel's path, see README); the log keeps every measured record, so a
    restart with ``--resume`` continues where the crash left off. Gives up after
    ``max_restarts`` crashes, or at once if a crash measured nothing new.
    """
    from ..ansor.tuning import count_records

    cmd = _tune_command(args, target, model, seed, log)
    done = count_records(log, tasks)
    restarts = 0
    while done < args.trials:
        print(f"[{model} seed {seed}] tuning {args.network}: {done} of {args.trials} trials done",
              flush=True)
        if not done:  # tuning time is counted from here
            with open(log + ".start", "w") as f:
                f.write(repr(time.time()))
        rc = _call(cmd + (["--resume"] if done else []))
        now = count_records(log, tasks)
        if rc == 0 and now >= args.trials:
            return
        if rc == 0:
            raise SystemExit(f"error: tuning {model} seed {seed} ended at {now} of "
                             f"{args.trials} trials; see its output above")
        restarts += 1
        logger.warning("[%s seed %d] the tuning process died (exit %d) at %d trials",
                       model, seed, rc, now)
        if not now and not os.path.exists(log):
            raise SystemExit(f"error: tuning {model} seed {seed} failed before it measured "
                             f"anything (exit {rc}); see its output above")
        if now == done or restarts > max_restarts:
            logger.warning("[%s seed %d] giving up at %d of %d trials; its curve stops there",
                           model, seed, now, args.trials)
            return
        done = now


def _call(cmd: List[str], grace: float = 300.0) -> int:
    """Run a ``tune`` child process and return its exit code.

    On Ctrl-C or SIGTERM the child is sent the same signal (a copy of what it may have had
    already takes nothing away), ends the round it is measuring and keeps its log whole:
    wait up to ``grace`` seconds for that before killing it (a second signal kills it at
    once). The child is never left running on its own.
    """
    child = subprocess.Popen(cmd)
    try:
        return child.wait()
    except KeyboardInterrupt as err:
        signum = getattr(err, "signum", signal.SIGINT)
        if child.poll() is None:
            child.send_signal(signum)
        print(f"\nwaiting for the tuning process to end its round ({signal_name(signum)} "
              "again to kill it)", file=sys.stderr, flush=True)
        try:
            child.wait(timeout=grace)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        raise


def _first_round(args, target, model: str) -> int:
    """Programs in each task's first round of a ``model`` run: ``--first-round``, else what
    ``tune`` picks (shorter for a model with the shipped or a given prior)."""
    from ..ansor.tuning import first_round_size
    from ..workloads.targets import shipped_prior_mismatch

    if args.first_round:
        return args.first_round
    with_prior = model == "gnn-prior" or (model == "gnn"
                                          and shipped_prior_mismatch(target) is None)
    return first_round_size(with_prior, args.measures_per_round)


def _tune_command(args, target, model: str, seed: int, log: str) -> List[str]:
    """The ``tune`` command line of one run of ``compare``."""
    cmd = [sys.executable, "-m", "tvm_gnn_cost", "tune", "--network", args.network,
           "--batch-size", str(args.batch_size), "--target", str(target),
           "--search", args.search, "--measures-per-round", str(args.measures_per_round),
           "--model", "gnn" if model.startswith("gnn") else model, "--seed", str(seed),
           "--trials", str(args.trials), "--log", log, "--no-build",
           "--prior-records", str(args.prior_records)]
    cmd += {"gnn-online": ["--no-prior"], "gnn-prior": ["--prior", str(args.pretrained)],
            "gnn-pretrained": ["--pretrained", str(args.pretrained)]}.get(model, [])
    cmd += ["--first-round", str(_first_round(args, target, model))]
    if args.input_shape:
        cmd += ["--input-shape", ",".join(map(str, args.input_shape))]
    if args.input_shapes:
        cmd += ["--input-shapes", args.input_shapes]
    if args.desired_layout:
        cmd += ["--desired-layout", args.desired_layout]
    if args.verbose:
        cmd.append("--verbose")
    if args.rpc_key:
        cmd += ["--rpc-key", args.rpc_key, "--rpc-host", args.rpc_host,
                "--rpc-port", str(args.rpc_port)]
    return cmd
