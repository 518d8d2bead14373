"""What the commands share: workload arguments, the target, the runner, the search size."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
from typing import List, Optional, Sequence

from ..core.prior import PRIOR_RECORDS

def at_least(minimum: int):
    """An argparse ``type``: an integer of at least ``minimum``, refused with a usage error
    (not a traceback from TVM later) otherwise."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value
    return parse


def _shape(text: str):
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--input-shape takes comma-separated integers, got {text!r}")


def add_workload_args(p: argparse.ArgumentParser) -> None:
    """The arguments that say what to tune, where, and how big a search."""
    from ..workloads.convert import LAYOUTS
    from ..workloads.networks import NETWORKS

    p.add_argument("--network", required=True,
                   help="your model: an ONNX file, a TorchScript file (.pt) or a "
                        "package.module:function returning (torch.nn.Module, example inputs), "
                        "the module alone (give --input-shapes), or a Relay (tvm.IRModule, "
                        "params); "
                        f"or a built-in one: {', '.join(NETWORKS)}")
    p.add_argument("--input-shapes", default=None, metavar="'NAME:[D1,D2,...] ...'",
                   help="input shapes of a model file or of a module an entry point returns "
                        "alone, as tvmc takes them, for example \"input:[1,3,224,224]\" (an "
                        "ONNX file's own static shapes otherwise); an input that is not float32 "
                        "names its dtype after the shape: \"ids:[1,128]:int64\"")
    p.add_argument("--input-range", default=None, metavar="'NAME:LOW:HIGH ...'",
                   help="values the output check feeds an input, drawn from LOW up to, not "
                        "including, HIGH (default: [0, 1) for floats; an integer input that "
                        "indexes an embedding over its rows, another 0 or 1)")
    p.add_argument("--desired-layout", choices=[*LAYOUTS, "none"], default=None,
                   help="convert your model's convolutions to this layout (default NHWC on "
                        "CPU targets, which Ansor's CPU schedules are written for; none keeps "
                        "the model's)")
    p.add_argument("--batch-size", type=at_least(1), default=1)
    p.add_argument("--input-shape", type=_shape, default=None,
                   help="built-in networks: H,W,C for CNNs; sequence length for bert; n,m,k "
                        "for matmul; H,W,Cin,Cout,kernel for conv2d")
    p.add_argument("--target", default=None,
                   help="any TVM target string (default: the host CPU with its -mcpu)")
    p.add_argument("--search", choices=["small", "default"], default="small",
                   help="SketchPolicy size: 'small' (population 256, 2 iterations) or Ansor's default")
    p.add_argument("--measures-per-round", type=at_least(1), default=16,
                   help="programs measured in a round of one task (default 16)")
    p.add_argument("--first-round", type=at_least(1), default=None, metavar="N",
                   help="programs measured in each task's first round (default 8 for a model "
                        "with a prior, which ranks a task's first programs without its records; "
                        "as many as in the others otherwise)")
    p.add_argument("--cache-flush", action="store_true",
                   help="flush the CPU caches before each measured run, as TVM's x86 network "
                        "tutorial does: a program is timed as it runs in a network, where its "
                        "weights are not already in cache")
    p.add_argument("--fast-math", action="store_true",
                   help="replace exp, erf, tanh and softmax by TVM's vectorizable "
                        "approximations (Relay's FastMath) in the tasks and the build: erf is "
                        "otherwise a scalar call into libm, GELU's cost; the output check "
                        "still applies")
    p.add_argument("--rpc-key", default=None, help="measure on devices of this key at an RPC tracker")
    p.add_argument("--rpc-host", default="127.0.0.1")
    p.add_argument("--rpc-port", type=int, default=9190)
    p.add_argument("--no-build", action="store_true",
                   help="skip building and timing the result with its best schedules")
    p.add_argument("-v", "--verbose", action="store_true")


def load_network(args, target):
    """The workload ``--network`` names, or exit with what was wrong."""
    from ..workloads.inputs import parse_input_ranges
    from ..workloads.models import parse_input_dtypes, parse_input_shapes
    from ..workloads.networks import load_workload

    layout = args.desired_layout or ("NHWC" if str(target.kind.name) == "llvm" else None)
    try:
        return load_workload(args.network, target, args.batch_size, args.input_shape,
                             parse_input_shapes(args.input_shapes),
                             None if layout == "none" else layout,
                             parse_input_dtypes(args.input_shapes),
                             parse_input_ranges(args.input_range),
                             fast_math=getattr(args, "fast_math", False))
    except (ValueError, FileNotFoundError) as err:
        raise SystemExit(f"error: --network {args.network}: {err}")


