"""Ctrl-C or SIGTERM while measuring: stop between rounds, keeping every measurement made
before it.

A ``KeyboardInterrupt`` raised inside one of Ansor's measuring callbacks (Python functions
that TVM's C++ search calls) does not stop the search cleanly: TVM prints the callback's
traceback and ends with an unrelated error (``TypeError`` from ``local_run``, or
``AttributeError: Op object has no attributed span``). A terminal's Ctrl-C also reaches the
measuring worker processes, which exit, so the measurements under way fail for reasons that
are not the programs'. :class:`StopOnInterrupt` takes the first Ctrl-C as a request: the
round under way ends, what it wrote to the log after the request is taken out again, and
:class:`TuningInterrupted` is raised between rounds. A second Ctrl-C stops at once (a copy
of the first, see :mod:`tvm_gnn_cost.signals`, does not). SIGTERM (``kill``, a batch
scheduler's notice) is taken the same way.

A round is a ``TaskScheduler`` round (the class is one of its callbacks) or whatever runs
between two calls of :meth:`StopOnInterrupt.check` (``collect``'s chunks).
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
from typing import Iterator

from tvm.auto_scheduler.task_scheduler import TaskSchedulerCallback

from ..signals import RepeatFilter, handle_stop_signals, signal_name, stopping

logger = logging.getLogger("tvm_gnn_cost")


class TuningInterrupted(KeyboardInterrupt):
    """Measuring stopped by Ctrl-C or SIGTERM between two rounds.

    Attributes
    ----------
    log_file : str
        The log; it holds every measurement written before the signal.
    signum : int
        The signal (``signal.SIGINT`` for Ctrl-C).
    """

    def __init__(self, log_file: str, signum: int = signal.SIGINT):
        super().__init__(f"interrupted; {log_file} keeps every measurement made before it")
        self.log_file = log_file
        self.signum = signum


class StopOnInterrupt(TaskSchedulerCallback):
    """Ends measuring after the round in which Ctrl-C came; a ``TaskScheduler`` callback.

    Put it first among the scheduler's callbacks, so that no other one records the
    interrupted round.
    """

    def __init__(self, log_file: str):
        self.log_file = log_file
        self.requested = False
        self.signum = signal.SIGINT
        self._kept = 0  # bytes of the log when Ctrl-C came
        self._repeats = RepeatFilter()

    def request(self, signum, frame):  # a signal handler
        if self._repeats.is_copy():
            return
        if self.requested:
            raise stopping(signum)
        self.requested = True
        self.signum = signum
        self._kept = os.path.getsize(self.log_file) if os.path.exists(self.log_file) else 0
        logger.warning("stopping after this round; %s again to stop at once",
                       signal_name(signum))

    def check(self) -> None:
        """Between rounds: raise :class:`TuningInterrupted` if Ctrl-C came, the log cut back
        to what it held then. Ansor writes a batch of records once all of it is measured,
        and Python runs the handler at once while measuring (the builder and runner are
        Python functions), so what was written before is whole and sound; what came after
        may be the killed workers' failures."""
        if not self.requested:
            return
        if os.path.exists(self.log_file):
            with open(self.log_file, "r+", encoding="utf-8") as f:
                f.truncate(self._kept)
        raise TuningInterrupted(self.log_file, self.signum)

    def post_tune(self, task_scheduler, task_id):
        self.check()


@contextlib.contextmanager
def stop_on_interrupt(callback: StopOnInterrupt) -> Iterator[None]:
    """Route Ctrl-C and SIGTERM to ``callback`` while the block runs (main thread only)."""
    with handle_stop_signals(callback.request):
        yield


__all__ = ["TuningInterrupted", "StopOnInterrupt", "stop_on_interrupt"]
