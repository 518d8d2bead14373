"""``tvm-gnn-cost``: tune a network, compare cost models' search curves, redraw plots, collect
datasets, pretrain and evaluate. One module per command: ``add_parser`` and ``run``.

    tvm-gnn-cost tune --network resnet-18 --model gnn --trials 500 --log r18.json
    tvm-gnn-cost compare --network resnet-18 --models gnn,xgb,random --trials 500 --seeds 3 --out runs/r18
    tvm-gnn-cost plot runs/r18
    tvm-gnn-cost collect --network resnet-18 --programs-per-task 64 --out data/r18.json
    tvm-gnn-cost import their-logs/*.json --network my_pkg.models:build --out data/imported
    tvm-gnn-cost pretrain data/*.json --out gnn-cpu.pt
    tvm-gnn-cost evaluate --model gnn-cpu.pt data/validation/*.json --baseline xgb --train data/*.json
"""
from __future__ import annotations

import argparse
import logging
import signal
import sys
from typing import List, Optional

from . import collect, compare, evaluate, import_logs, plot, pretrain, tune
from ..signals import stop_signals_raise
from ..threads import use_every_core
from .common import require_ansor

COMMANDS = {"tune": tune, "compare": compare, "plot": plot, "collect": collect,
            "import": import_logs, "pretrain": pretrain, "evaluate": evaluate}

#: How to go on after Ctrl-C or SIGTERM, by command.
AFTER_INTERRUPT = {
    "tune": "the same command with --resume continues it",
    "compare": "the same compare command again reuses the finished runs and resumes the one "
               "under way",
    "collect": "the same command again goes on (programs in the log are not measured again)",
}


def build_parser() -> argparse.ArgumentParser:
    """The ``tvm-gnn-cost`` parser, one subcommand per module of :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="tvm-gnn-cost",
        description="A GNN cost model for TVM's auto-scheduler: tune, compare, collect, "
                    "pretrain, evaluate.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS.values():
        command.add_parser(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if args.command != "plot" and getattr(args, "searcher", "ansor") == "ansor":
        require_ansor(args.command)
    use_every_core()  # before TVM runs anything here; measuring workers inherit it
    with stop_signals_raise():  # kept while the message is printed: a copy may follow
        try:
            return COMMANDS[args.command].run(args)
        except KeyboardInterrupt as err:  # Ctrl-C, Terminated (SIGTERM), TuningInterrupted
            return _interrupted(args.command, err)
        except (FileNotFoundError, ValueError) as err:
            if getattr(args, "verbose", False) or not _says_the_fix(err):
                raise
            raise SystemExit(f"error: {err}") from None


def _interrupted(command: str, err: KeyboardInterrupt) -> int:
    """One line on what was kept and how to go on; the exit code a shell gives a process
    the signal ended (130 for Ctrl-C, 143 for SIGTERM)."""
    signum = getattr(err, "signum", signal.SIGINT)
    kept = (f"{err.log_file} keeps every measurement made before it"  # TuningInterrupted
            if getattr(err, "log_file", None) else "")
    hint = "; ".join(s for s in (kept, AFTER_INTERRUPT.get(command, "")) if s)
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    print(f"\n{word}{': ' + hint if hint else ''}", file=sys.stderr)
    return 128 + signum


def _says_the_fix(err: Exception) -> bool:
    """Errors whose message is all a user needs (a missing file, a file that is not a
    checkpoint): one line instead of a traceback; ``-v`` keeps the traceback."""
    from ..core.checkpoint import CheckpointError

    told: tuple = (FileNotFoundError, CheckpointError)
    try:
        from ..offline.featurize import NoRecordsError

        told += (NoRecordsError,)
    except ImportError:  # no TVM: nothing featurizes logs
        pass
    return isinstance(err, told)


__all__ = ["build_parser", "main"]

if __name__ == "__main__":
    sys.exit(main())