def ensure_folder(flag: str, path: str) -> None:
    """Create the folder ``path`` will be written into, or exit saying why it cannot be: TVM
    writes log records without an error where it cannot, and the measurements are lost."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise SystemExit(f"error: {flag} {path}: cannot create its folder ({err.strerror})")
    if not os.access(folder, os.W_OK):
        raise SystemExit(f"error: {flag} {path}: its folder {folder} is not writable")


def check_budget(tasks, trials: int, measures_per_round: int) -> None:
    """Exit with what was wrong when ``trials`` are too few for ``tasks`` (before the long
    work starts, not with TVM's traceback once tuning does)."""
    from ..ansor.tuning import check_budget as check

    try:
        check(tasks, trials, measures_per_round)
    except ValueError as err:
        raise SystemExit(f"error: {err}") from None


def add_prior_args(p: argparse.ArgumentParser) -> None:
    """``--prior``/``--no-prior``: what the GNN keeps frozen beside itself."""
    p.add_argument("--prior", default=None, metavar="CHECKPOINT",
                   help="keep this pretrained checkpoint frozen as a prior beside the online "
                        "GNN (default: the shipped one, where the target is a CPU it was "
                        "trained for)")
    p.add_argument("--no-prior", action="store_true",
                   help="the online GNN alone, without a prior")
    add_prior_records_arg(p)


def add_prior_records_arg(p: argparse.ArgumentParser) -> None:
    """``--prior-records``: how fast the online GNN takes over from the prior."""
    p.add_argument("--prior-records", type=float, default=PRIOR_RECORDS,
                   help="a task's own records at which the prior and the online GNN weigh "
                        f"the same, for every model with a prior (default {PRIOR_RECORDS:g})")


def model_choice(args, target):
    """The Ansor model ``--model`` and the prior flags ask for, for ``target``
    (:func:`tvm_gnn_cost.experiments.registry.choose`), or exit saying what contradicts."""
    from ..experiments.registry import choose, from_tune_flags

    try:
        name, checkpoint = from_tune_flags(getattr(args, "model", "gnn"), args.prior,
                                           args.no_prior, getattr(args, "pretrained", None))
        return choose(name, target, checkpoint)
    except ValueError as err:
        raise SystemExit(f"error: {err}") from None


def workload_argv(args, leave_out: Sequence[str] = ()) -> List[str]:
    """The flags of :func:`add_workload_args` that ``args`` sets to other than their
    defaults, as a command line: how a child process is given the same workload without a
    list of flags to keep up to date. Flags in ``leave_out`` (their dests) are left out."""
    parser = argparse.ArgumentParser(add_help=False)
    add_workload_args(parser)
    argv: List[str] = []
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        if action.dest in leave_out or value is None or value == action.default:
            continue
        flag = action.option_strings[-1]
        if isinstance(action, argparse._StoreTrueAction):
            argv.append(flag)
        else:
            argv += [flag, ",".join(map(str, value)) if isinstance(value, tuple) else str(value)]
    return argv


def add_trust_pickle(p: argparse.ArgumentParser) -> None:
    """``--trust-pickle``: read task files that are pickles (TenSet's format), which run code."""
    p.add_argument("--trust-pickle", action="store_true",
                   help="read task files beside the logs that are pickles (TenSet's format, "
                        "this project's before December 2026): loading one runs the code it "
                        "holds, so only for files you trust")


def log_files(paths: Sequence[str]) -> List[str]:
    """``paths`` without the task files among them (``data/train/*.json.gz`` matches both a
    log and the task file beside it; the task file is read with its log anyway)."""
    from ..ansor.taskfile import is_task_file

    return [p for p in paths if not is_task_file(p)]


@contextlib.contextmanager
def untrusted_pickle_is_an_error():
    """A task file that is a pickle, without ``--trust-pickle``: an error line, not a traceback."""
    from ..ansor.taskfile import UntrustedPickleError

    try:
        yield
    except UntrustedPickleError as err:
        raise SystemExit(f"error: {err}") from None


def parse_target(text: Optional[str], rpc_key: Optional[str] = None):
    """The ``--target`` (default: this CPU), or exit with examples of valid ones, or saying
    that a CPU of another architecture is measured through ``--rpc-key``."""
    import tvm

    from ..workloads.targets import check_runs_here, check_target, host_target

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
        if not rpc_key:
            check_runs_here(target)
    except ValueError as err:
        raise SystemExit(f"error: --target {text!r}: {err}")
    return target


def measure_settings(args, base=None):
    """How ``args`` ask programs to be timed: ``base`` (default
    :data:`tvm_gnn_cost.ansor.measure.TUNING`) with ``--cache-flush``."""
    from dataclasses import replace

    from ..ansor.measure import TUNING

    settings = base or TUNING
    if getattr(args, "cache_flush", False):
        settings = replace(settings, enable_cpu_cache_flush=True)
    return settings


def runner(args, settings=None):
    """The runner of ``--rpc-key`` (an ``RPCRunner``) or a local one, timing as
    :func:`measure_settings` says."""
    return measure_settings(args, settings).runner(args.rpc_key, args.rpc_host, args.rpc_port)


def search_params(args):
    """``SketchPolicy`` parameters of ``--search``."""
    from ..ansor.tuning import SMALL_SEARCH

    return SMALL_SEARCH if args.search == "small" else None


def print_tuned(curve, where: str, left_out: str, counts) -> None:
    """What a finished ``tune`` reached: trials, time, the estimated latency and what it
    leaves out, where the records are, and each task's trials (``counts``: name -> trials)."""
    if curve.trials:
        print(f"tuned to {curve.trials[-1]} trials in {curve.wall:.0f} s; estimated latency "
              f"{curve.final * 1e3:.4f} ms; {where}")
        print(f"  (each task's best program timed alone, times its calls in the network{left_out})")
    if counts:
        print("trials a task: " + ", ".join(f"{name} {n}" for name, n in counts.items()))


def describe(model) -> str:
    """One line on which GNN tunes: with a prior or alone."""
    if getattr(model, "prior_file", None):
        return f"online GNN with the frozen prior {model.prior_file}"
    return "online GNN" + (" (from a pretrained checkpoint)" if model.trainer.n_fits else "")


def save_model(args, model) -> None:
    """``--save-model``: the tuned GNN written where asked."""
    if args.save_model and hasattr(model, "save"):
        model.save(args.save_model)
        print(f"model saved to {args.save_model}")


def build_and_report(args, build, what: str, fallback_means: str):
    """Run ``build()`` (build, check, time and export what was tuned: a
    :class:`~tvm_gnn_cost.workloads.harness.BuildReport`) and print what it gave; None after
    printing the error. Errors end with a message, not a traceback: the tuning is done and
    its records are kept in ``--log``. ``what`` the search calls its results (schedules,
    programs); ``fallback_means`` what tasks without one get."""
    import sys

    from ..workloads.errors import error_summary
    from ..workloads.harness import WrongResultError

    try:
        report = build()
    except WrongResultError as err:
        print(f"error: {err}. Every measured record is kept in {args.log}.", file=sys.stderr)
        return None
    except Exception as err:  # noqa: BLE001 - TVM raises many kinds; the records are safe
        print(f"error: building {args.network} with the best {what} of {args.log} failed "
              f"({error_summary(err)}). Every measured record is kept in {args.log}; "
              "`tvm-gnn-cost tune ... --resume` continues it.", file=sys.stderr)
        return None
    if report.fallback:
        print(f"{len(report.fallback)} task(s) without a valid tuned {what[:-1]} "
              f"{fallback_means}: {', '.join(report.fallback)}")
    print(f"outputs match {report.reference} (largest difference {report.error:.1e} of the "
          f"largest output)")
    line = f"measured latency with the best {what}: {report.latency * 1e3:.4f} ms"
    if report.reference_latency:
        line += (f"; {report.reference} runs the original in "
                 f"{report.reference_latency * 1e3:.4f} ms (the two timed in turns)")
    print(line)
    return report


def require_ansor(command: str) -> None:
    """Exit with what to do instead when this TVM has no auto_scheduler (apache-tvm >= 0.20)."""
    try:
        from tvm import auto_scheduler  # noqa: F401
    except ImportError:
        import tvm

        what = (f"Pass --searcher metaschedule to {command} with MetaSchedule, or run it"
                if command in ("compare", "tune") else "Run it")
        raise SystemExit(f"error: {command} runs Ansor (tvm.auto_scheduler), which TVM "
                         f"{tvm.__version__} does not have. {what} with the pinned stack "
                         "(TVM 0.19: `make setup`, then .venv/bin/tvm-gnn-cost).")


__all__ = ["add_prior_args", "add_prior_records_arg", "add_workload_args", "at_least",
           "build_and_report", "check_budget", "describe", "ensure_folder", "print_tuned",
           "save_model", "load_network", "model_choice", "parse_target", "require_ansor", "runner",
           "search_params", "workload_argv"]
