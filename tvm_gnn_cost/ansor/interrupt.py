"""Ctrl-C or SIGTERM while measuring: stop between rounds, keeping every measurement.

A ``KeyboardInterrupt`` raised inside one of Ansor's measuring callbacks (Python functions
that TVM's C++ search calls) does not stop the search cleanly: TVM prints the callback's
traceback and ends with an unrelated error (``TypeError`` from ``local_run``, or
``AttributeError: Op object has no attributed span``). :class:`StopOnInterrupt` takes the
first Ctrl-C as a request: the round under way ends, its measurements written, and
:class:`TuningInterrupted` is raised between rounds. The measuring workers do not get a
terminal's Ctrl-C (:func:`.workers.persistent_workers` starts them in sessions of their own),
so the round's measurements are as sound as any other's. A second Ctrl-C stops at once (a
copy of the first, see :mod:`tvm_gnn_cost.signals`, does not). SIGTERM (``kill``, a batch
scheduler's notice) is taken the same way.

A round is a ``TaskScheduler`` round (the class is one of its callbacks) or whatever runs
between two calls of :meth:`StopOnInterrupt.check` (``collect``'s chunks).
"""
from __future__ import annotations

import contextlib
import logging
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

    Put it last among the scheduler's callbacks, so that the others record the round that
    ends the job, as its measurements are in the log.
    """

    def __init__(self, log_file: str):
        self.log_file = log_file
        self.requested = False
        self.signum = signal.SIGINT
        self._repeats = RepeatFilter()

    def request(self, signum, frame):  # a signal handler
        if self._repeats.is_copy():
            return
        if self.requested:
            raise stopping(signum)
        self.requested = True
        self.signum = signum
        logger.warning("stopping after this round; %s again to stop at once",
                       signal_name(signum))

    def check(self) -> None:
        """Between rounds: raise :class:`TuningInterrupted` if Ctrl-C or SIGTERM came."""
        if self.requested:
            raise TuningInterrupted(self.log_file, self.signum)

    def post_tune(self, task_scheduler, task_id):
        self.check()


@contextlib.contextmanager
def stop_on_interrupt(callback: StopOnInterrupt) -> Iterator[None]:
    """Route Ctrl-C and SIGTERM to ``callback`` while the block runs (main thread only)."""
    with handle_stop_signals(callback.request):
        yield


__all__ = ["TuningInterrupted", "StopOnInterrupt", "stop_on_interrupt"]
