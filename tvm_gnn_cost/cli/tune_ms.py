"""``tvm-gnn-cost tune --searcher metaschedule``: a model tuned with MetaSchedule on
apache-tvm (Relax), then built with the tuning database, checked, timed and exported.

    tvm-gnn-cost tune --searcher metaschedule --network model.onnx \\
        --input-shapes "input:[1,3,224,224]" --trials 2000 --log work/ --export m.so

``--log`` is MetaSchedule's work folder: its JSON database (``database_workload.json``,
``database_tuning_record.json``, each record written as it is measured) and its logs.
"""
from __future__ import annotations

import argparse
import os

from .common import at_least, build_and_report, describe, print_tuned, save_model

#: ``tune`` flags of the Ansor search only: (dest, flag, default).
ANSOR_ONLY = (("search", "--search", "small"), ("measures_per_round", "--measures-per-round", 16),
              ("first_round", "--first-round", None), ("cache_flush", "--cache-flush", False),
              ("fast_math", "--fast-math", False), ("rpc_key", "--rpc-key", None),
              ("profile", "--profile", False), ("prior", "--prior", None),
              ("pretrained", "--pretrained", None),
              ("weigh_by_profile", "--weigh-by-profile", None))
#: ``tune`` flags of the MetaSchedule search only.
METASCHEDULE_ONLY = (("trials_per_iter", "--trials-per-iter", 16),
                     ("no_weight_prepack", "--no-weight-prepack", False))


def refuse(args, flags, searcher: str) -> None:
    """Exit naming the first of ``flags`` ((dest, flag, default)) that ``args`` set: it
    applies to ``searcher`` only."""
    for dest, flag, default in flags:
        if getattr(args, dest, default) != default:
            raise SystemExit(f"error: {flag} applies to the {searcher} search only; drop it")


def add_arguments(t: argparse.ArgumentParser) -> None:
    """The flags ``tune`` and ``compare`` take for MetaSchedule alone."""
    ms = t.add_argument_group("MetaSchedule (--searcher metaschedule)")
    ms.add_argument("--trials-per-iter", type=at_least(1), default=16, metavar="N",
                    help="candidates measured per search iteration (default 16)")
    ms.add_argument("--no-weight-prepack", action="store_true",
                    help="apache-tvm: keep a model's weights in its layout; by default a tuned "
                         "program may read them in its own, folded into the weights at build "
                         "(TVM's cpu_weight_prepack)")


def run(args, target) -> int:
    """Tune, build, check, time and export, as ``tune`` does for Ansor."""
    from ..experiments.registry import METASCHEDULE_MODELS, from_tune_flags, make_ms_model
    from ..metaschedule.tuning import has_records, ms_tune
    from ..tir.compat import MODERN
    from ..workloads.networks import SINGLE_OPERATORS
    from ..workloads.targets import with_num_cores
    from .common import ensure_folder

    if not MODERN:
        raise SystemExit("error: tune --searcher metaschedule builds through Relax, which this "
                         "TVM lacks; run it with apache-tvm (`make setup-modern`, then "
                         ".venv-modern/bin/tvm-gnn-cost), or compare MetaSchedule's curves here "
                         "with compare --searcher metaschedule")
    refuse(args, ANSOR_ONLY, "Ansor")
    if args.model not in METASCHEDULE_MODELS:
        raise SystemExit(f"error: --model {args.model} is an Ansor model; MetaSchedule takes "
                         f"{', '.join(METASCHEDULE_MODELS)}")
    try:  # --prior and --pretrained were refused above: only --no-prior is left to map
        name, _ = from_tune_flags(args.model, None, args.no_prior, None)
    except ValueError as err:
        raise SystemExit(f"error: {err}") from None
    if args.export and args.no_build:
        raise SystemExit("error: --export writes the built library; drop --no-build")
    if has_records(args.log) and not args.resume:
        raise SystemExit(f"error: {args.log} holds a tuning database; pass --resume to "
                         "continue it, or choose another --log")
    if args.network in SINGLE_OPERATORS:
        raise SystemExit(f"error: --network {args.network}: tune --searcher metaschedule tunes "
                         "and builds a network; for single operators use compare --searcher "
                         "metaschedule")
    target = with_num_cores(target)  # MetaSchedule's CPU rules need it
    workload = load_ms_workload(args, target)
    ensure_folder("--log", os.path.join(args.log, "database_tuning_record.json"))  # the folder
    if args.export:
        ensure_folder("--export", args.export)
    tasks = len(workload.modules)
    print(f"{args.network}: {tasks} MetaSchedule tasks, target {target}", flush=True)
    trials = args.trials or args.trials_per_task * tasks
    if args.trials_per_task:
        print(f"budget: {trials} trials ({args.trials_per_task} a task)", flush=True)
    model = make_ms_model(name, args.seed, target)
    if name.startswith("gnn"):
        print(f"model: {describe(model)}", flush=True)
    curve = ms_tune(workload, model, trials, args.log, target, args.seed,
                    per_iter=args.trials_per_iter, name=name, resume=args.resume)
    print_tuned(curve, f"database in {args.log}", "; functions that are no task are left out",
                _trials_by_task(args.log, workload))
    save_model(args, model)
    if args.no_build:
        return 0
    return _build(workload, args, target)


