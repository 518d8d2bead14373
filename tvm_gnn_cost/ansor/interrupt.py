"""Ctrl-C during tuning: stop between rounds, with a log that holds only whole rounds.

A ``KeyboardInterrupt`` raised inside one of Ansor's measuring callbacks (Python functions
that TVM's C++ search calls) does not stop the search cleanly: TVM prints the callback's
traceback and ends with an unrelated error (``TypeError`` from ``local_run``, or
``AttributeError: Op object has no attributed span``). A terminal's Ctrl-C also reaches the
measuring worker processes, which exit, so the round under way records failures that are
not the programs'. :class:`StopOnInterrupt` takes the first Ctrl-C as a request: the round
under way ends, its records are taken out of the log, and :class:`TuningInterrupted` is
raised between rounds. A second Ctrl-C stops at once.
"""
from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from typing import Iterator

from tvm.auto_scheduler.task_scheduler import TaskSchedulerCallback

logger = logging.getLogger("tvm_gnn_cost")


class TuningInterrupted(KeyboardInterrupt):
    """Tuning stopped by Ctrl-C between two rounds.

    Attributes
    ----------
    log_file : str
        The log; it holds every round measured before the interrupted one.
    trials : int
        Measurements of this run kept in the log.
    """

    def __init__(self, log_file: str, trials: int):
        super().__init__(f"tuning interrupted after {trials} trials; {log_file} keeps them")
        self.log_file = log_file
        self.trials = trials


class StopOnInterrupt(TaskSchedulerCallback):
    """A ``TaskScheduler`` callback that ends tuning after the round in which Ctrl-C came.

    Put it first among the callbacks, so that no other one records the dropped round.
    """

    def __init__(self, log_file: str):
        self.log_file = log_file
        self.requested = False
        self._log_size = 0
        self._trials = 0

    def pre_tune(self, task_scheduler, task_id):
        self._log_size = os.path.getsize(self.log_file) if os.path.exists(self.log_file) else 0
        self._trials = int(task_scheduler.ct)

    def post_tune(self, task_scheduler, task_id):
        if not self.requested:
            return
        if os.path.exists(self.log_file):  # the round's records may be the workers' deaths
            with open(self.log_file, "r+", encoding="utf-8") as f:
                f.truncate(self._log_size)
        raise TuningInterrupted(self.log_file, self._trials)

    def request(self, signum, frame):  # a signal handler
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        logger.warning("stopping after this round; Ctrl-C again to stop at once")


@contextlib.contextmanager
def stop_on_interrupt(callback: StopOnInterrupt) -> Iterator[None]:
    """Route SIGINT to ``callback`` while the block runs (main thread only; elsewhere Python
    delivers no signal and nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, callback.request)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


__all__ = ["TuningInterrupted", "StopOnInterrupt", "stop_on_interrupt"]