def load_ms_workload(args, target):
    """The MetaSchedule tasks of what ``--network`` names (a user's model with its
    ``--input-shapes``, ``--input-range``, ``--desired-layout`` and ``--no-weight-prepack``), or
    exit with what was wrong."""
    from ..metaschedule.tuning import ms_workload, ms_workload_from_model
    from ..workloads.inputs import parse_input_ranges
    from ..workloads.models import is_model_spec, parse_input_dtypes, parse_input_shapes
    from ..workloads.networks import NETWORKS

    layout = None if args.desired_layout in (None, "none") else args.desired_layout
    if args.network in NETWORKS and not is_model_spec(args.network):
        if args.input_shapes or args.input_range or layout:
            raise SystemExit(f"error: --network {args.network}: a built-in network takes "
                             "--batch-size and --input-shape; --input-shapes, --input-range "
                             "and --desired-layout are for your own model")
        try:
            return ms_workload(args.network, target, args.batch_size, args.input_shape)
        except ValueError as err:
            raise SystemExit(f"error: --network {args.network}: {err}") from None
    try:
        return ms_workload_from_model(args.network, target,
                                      parse_input_shapes(args.input_shapes),
                                      parse_input_dtypes(args.input_shapes),
                                      parse_input_ranges(args.input_range),
                                      weight_prepack=not args.no_weight_prepack, layout=layout)
    except (ValueError, FileNotFoundError) as err:
        raise SystemExit(f"error: --network {args.network}: {err}") from None


def _trials_by_task(work_dir: str, workload):
    """Valid records of each task in the database of ``work_dir``."""
    from ..metaschedule.tuning import measured_records, open_database

    records = measured_records(open_database(work_dir), [mod for _, mod in workload.modules])
    return {name: len(r) for (name, _), r in zip(workload.modules, records)}


def _build(workload, args, target) -> int:
    """Build, check, time and export what was tuned (:func:`.common.build_and_report`)."""
    from ..metaschedule.relax_build import build_and_time

    report = build_and_report(
        args, lambda: build_and_time(workload.model, workload.modules, args.log, target,
                                     export=args.export),
        "programs", "are built unscheduled")
    if report is None:
        return 1
    if report.exported:
        print(f"compiled library: {report.exported} (inputs in {report.exported}.json; run it "
              "with relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())['main'])")
    return 0


__all__ = ["ANSOR_ONLY", "METASCHEDULE_ONLY", "add_arguments", "load_ms_workload", "refuse",
           "run"]
